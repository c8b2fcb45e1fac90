#!/bin/bash
# Session 21 (issue 20): the loop-head hoist (tile_config.hoist_head) on the members that do not take it, one or two
# suite shapes each (lab/experiments/variants_ab.py: the committed plan, the same with hoist_head=True, cuBLAS).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s21
( time timeout ${AB_S:-300} python3 -m lab.experiments.variants_ab "hoist:hoist_head=True" ${@:-2049x2047x1025 \
    700x5124x2048 1000x1000x1000 16x4096x4096 32x4096x4096 5120x64x5120 4096x64x65536 512x512x512} ) > $OUT/variants_ab.log 2>&1
echo "variants_ab: rc $?"; cut -c1-330 $OUT/variants_ab.log | grep -v "^$"
archive session21_b
