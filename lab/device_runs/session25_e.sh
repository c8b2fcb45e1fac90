#!/bin/bash
# Session 25 (issue 20): the fused kernel's lean copies where some blocks cannot run them (an N edge: n % BN != 0;
# an M edge: m % BM != 0).  session25_d's candidates timed the fused members slower at n = 48 than in session 17
# (16384x48x384 fused-128x32-f1 36.3 against 27.8 us).  fused-128x32-f1 with its lean copies (as the plans build
# it) against the same member without them.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
lab_ab variants_ab 300 "lean@fused-128x32-f1:" "nolean@fused-128x32-f1:lean_copies=False" \
    16384x48x384 8192x48x384 16384x48x4096 4096x48x11008 16384x40x4096 16384x96x1024 \
    1000x32x16384 4000x32x11008 32768x32x4096 16384x64x1024 4096x32x11008
archive session25_e
