#!/bin/bash
# Session 13 (issue 20): the few-vector stage kernel as a thread a position looping over the vectors (the 32 x 32
# tiles of 14df2b0 cost up to 44 us: docs/data/fewvec_tail_ab_2026-11-27_a90c981.log).  The fewvec GPU tests and
# memcheck script, then the plans against themselves without the stage or the reduce (fewvec_tail_ab).
. lab/device_runs/prelude.sh /tmp/rtc_s13
fewvec_checks ${TEST_S:-150}
( time timeout ${AB_S:-200} python3 -m lab.experiments.fewvec_tail_ab ${SHAPES:-} ) > $OUT/fewvec_tail_ab.log 2>&1
echo "fewvec_tail_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/fewvec_tail_ab.log | cut -c1-230
