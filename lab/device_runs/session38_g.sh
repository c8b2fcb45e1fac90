#!/bin/bash
# Session 38 (issue 20): the suite's sweep (NN) with stream-K's ranges kernel triggering the next kernel at its exit
# (ran inline after session38_f.sh, in the same lease).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
sweep ${SWEEP_S:-150}
archive session38_g
