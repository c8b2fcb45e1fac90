#!/bin/bash
# Session 38 (issue 20): the suite in NT against cuBLAS's NT with stream-K's ranges kernel triggering the next kernel at
# its exit (session 35: 1.260, 117 of 123).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
layout_sweep NT ${SWEEP_S:-150}
archive session38_h
