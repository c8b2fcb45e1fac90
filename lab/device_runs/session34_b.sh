#!/bin/bash
# Session 34 (issue 20): session34_a's fused n = 16 tiles again with BK 128 and each tile's one-wave split.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34b
lab_ab fused_n16 ${L_S:-240}
archive session34_b
