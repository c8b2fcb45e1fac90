#!/bin/bash
# Session 39 (issue 20): the NT and TT suites through regtile.sgemm at c935cab (the one-pass PTX and few-vector
# kernels' triggers after their wait).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
layout_sweep NT ${SWEEP_S:-150}
layout_sweep TT ${SWEEP_S:-150}
archive session39_h
