#!/bin/bash
# Session 23 (issue 20): held-out sets 1, 3, 4 (the sets holding shapes the few-vector op T route takes) through
# regtile.sgemm at 333464c's library (running row pointers).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
heldout_sweeps ${H_S:-65} 1 3 4
archive session23_k
