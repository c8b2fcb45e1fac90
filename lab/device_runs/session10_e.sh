#!/bin/bash
# Session 10, fifth run (issue 20): the committed code - the whole GPU suite (the parallel fix-up, the held
# fused-column kernels), then compute-sanitizer memcheck of the fused column's held, unaligned and
# library cases and of stream-K's split tiles.
. lab/device_runs/prelude.sh /tmp/rtc_s10
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s10
gpu_suite 250
( timeout 200 compute-sanitizer --tool memcheck --print-limit 20 python3 -m pytest -m gpu -q -p no:cacheprovider \
    tests/gpu/test_last_col_gpu.py tests/gpu/test_streamk_gpu.py -k "held or unaligned_paths or regtile_sgemm or splits or flags or deterministic" ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck.log | tail -3
