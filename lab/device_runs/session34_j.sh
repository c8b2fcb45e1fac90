#!/bin/bash
# Session 34 (issue 20): where fused-128x16's split costs its time: split 1 over A's rows at another stride and offset
# (where a split's blocks read) against split 2 (lab/experiments/fused_split_cost.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34j
lab_ab fused_split_cost ${L_S:-120} rounds=9
archive session34_j
