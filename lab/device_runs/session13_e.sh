#!/bin/bash
# Session 13 (issue 20): stream-K's shortest range (MIN_ITERS, 8 as committed) at 16 / 32 / 64 k-tiles on the skinny
# and long-K shapes, regtile.sgemm's plans against cuBLAS (lab/experiments/min_iters_ab.py).
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${AB_S:-280} python3 -m lab.experiments.min_iters_ab values=${VALUES:-16,32,64} ${SHAPES:-} ) \
    > $OUT/min_iters_ab.log 2>&1
echo "min_iters_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/min_iters_ab.log | cut -c1-300
