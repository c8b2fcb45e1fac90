#!/bin/bash
# Session 44, the last device minutes: in TT the suite's and held-out sets' three shapes of n = 128 with m, k >= 4096
# stay below cuBLAS on wide-64x128-k16 (0.976-0.998; in NT the same pick is 1.007-1.088).  Four members on them and on
# two more TT n = 128 shapes (layout_candidates members=...).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
timeout ${L_S:-150} python3 -m lab.experiments.layout_candidates members=tall-256x128,tall-128x64-k16,wide-64x128-k16,sq-128x128 \
    budget=${B_S:-120} TT:8192x128x8192 TT:4096x128x4096 TT:4096x128x14336 TT:2048x128x8192 TT:16384x128x2048 \
    > $OUT/layout_candidates.log 2>&1
echo "layout_candidates: rc $?"; grep -v "^$" $OUT/layout_candidates.log | cut -c1-300
archive session44_h
