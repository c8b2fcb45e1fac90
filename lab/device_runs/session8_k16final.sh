#!/bin/bash
# Session 8, last run (issue 20): the k16 members with the edge clamp and the SASS pass (session8_k16pass.sh):
# their GPU tests (ragged shapes, alpha / beta, unaligned rows, the heuristic's choices) and the SASS pass's.
. lab/device_runs/prelude.sh /tmp/rtc_s8q
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8q
( time timeout 110 python3 -m pytest -m gpu -q -rf -p no:cacheprovider -n 14 tests/gpu/test_family_gpu.py \
    tests/gpu/test_unaligned_gpu.py tests/gpu/test_sass_pass_gpu.py -k "k16 or heuristics or sass" ) > $OUT/pytest_gpu_k16.log 2>&1
echo "k16 GPU tests: rc $?"; grep -E "^FAILED" $OUT/pytest_gpu_k16.log | head; grep -E "passed|failed" $OUT/pytest_gpu_k16.log | tail -1
