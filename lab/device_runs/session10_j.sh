#!/bin/bash
# Session 10, final runs (issue 20): the committed code (the fix-up tree of fan-out 4 with the slot fields
# loaded beside the item, the held fused column).  PART=1: the whole GPU suite and memcheck of stream-K's and
# the fused column's cases; PART=2: fixup_ab on long-K and small shapes, then the sweep.
. lab/device_runs/prelude.sh /tmp/rtc_s10j
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s10j
if [ "${PART:-1}" = 1 ]; then
    gpu_suite 270
    ( timeout 100 compute-sanitizer --tool memcheck --print-limit 20 python3 -m pytest -m gpu -q -p no:cacheprovider \
        tests/gpu/test_last_col_gpu.py tests/gpu/test_streamk_gpu.py -k "held or regtile_sgemm or splits or flags or deterministic or sizes" ) > $OUT/memcheck.log 2>&1
    echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck.log | tail -3
else
    ( time timeout 200 python3 -m lab.experiments.fixup_ab 255x257x65537 512x512x512 128x2048x2048 ) > $OUT/fixup_ab.log 2>&1
    echo "fixup_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/fixup_ab.log | cut -c1-260
    sweep 200
fi
