#!/bin/bash
# Session 9, fourth run (issue 20): the unaligned-rows GPU tests (their plan-choice test fixed for the vector
# floats); what the one-column N edge costs cuBLAS (peel_n's cuBLAS on the interior alone); the sweep with
# the copy bandwidth, the skinny shapes' share of it and the retime of disturbed passes (tools/shape_sweep.py).
. lab/device_runs/prelude.sh /tmp/rtc_s9d
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s9d
( timeout 120 python3 -m pytest -m gpu -q -rf -p no:cacheprovider -n 8 tests/gpu/test_unaligned_gpu.py ) > $OUT/pytest_gpu_unaligned.log 2>&1
echo "unaligned GPU tests: rc $?"; grep -E "FAILED|passed|failed" $OUT/pytest_gpu_unaligned.log | tail -5
( timeout 90 python3 -m lab.experiments.peel_n 255x257x65537 1023x1025x1023 513x129x16383 8191x8193x1025 ) > $OUT/peel_cublas.log 2>&1
echo "peel: rc $?"; grep -E "x[0-9]+: |Error" $OUT/peel_cublas.log | cut -c1-420
sweep 230
