#!/bin/bash
# Session 7, issue 20: the k16 members (codegen/presets.py wide-64x128-k16, tall-128x64-k16) on the H100:
# their GPU tests (ragged shapes against float64, unaligned rows) and memcheck of them, then the candidates
# of the whole suite and the table refit over every earlier run with this one last -> $OUT/heuristic_table.json.
. lab/device_runs/prelude.sh /tmp/rtc_s7
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s7
( time timeout 120 python3 -m pytest -m gpu -q -p no:cacheprovider -n 12 tests/gpu/test_family_gpu.py tests/gpu/test_unaligned_gpu.py \
    -k "k16 or heuristics" ) > $OUT/pytest_gpu_k16.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu_k16.log | head; tail -1 $OUT/pytest_gpu_k16.log
( timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -m gpu -q -p no:cacheprovider \
    tests/gpu/test_family_gpu.py -k "k16 and ragged" ) > $OUT/memcheck_k16.log 2>&1
echo "memcheck k16: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck_k16.log | tail -2
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session7_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-330}
