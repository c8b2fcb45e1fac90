#!/bin/bash
# Issue 20 round 4, device run 2 (from the repository root on the GPU machine; results under $OUT):
# the fused split-K GPU tests, every candidate of the suite shapes where a fused member is one, the
# table refit on it (round 3's final data + this run: shape_sweep --fit), then what regtile.sgemm
# launches for all 123 suite shapes against cuBLAS with that table, then the GPU tests of the files
# touched (the heuristic's choices included).
set -u
export PYTHONUNBUFFERED=1 REGTILE_CACHE_DIR=/tmp/rtc4 REGTILE_TEST_CACHE_DIR=/tmp/rtc4
OUT=${OUT:-.}
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit ${REGTILE_REV:-unknown} $(date -u +%FT%TZ)"
( time timeout 60 python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py -k fused ) > $OUT/pytest_fusedk.log 2>&1
echo "fusedk tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fusedk.log | head -20
python3 lab/device_runs/shapes_round4_prep.py /tmp/fused_suite.json
( time timeout 80 python3 -m regtile.tools.shape_sweep --candidates --suite /tmp/fused_suite.json \
    --json $OUT/shape-candidates-round4-run2.json --budget-s 65 ) > $OUT/candidates.log 2>&1
echo "candidates: rc $?"; grep -E "compiled" $OUT/candidates.log; grep -c "^\[" $OUT/candidates.log
python3 -m regtile.tools.shape_sweep --fit docs/data/shape-candidates-round3-final.json docs/data/shape-candidates-round4-run1.json $OUT/shape-candidates-round4-run2.json \
    && cp codegen/heuristic_table.json $OUT/heuristic_table.json
( time timeout 100 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
    --budget-s 85 ) > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; head -16 $OUT/shapes_table.md
( time timeout 50 python3 -m pytest -q -p no:cacheprovider -n 16 \
    tests/gpu/test_family_gpu.py::test_sgemm_with_the_heuristics_choice tests/gpu/test_splitk_gpu.py tests/gpu/test_api_gpu.py ) > $OUT/pytest_touched.log 2>&1
echo "touched tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_touched.log | head -20
