#!/bin/bash
# Session 18: the SASS pass's read-scoreboard step (sass/scoreboards.py).  The GPU tests of the unaligned rows and of
# the SASS pass (the step changes every PTX member's loop), then lab/experiments/read_scoreboards_ab.py: each shape's
# plan with the step against the same plan without it, against cuBLAS, interleaved.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s18
( time timeout ${TEST_S:-200} python3 -m pytest -m gpu -q -rf -p no:cacheprovider -n 14 tests/gpu/test_unaligned_gpu.py \
    tests/gpu/test_sass_pass_gpu.py tests/gpu/test_c_staged_gpu.py ) > $OUT/pytest_gpu.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -20; grep -E "passed|failed" $OUT/pytest_gpu.log | tail -1
( time timeout ${AB_S:-330} python3 -m lab.experiments.read_scoreboards_ab "$@" ) > $OUT/ab.log 2>&1
echo "a/b: rc $?"; grep -E "^[0-9]+x" $OUT/ab.log | cut -c1-220
archive session18_a
