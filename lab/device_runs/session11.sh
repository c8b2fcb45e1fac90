#!/bin/bash
# Session 11 (issue 20): the fix-up tree laid out once (ptx_streamk.finish_item) and the model's fix-up term
# for the tree (heuristic.fixup_us).  PART=1: stream-K's, the fused column's and the edge split's GPU tests;
# fixup_ab (one call site against two, the flat forms, no fix-up) on long-K and small shapes; the candidates
# of the whole suite with the tree and the sticky refit over the table's sources with this run last.
# PART=2 (the refit table committed): the sweep, then the whole GPU suite.
. lab/device_runs/prelude.sh /tmp/rtc_s11
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s11
if [ "${PART:-1}" = 1 ]; then
    ( time timeout 150 python3 -m pytest -m gpu tests/gpu/test_streamk_gpu.py tests/gpu/test_last_col_gpu.py \
        tests/gpu/test_edges_gpu.py -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_streamk.log 2>&1
    echo "streamk tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_streamk.log | head; grep -E "passed|failed" $OUT/pytest_streamk.log | tail -1
    ( time timeout 170 python3 -m lab.experiments.fixup_ab 255x257x65537 32x1024x131072 64x1024x500000 512x512x512 \
        128x2048x2048 4096x257x4096 ) > $OUT/fixup_ab.log 2>&1
    echo "fixup_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/fixup_ab.log | cut -c1-300
    candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session11_${REGTILE_COMMIT:-unknown}.json 120 0.03
else
    sweep 215
    gpu_suite 300
fi
