#!/bin/bash
# Session 10 (issue 20): the fix-up tree at fan-out 4 - stream-K's and the fused column's GPU tests,
# fixup_ab (fan-out 4 against 2, the flat waits and no fix-up) on long-K and small shapes, then the sweep.
. lab/device_runs/prelude.sh /tmp/rtc_s10i
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s10i
( time timeout 150 python3 -m pytest -m gpu tests/gpu/test_streamk_gpu.py tests/gpu/test_last_col_gpu.py -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_streamk.log 2>&1
echo "streamk tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_streamk.log | head; grep -E "passed|failed" $OUT/pytest_streamk.log | tail -1
( time timeout 200 python3 -m lab.experiments.fixup_ab ) > $OUT/fixup_ab.log 2>&1
echo "fixup_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/fixup_ab.log | cut -c1-330
sweep 200
