#!/bin/bash
# Session 39 (issue 20): the NN and TN suites through regtile.sgemm at c935cab (the one-pass PTX and few-vector
# kernels' triggers after their wait).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
sweep ${SWEEP_S:-150}
layout_sweep TN ${SWEEP_S:-150}
archive session39_g
