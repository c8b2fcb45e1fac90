#!/bin/bash
# Session 38 (issue 20): the suite in TT (run inline after session38_h.sh, in the same lease; session 33: 1.255, 116).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
layout_sweep TT ${SWEEP_S:-100}
archive session38_i
