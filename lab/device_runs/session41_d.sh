#!/bin/bash
# Session 41: the first compile of 4096^3's plan on the GPU machine's CPUs, the SASS stage's kernels side by side
# against one after the other (lab/experiments/first_compile_time: each compile cold, in a fresh process); then every
# member on 512^3 in NN, NT and TT and 384^3 in NT (NT 512^3 fell to 0.991 in c_d56f3e8 after session 40's table
# refit moved its entry sq-32x32 -> plain-32x64).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s41d
lab_ab first_compile_time ${F_S:-150} rounds=3
lab_ab layout_candidates ${L_S:-150} fused=1 budget=$(( ${L_S:-150} - 30 )) NN:512x512x512 NT:512x512x512 \
    TT:512x512x512 NT:384x384x384
archive session41_d
