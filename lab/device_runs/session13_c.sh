#!/bin/bash
# Session 13 (issue 20): the few-vector stage kernel as 32 x 32 tiles (coalesced reads and writes).  The fewvec GPU
# tests (the ring's cases among them) and their memcheck script, the plan's kernels timed alone
# (lab/experiments/fewvec_parts.py), and the few-vector route against the members and cuBLAS (fewvec_bench).
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${TEST_S:-150} python3 -m pytest -q -p no:cacheprovider -n 8 tests/gpu/test_fewvec_gpu.py tests/gpu/test_api_gpu.py ) \
    > $OUT/pytest_fewvec.log 2>&1
echo "fewvec tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fewvec.log | tail -8
( timeout ${SAN_S:-90} compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/fewvec_memcheck_script.py ) \
    > $OUT/memcheck_fewvec.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|WRONG|done" $OUT/memcheck_fewvec.log | head -5
( timeout ${PARTS_S:-60} python3 -m lab.experiments.fewvec_parts $OUT/fewvec_parts.json ) > $OUT/fewvec_parts.log 2>&1
echo "parts: rc $?"; cut -c1-220 $OUT/fewvec_parts.log | grep -v Warning | tail -14
( timeout ${BENCH_S:-150} python3 -m lab.experiments.fewvec_bench $OUT/fewvec_bench.json --rounds 5 ) > $OUT/fewvec_bench.log 2>&1
echo "bench: rc $?"; grep -E "^[0-9]+x" $OUT/fewvec_bench.log | cut -c1-250
