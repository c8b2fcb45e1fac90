#!/bin/bash
# Session 11 (issue 20): the vector floats' test ahead of the float4 path's branch (emit_ptx.load_float4_or_edge):
# the unaligned-rows and edge GPU tests, then unaligned_copies_ab (the library's plan against the test where it
# was, "after") on the suite's unaligned shapes.
. lab/device_runs/prelude.sh /tmp/rtc_s11
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s11
( time timeout 150 python3 -m pytest -m gpu tests/gpu/test_unaligned_gpu.py tests/gpu/test_edges_gpu.py \
    tests/gpu/test_last_col_gpu.py -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_unaligned.log 2>&1
echo "unaligned tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_unaligned.log | head; grep -E "passed|failed" $OUT/pytest_unaligned.log | tail -1
( time timeout 280 python3 -m lab.experiments.unaligned_copies_ab ${SHAPES:-} ) > $OUT/unaligned_copies_ab.log 2>&1
echo "unaligned_copies_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/unaligned_copies_ab.log | cut -c1-300
