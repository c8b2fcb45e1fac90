#!/bin/bash
# Session 10, seventh run (issue 20): the fix-up as a tree - stream-K's and the fused column's GPU tests and
# memcheck of stream-K's split tiles, then fixup_ab (tree against the parallel and serial waits, no fix-up).
. lab/device_runs/prelude.sh /tmp/rtc_s10
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s10
( time timeout 150 python3 -m pytest -m gpu tests/gpu/test_streamk_gpu.py tests/gpu/test_last_col_gpu.py -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_streamk.log 2>&1
echo "streamk tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_streamk.log | head; grep -E "passed|failed" $OUT/pytest_streamk.log | tail -1
( timeout 100 compute-sanitizer --tool memcheck --print-limit 20 python3 -m pytest -m gpu -q -p no:cacheprovider \
    tests/gpu/test_last_col_gpu.py tests/gpu/test_streamk_gpu.py -k "held or regtile_sgemm or splits or flags or deterministic" ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck.log | tail -3
( time timeout 280 python3 -m lab.experiments.fixup_ab held=1 ) > $OUT/fixup_ab.log 2>&1
echo "fixup_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/fixup_ab.log | cut -c1-700
