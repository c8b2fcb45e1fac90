#!/bin/bash
# Session 8, sixth run (issue 20): the unaligned rows' GPU tests with the helper mended (the six k16 cases
# session8_suite.sh's suite failed in it), the edge split's, and regtile.sgemm's choices with the committed table.
. lab/device_runs/prelude.sh /tmp/rtc_s8l
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8l
( time timeout 200 python3 -m pytest -m gpu -q -rf -p no:cacheprovider -n 14 tests/gpu/test_unaligned_gpu.py \
    tests/gpu/test_edges_gpu.py tests/gpu/test_family_gpu.py -k "unaligned or edge or heuristics or alpha" ) > $OUT/pytest_gpu_last.log 2>&1
echo "GPU tests: rc $?"; grep -E "^FAILED" $OUT/pytest_gpu_last.log | head; grep -E "passed|failed" $OUT/pytest_gpu_last.log | tail -1
