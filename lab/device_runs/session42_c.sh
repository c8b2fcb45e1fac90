#!/bin/bash
# Session 42: does the sweep reproduce 512^3's slow times (session 41: NT 15.2 / 16.1 us, NN 14.0 where
# session42_b's order_probe ran the same plan at 11.5-11.9 in every line-up)?  The suite's first six shapes and
# 512^3 again (lab/device_runs/first6_s42.json) through shape_sweep in NN and NT, then order_probe once more.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
for L in NN NT; do
    _sweep "first6 $L" 120 first6-$L.json first6-$L.md first6-$L.log --suite lab/device_runs/first6_s42.json --layout $L
    grep '^\[' $OUT/first6-$L.log
done
lab_ab order_probe 100 members=plain-32x64 NT:512x512x512 NN:512x512x512
archive session42_c
