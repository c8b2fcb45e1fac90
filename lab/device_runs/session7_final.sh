#!/bin/bash
# Session 7's last run on the H100 (the k16 members and the refit table of session7_refit.sh committed):
# the whole GPU suite, then the shape sweep (regtile.sgemm as committed against cuBLAS, 123 shapes).
# The SGEMV path and the call path did not change this session (their session-6 figures stand).
. lab/device_runs/prelude.sh /tmp/rtc_s7f
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s7f
( time timeout 220 python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 12 ) > $OUT/pytest_gpu.log 2>&1
echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -20; grep -E "passed|failed" $OUT/pytest_gpu.log | tail -1
timeout 240 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md --budget-s 210 > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; sed -n 3,14p $OUT/shapes_table.md
