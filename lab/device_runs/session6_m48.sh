#!/bin/bash
# Session 6: the skinny-m48 member (codegen/presets.py) on the H100: its GPU tests (ragged shapes, alpha/beta,
# unaligned rows, the heuristic's choice at 48x2048x8192), the candidates of the suite's m = 48 shape and the
# table refit (its shapes replace theirs) -> $OUT/heuristic_table.json, then the shape sweep with that table.
. lab/device_runs/prelude.sh /tmp/rtc_m48
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_m48
( time timeout 200 python3 -m pytest -m gpu -q -p no:cacheprovider -n 12 tests/gpu/test_family_gpu.py tests/gpu/test_unaligned_gpu.py \
    -k "skinny-m48 or skinny or heuristics" ) > $OUT/pytest_gpu_m48.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu_m48.log | head; tail -1 $OUT/pytest_gpu_m48.log
candidates_and_refit lab/device_runs/session6_m48.json $OUT/shape-candidates-session6-m48_${REGTILE_COMMIT:-unknown}.json 60
timeout 220 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md --budget-s 190 > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; sed -n 3,12p $OUT/shapes_table.md; grep "| 48 | 2048 | 8192" $OUT/shapes_table.md
