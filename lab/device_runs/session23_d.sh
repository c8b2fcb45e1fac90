#!/bin/bash
# Session 23 (issue 20): the shared-memory op T kernel's row loads grouped under one vec_block test a step
# against the committed text (lab/experiments/ts_loads_ab.py, at 14841a0 only: removed once the emitter wrote the
# grouped form, when it would have compared the kernel with itself), then the same rewrite timed once more in a
# second pass (order effects).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
lab_ab ts_loads_ab ${AB_S:-200} "$@"
mv $OUT/ts_loads_ab.json $OUT/ts_loads_ab_1.json; mv $OUT/ts_loads_ab.log $OUT/ts_loads_ab_1.log
lab_ab ts_loads_ab ${AB_S:-200} 16x4096x4096 16x2048x2048 12x8192x3072
archive session23_d
