#!/bin/bash
# Ran at 6b3073f; FewVecNConfig.direct and lab/experiments/fewvec_direct_ab.py were reverted after it (16 vectors
# 3.7-4.8x slower than staged: docs/shapes.md); check out 6b3073f to rerun.
# Session 13 (issue 20): op N few-vector kernels reading B's columns in place (FewVecNConfig.direct, no stage).  The
# fewvec and API GPU tests, the fewvec memcheck script, then direct against staged (lab/experiments/fewvec_direct_ab.py).
. lab/device_runs/prelude.sh /tmp/rtc_s13
fewvec_checks ${TEST_S:-150}
( time timeout ${AB_S:-200} python3 -m lab.experiments.fewvec_direct_ab ${SHAPES:-} ) > $OUT/fewvec_direct_ab.log 2>&1
echo "fewvec_direct_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/fewvec_direct_ab.log | cut -c1-230
