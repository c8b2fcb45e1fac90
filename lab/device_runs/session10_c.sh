#!/bin/bash
# Session 10, third run (issue 20): stream-K's fix-up with every thread waiting for its own slots' flags
# (codegen/ptx_streamk.py) - its GPU tests, then the A/B against the serial wait and without the fix-up
# (lab/experiments/fixup_ab.py), the held kernels beside.
. lab/device_runs/prelude.sh /tmp/rtc_s10
( time timeout 150 python3 -m pytest -m gpu tests/gpu/test_streamk_gpu.py tests/gpu/test_last_col_gpu.py -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_streamk.log 2>&1
echo "streamk tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_streamk.log | head; grep -E "passed|failed" $OUT/pytest_streamk.log | tail -1
( time timeout 300 python3 -m lab.experiments.fixup_ab held=1 ) > $OUT/fixup_ab.log 2>&1
echo "fixup_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/fixup_ab.log | cut -c1-600
