#!/bin/bash
# Session 19 (issue 20): the two-stage loop's preload spread among the FFMAs after it (ran at 1a5eac1 as a prototype that
# rewrote the cubins; lab/experiments/spread_preload.py now A/Bs the landed step), against cuBLAS.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
( time timeout ${AB_S:-480} python3 -m lab.experiments.spread_preload "$@" ) > $OUT/spread_preload.log 2>&1
echo "spread_preload: rc $?"; cut -c1-330 $OUT/spread_preload.log | grep -v "^$"
archive session19_g
