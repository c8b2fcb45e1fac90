#!/bin/bash
# Session 9, fifth run (issue 20): C's last column fused into the last tile column (config.last_col,
# heuristic.for_columns where N % BN == 1):
#   1. its GPU tests (every member that takes it, stream-K's split tiles, the layouts, regtile.sgemm's choice)
#      and memcheck of its unaligned-rows cases;
#   2. lab/experiments/last_col_ab.py: the plans with it against the same kernels without it, and cuBLAS;
#   3. the sweep.
. lab/device_runs/prelude.sh /tmp/rtc_s9e
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s9e
( time timeout 150 python3 -m pytest -m gpu -q -rf -p no:cacheprovider -n 14 tests/gpu/test_last_col_gpu.py ) > $OUT/pytest_gpu_last_col.log 2>&1
echo "last_col GPU tests: rc $?"; grep -E "^FAILED|passed|failed" $OUT/pytest_gpu_last_col.log | head -12
( timeout 100 compute-sanitizer --tool memcheck --print-limit 20 python3 -m pytest -m gpu -q -p no:cacheprovider \
    tests/gpu/test_last_col_gpu.py -k "unaligned_paths or regtile_sgemm" ) > $OUT/memcheck_last_col.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck_last_col.log | tail -3
( timeout 120 python3 -m lab.experiments.last_col_ab ) > $OUT/last_col_ab.log 2>&1
echo "A/B: rc $?"; grep -E "x[0-9]+: |Error" $OUT/last_col_ab.log | cut -c1-300
sweep 150
