#!/bin/bash
# Session 10 (issue 20): the final code's stream-K and fused-column GPU tests on the H100 (the whole suite ran
# at 384933f on an H200).
. lab/device_runs/prelude.sh /tmp/rtc_s10k
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s10k
( time timeout 150 python3 -m pytest -m gpu tests/gpu/test_streamk_gpu.py tests/gpu/test_last_col_gpu.py tests/gpu/test_edges_gpu.py -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_streamk.log 2>&1
echo "tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_streamk.log | head; grep -E "passed|failed" $OUT/pytest_streamk.log | tail -1
