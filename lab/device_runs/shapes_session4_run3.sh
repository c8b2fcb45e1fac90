#!/bin/bash
# Issue 20 session 4 (helper lat), device run 3, from the repository root on the GPU machine:
# every candidate of the suite shapes where a 48-column fused member is one; the table refit
# (rounds 3-5 and session 4 runs 1-3); the GPU tests of the new members (ragged shapes against
# float64, poisoned C), of the heuristic's choice and of the API with that table; compute-sanitizer
# memcheck of a 48-column member; then what regtile.sgemm launches for the targets and the two
# large controls against cuBLAS (interleaved, median of 5 rounds).
. lab/device_runs/prelude.sh /tmp/rtc_lat
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_lat
python3 lab/device_runs/shapes_session4_prep.py /tmp/cand.json /tmp/lib.json
( time timeout 65 python3 -m regtile.tools.shape_sweep --candidates --suite /tmp/cand.json \
    --json $OUT/shape-candidates-session4-run3.json --budget-s 50 ) > $OUT/candidates.log 2>&1
echo "candidates: rc $?"; grep -E "compiled|^\[" $OUT/candidates.log | cut -c1-120
python3 -m regtile.tools.shape_sweep --fit docs/data/shape-candidates-round3-final.json docs/data/shape-candidates-round4-run1.json \
    docs/data/shape-candidates-round4-run2.json docs/data/shape-candidates-round5-run1_1d52bea.json \
    docs/data/shape-candidates-session4-run1_d7734b0.json docs/data/shape-candidates-session4-run2_5ed8b51.json \
    $OUT/shape-candidates-session4-run3.json && cp codegen/heuristic_table.json $OUT/heuristic_table.json
( time timeout 65 python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py \
    tests/gpu/test_api_gpu.py -k "x48 or splitk-32x32-f8 or splitk-32x64-f8 or knobs or heuristics_choice or test_api_gpu" ) \
    > $OUT/pytest_gpu.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_gpu.log | head -8
( time timeout 25 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_fusedk_gpu.py -k "test_fused_member_is_right and (fused-32x48-700 or fused-32x48-k24-65)" ) > $OUT/sanitizer_memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/sanitizer_memcheck.log | head -3
( time timeout 45 python3 -m regtile.tools.shape_sweep --suite /tmp/lib.json --json $OUT/shape-sweep-session4-run3.json \
    --md $OUT/shapes_table.md --budget-s 38 ) > $OUT/sweep.log 2>&1
echo "sweep: rc $?"; tail -21 $OUT/shapes_table.md
