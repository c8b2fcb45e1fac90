#!/bin/bash
# Session 19 (issue 20): the two-stage loop's shared store after k-slice BK - 2 and / or predicated on has_next
# instead of branched around (lab/experiments/store_slice.py), against the plans as committed and cuBLAS.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
( time timeout ${AB_S:-420} python3 -m lab.experiments.store_slice "$@" ) > $OUT/store_slice.log 2>&1
echo "store_slice: rc $?"; cut -c1-330 $OUT/store_slice.log | grep -v "^$"
archive session19_c
