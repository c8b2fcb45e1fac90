# Few-vector skinny GEMMs (issue 20, session 4, helper gemvm): GPU tests of the kernels, compute-sanitizer
# memcheck of tests/gpu/fewvec_memcheck_script.py, then lab.experiments.fewvec_bench against cuBLAS.
# PART=cands: every candidate config per shape (run 1: the rule is fitted from it);
# PART=final: regtile.sgemm's choice (the route as committed) against the member and cuBLAS.
# Outputs under $OUT: pytest_fewvec.log, memcheck_fewvec.log, fewvec_bench.json (+ .log).
. lab/device_runs/prelude.sh /tmp/rtcache
( timeout ${TEST_S:-80} python3 -m pytest -m gpu ${TESTS:-tests/gpu/test_fewvec_gpu.py} -q -p no:cacheprovider -n 4 ) > $OUT/pytest_fewvec.log 2>&1
echo "pytest rc=$?"; tail -2 $OUT/pytest_fewvec.log; grep -E "^FAILED|^E  " $OUT/pytest_fewvec.log | head -12
( timeout ${SAN_S:-60} compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/fewvec_memcheck_script.py ) > $OUT/memcheck_fewvec.log 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|WRONG|done" $OUT/memcheck_fewvec.log | tail -4
ARGS=""; [ "${PART:-final}" = cands ] && ARGS="--candidates"
timeout ${BENCH_S:-150} python3 -m lab.experiments.fewvec_bench $ARGS --rounds ${ROUNDS:-5} $OUT/fewvec_bench.json 2>&1 | tee $OUT/fewvec_bench.log | tail -30
