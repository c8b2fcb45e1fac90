#!/bin/bash
# Session 9, closing run (issue 20): the fused last column back to fc4ba71's copies (predicated; the branched form
# of 2cfe86a ran 255x257x65537 at 322.7 us against 249.2): its GPU tests, the A/B on the two suite shapes that take
# it, and their sweep rows (session9_g_suite.json) to replace the 2cfe86a sweep's.
. lab/device_runs/prelude.sh /tmp/rtc_s9g
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s9g
( timeout 60 python3 -m pytest -m gpu -q -rf -p no:cacheprovider -n 14 tests/gpu/test_last_col_gpu.py ) > $OUT/pytest_gpu_last_col.log 2>&1
echo "last_col GPU tests: rc $?"; grep -E "^FAILED|passed|failed" $OUT/pytest_gpu_last_col.log | head -5
( timeout 40 python3 -m lab.experiments.last_col_ab 255x257x65537 513x129x16383 ) > $OUT/last_col_ab.log 2>&1
echo "A/B: rc $?"; grep -E "x[0-9]+: |Error" $OUT/last_col_ab.log | cut -c1-300
timeout 40 python3 -m regtile.tools.shape_sweep --suite lab/device_runs/session9_g_suite.json --json $OUT/shape-sweep-two.json \
    > $OUT/sweep_two.log 2>&1; echo "sweep: rc $?"; grep -E "^\[" $OUT/sweep_two.log
