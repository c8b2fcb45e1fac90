#!/bin/bash
# Session 6's last call: the committed table with skinny-m48 (d56be93's refit), the shape sweep again (d56be93's
# sweep had a disturbed 384^3: both libraries 2.5x and 11x slower than in every other run), and the GEMV GPU tests
# (the cluster kernels lost their PDL lines in c55a06c).
. lab/device_runs/prelude.sh /tmp/rtc_last
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_last
( time timeout 120 python3 -m pytest -m gpu -q -p no:cacheprovider -n 12 tests/gpu/test_sgemv_gpu.py tests/gpu/test_sgemv_t_forms_gpu.py ) > $OUT/pytest_gpu_sgemv.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu_sgemv.log | head; tail -1 $OUT/pytest_gpu_sgemv.log
timeout 220 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md --budget-s 190 > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; sed -n 3,12p $OUT/shapes_table.md; grep -E "\| (48 \| 2048 \| 8192|384 \| 384 \| 384) " $OUT/shapes_table.md
