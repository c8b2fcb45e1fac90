#!/bin/bash
# Session 7: the table refit with the GEMM kernels programmatic (PDL changes every PTX member's time a
# little): the candidates of the whole suite, the refit over every earlier run with this one last
# -> $OUT/heuristic_table.json, then the shape sweep with that table and the heuristic-choice GPU tests.
. lab/device_runs/prelude.sh /tmp/rtc_s7q
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s7q
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session7-pdl_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-300}
( timeout 60 python3 -m pytest -m gpu -q -p no:cacheprovider -n 12 tests/gpu/test_family_gpu.py -k heuristics ) > $OUT/pytest_gpu_choice.log 2>&1
echo "choice tests: rc $?"; grep -E "passed|failed" $OUT/pytest_gpu_choice.log | tail -1
sweep 200
