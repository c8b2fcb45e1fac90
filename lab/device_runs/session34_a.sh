#!/bin/bash
# Session 34 (issue 20): skinny n = 16 in NN on the fused split-K kernel with deeper k-tiles (BK 64: A's rows read
# 256 bytes a k-tile where skinny-n16-k32 reads 128), lab/experiments/fused_n16.py.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34a
lab_ab fused_n16 ${L_S:-200} "$@"
archive session34_a
