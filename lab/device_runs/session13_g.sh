#!/bin/bash
# Session 13 (issue 20): the few-vector plans without their reduce / without their stage launch (timing only),
# against the plans as committed and cuBLAS (lab/experiments/fewvec_tail_ab.py).
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${AB_S:-200} python3 -m lab.experiments.fewvec_tail_ab ${SHAPES:-} ) > $OUT/fewvec_tail_ab.log 2>&1
echo "fewvec_tail_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/fewvec_tail_ab.log | cut -c1-300
