#!/bin/bash
# Session 27 (issue 20): which ragged extent costs the time (lab/experiments/ragged_extents_ab.py: M, N or K trimmed
# on one aligned bench, rows aligned throughout).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
lab_ab ragged_extents_ab ${AB_S:-300} ${SHAPES:-}
archive session27_g
