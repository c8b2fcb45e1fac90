#!/bin/bash
# Session 34 (issue 20): fused skinny-m tiles (16 x 128 x 32, 16 x 256 x 64) on m of 13-16 in NN (the few-vector op T route's
# shapes and the suite's), and fused-128x16 on the n side's small shapes at their splits (session34_d capped none).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34e
lab_ab fused_n16 ${L_S:-300} tiles=f16x128k32,f16x256k64 splits=1 16x4096x4096 16x4096x16384 16x16384x4096 \
    16x5120x5120 16x2048x2048 16x1024x4096 16x4096x1024 16x768x768 13x4096x8192 16x13824x5120 32x4096x4096
OUT=$OUT/n; mkdir -p $OUT
lab_ab fused_n16 ${L_S:-200} tiles=f128x16k32 splits=1 1024x16x1024 1024x16x65536 512x16x65536 16384x16x4096 \
    32768x16x2048 4096x16x4096 11008x16x4096 8192x16x4096 2048x13x4096
OUT=$(dirname $OUT)
archive session34_e
