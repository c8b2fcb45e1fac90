#!/bin/bash
# Issue 20 round 4, device run 1 (from the repository root on the GPU machine; results under $OUT):
# the fused split-K GPU tests first (a faulting kernel shows there, not as a spoiled sweep), then
# every candidate member of every suite shape where a fused member is a candidate, against cuBLAS.
set -u
export PYTHONUNBUFFERED=1 REGTILE_CACHE_DIR=/tmp/rtc4 REGTILE_TEST_CACHE_DIR=/tmp/rtc4
OUT=${OUT:-.}
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit ${REGTILE_REV:-unknown} $(date -u +%FT%TZ)"
( time timeout 100 python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py -k fused ) > $OUT/pytest_fusedk.log 2>&1
echo "fusedk tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fusedk.log | head -20
python3 lab/device_runs/shapes_round4_prep.py /tmp/fused_suite.json
( time timeout 150 python3 -m regtile.tools.shape_sweep --candidates --suite /tmp/fused_suite.json \
    --json $OUT/shape-candidates-round4-run1.json --budget-s 120 ) > $OUT/candidates.log 2>&1
echo "candidates: rc $?"; grep -E "^\[|compiled" $OUT/candidates.log | tail -80
