#!/bin/bash
# Session 8, fifth run (issue 20): session8_final.sh's GPU suite ran out of its 200 s with 6 failures whose
# names the timeout cut off.  Here the whole suite again with room and the short failure summary (-rf), then
# compute-sanitizer memcheck on the new copy paths (the clamped sources: sq-128x128-edges, the edge split's
# members; the unchecked vector floats on unaligned rows).
. lab/device_runs/prelude.sh /tmp/rtc_s8s
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8s
gpu_suite 330
grep -E "^FAILED" $OUT/pytest_gpu.log | cut -c1-200 | head -20
( timeout 140 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -m gpu -q -p no:cacheprovider \
    tests/gpu/test_unaligned_gpu.py tests/gpu/test_family_gpu.py -k "vectors and wide-128x256-noedge or ragged and sq-128x128-edges" ) > $OUT/memcheck_clamp.log 2>&1
echo "memcheck clamp / unaligned vectors: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck_clamp.log | tail -2
