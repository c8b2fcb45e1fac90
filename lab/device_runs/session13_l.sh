#!/bin/bash
# Session 13 (issue 20): the rule's few-vector kernels prefetch 2 loop steps to L2 before their PDL wait
# (fewvec_config.PREFETCH_STEPS).  The fewvec and API GPU tests, the fewvec memcheck script, then the sweep.
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${TEST_S:-150} python3 -m pytest -q -p no:cacheprovider -n 8 tests/gpu/test_fewvec_gpu.py tests/gpu/test_api_gpu.py ) \
    > $OUT/pytest_fewvec.log 2>&1
echo "fewvec tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fewvec.log | tail -8
( timeout ${SAN_S:-90} compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/fewvec_memcheck_script.py ) \
    > $OUT/memcheck_fewvec.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|WRONG|done" $OUT/memcheck_fewvec.log | head -5
sweep ${SWEEP_S:-240}
