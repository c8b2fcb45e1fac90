#!/bin/bash
# Session 34 (issue 20): the fused n = 16 tiles (and each tile's one-wave and two-a-SM splits) on the shapes the
# few-vector route's op N takes (n of 5-16 in NN) and on n = 13-16 with long rows: would a fused member beat both?
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34d
lab_ab fused_n16 ${L_S:-300} tiles=f128x16k32,f128x16k64,f256x16k32 splits=1 8192x8x8192 4096x12x8192 \
    1024x16x1024 2048x8x2048 4096x16x2048 65536x16x1024 8192x5x8192 16384x8x16384 5120x8x5120 2048x16x2048 \
    4096x13x8192 1024x16x65536 2048x16x32768 8192x16x8192 512x16x65536 16384x12x4096 2048x16x8192
archive session34_d
