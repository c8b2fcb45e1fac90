#!/bin/bash
# Session 41: every member (fused ones too) on held-out shapes below cuBLAS whose rows are aligned and whose pick the
# model made (no table entry near): NN / TN 100x1000x10000, NT 96x4096x11008, TT 18944x20x3584, TT 4096x4096x100
# (c_d56f3e8, a_8a7f384, e_e487d55) - is it the member or the kernel?
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s41f
lab_ab layout_candidates ${L_S:-200} fused=1 budget=$(( ${L_S:-200} - 30 )) NN:100x1000x10000 TN:100x1000x10000 \
    NT:96x4096x11008 TT:18944x20x3584 TT:4096x4096x100
archive session41_f
