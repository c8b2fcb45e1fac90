#!/bin/bash
# Session 12 (issue 20): compute-sanitizer memcheck over the edge tiles' and unaligned rows' GPU tests with
# both_float4 landed (every PTX kernel's tile loads changed: one test and one branch over both operands).
. lab/device_runs/prelude.sh /tmp/rtc_s12
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s12
( time timeout ${MEMCHECK_S:-420} compute-sanitizer --tool memcheck --print-limit 20 python3 -m pytest -m gpu -q -p no:cacheprovider \
    tests/gpu/test_edges_gpu.py tests/gpu/test_unaligned_gpu.py ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed|real" $OUT/memcheck.log | tail -4
