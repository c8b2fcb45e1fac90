#!/bin/bash
# Session 34 (issue 20): the fused n = 16 tiles of session34_b at every split from 1 to 16 on six shapes of the same
# 256 MB of A (m x k = 2^26) and rows 8-256 KB apart: does a split cost the time, or the rows' stride?
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34c
lab_ab fused_n16 ${L_S:-300} tiles=f64x16k64,f128x16k64,f128x16k32,f256x16k32 splits=1,2,4,8,16 32768x16x2048 \
    16384x16x4096 8192x16x8192 4096x16x16384 2048x16x32768 1024x16x65536
archive session34_c
