#!/bin/bash
# Issue 20 round 4, device run 2 (from the repository root on the GPU machine; results under $OUT):
# the fused split-K GPU tests, every candidate of the suite shapes where a fused member is one, the
# table refit on it (round 3's final data + this run: shape_sweep --fit), then what regtile.sgemm
# launches for all 123 suite shapes against cuBLAS with that table, then the GPU tests of the files
# touched (the heuristic's choices included).
RUN=2 TESTS_S=60 CAND_S=80 CAND_BUDGET_S=65 . lab/device_runs/shapes_round4_run1.sh
python3 -m regtile.tools.shape_sweep --fit docs/data/shape-candidates-round3-final.json docs/data/shape-candidates-round4-run1.json $OUT/shape-candidates-round4-run2.json \
    && cp codegen/heuristic_table.json $OUT/heuristic_table.json
( time timeout 100 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
    --budget-s 85 ) > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; head -16 $OUT/shapes_table.md
( time timeout 50 python3 -m pytest -q -p no:cacheprovider -n 16 \
    tests/gpu/test_family_gpu.py::test_sgemm_with_the_heuristics_choice tests/gpu/test_splitk_gpu.py tests/gpu/test_api_gpu.py ) > $OUT/pytest_touched.log 2>&1
echo "touched tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_touched.log | head -20
