#!/bin/bash
# Session 20 (issue 20): the fused kernel's split count on the n = 32 shapes (lab/experiments/variants_ab.py):
# 16384x32x16384 runs fused-128x32-f1 at split 2 (256 blocks, two an SM on most SMs); 3 fills three an SM.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s20
( time timeout ${AB_S:-200} python3 -m lab.experiments.variants_ab "s3:split_k=3" "s4:split_k=4" "s6:split_k=6" \
    16384x32x16384 ) > $OUT/variants_16384.log 2>&1
echo "variants: rc $?"; cut -c1-300 $OUT/variants_16384.log | grep -v "^$" | tail -4
( time timeout ${AB_S:-120} python3 -m lab.experiments.variants_ab "s2:split_k=2" "mb2:min_blocks=2" 32768x32x4096 ) > $OUT/variants_32768.log 2>&1
echo "variants: rc $?"; cut -c1-300 $OUT/variants_32768.log | grep -v "^$" | tail -4
archive session20_e
