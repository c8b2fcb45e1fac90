#!/bin/bash
# Issue 20 round 5, device run 1 (from the repository root on the GPU machine; results under $OUT):
# the fused split-K GPU tests (the stepped per-float copies, the aligned partials), every candidate
# of the round's targets and controls and of the suite shapes where a fused member became one
# (K or N not a multiple of 4), the table refit (round 3 + round 4 runs + this one), then what
# regtile.sgemm launches for the targets and controls against cuBLAS with that table, then the
# heuristic-choice / API GPU tests.
. lab/device_runs/prelude.sh /tmp/rtc5
export REGTILE_TEST_CACHE_DIR=/tmp/rtc5
python3 lab/device_runs/shapes_round5_prep.py /tmp/cand5.json /tmp/lib5.json
( time timeout 70 python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py -k fused ) > $OUT/pytest_fusedk.log 2>&1
echo "fusedk tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fusedk.log | head -12
( time timeout 90 python3 -m regtile.tools.shape_sweep --candidates --suite /tmp/cand5.json \
    --json $OUT/shape-candidates-round5-run1.json --budget-s 75 ) > $OUT/candidates.log 2>&1
echo "candidates: rc $?"; grep -E "compiled|^\[" $OUT/candidates.log | cut -c1-150
python3 -m regtile.tools.shape_sweep --fit docs/data/shape-candidates-round3-final.json docs/data/shape-candidates-round4-run1.json \
    docs/data/shape-candidates-round4-run2.json $OUT/shape-candidates-round5-run1.json \
    && cp codegen/heuristic_table.json $OUT/heuristic_table.json
( time timeout 45 python3 -m regtile.tools.shape_sweep --suite /tmp/lib5.json --json $OUT/shape-sweep-round5.json \
    --md $OUT/shapes_table.md --budget-s 35 ) > $OUT/sweep.log 2>&1
echo "sweep: rc $?"; cat $OUT/shapes_table.md | head -30
( time timeout 40 python3 -m pytest -q -p no:cacheprovider -n 16 \
    tests/gpu/test_family_gpu.py::test_sgemm_with_the_heuristics_choice tests/gpu/test_api_gpu.py ) > $OUT/pytest_touched.log 2>&1
echo "touched tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_touched.log | head -12
