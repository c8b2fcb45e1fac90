#!/bin/bash
# Session 13 (issue 20): the few-vector main kernel's first steps prefetched to L2 before its PDL wait
# (prefetch_steps).  The fewvec GPU tests (prefetch cases among them), then the A/B (fewvec_prefetch_ab).
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${TEST_S:-150} python3 -m pytest -q -p no:cacheprovider -n 8 tests/gpu/test_fewvec_gpu.py ) > $OUT/pytest_fewvec.log 2>&1
echo "fewvec tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fewvec.log | tail -8
( time timeout ${AB_S:-240} python3 -m lab.experiments.fewvec_prefetch_ab values=${VALUES:-2,4,8} ${SHAPES:-} ) \
    > $OUT/fewvec_prefetch_ab.log 2>&1
echo "fewvec_prefetch_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/fewvec_prefetch_ab.log | cut -c1-260
