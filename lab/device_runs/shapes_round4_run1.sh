#!/bin/bash
# Issue 20 round 4, device run 1 (from the repository root on the GPU machine; results under $OUT):
# the fused split-K GPU tests first (a faulting kernel shows there, not as a spoiled sweep), then
# every candidate member of every suite shape where a fused member is a candidate, against cuBLAS.
# Run 2 (shapes_round4_run2.sh) sources this with RUN=2 and shorter limits, then goes on.
. lab/device_runs/prelude.sh /tmp/rtc4
export REGTILE_TEST_CACHE_DIR=/tmp/rtc4
RUN=${RUN:-1}
( time timeout ${TESTS_S:-100} python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py -k fused ) > $OUT/pytest_fusedk.log 2>&1
echo "fusedk tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fusedk.log | head -20
python3 lab/device_runs/shapes_round4_prep.py /tmp/fused_suite.json
( time timeout ${CAND_S:-150} python3 -m regtile.tools.shape_sweep --candidates --suite /tmp/fused_suite.json \
    --json $OUT/shape-candidates-round4-run$RUN.json --budget-s ${CAND_BUDGET_S:-120} ) > $OUT/candidates.log 2>&1
echo "candidates: rc $?"; grep -E "^\[|compiled" $OUT/candidates.log | tail -80
