#!/bin/bash
# Prepared in session 6 for the next device session (not run yet).  From the repository root on the GPU
# machine, REGTILE_COMMIT naming the code.  Session 6 left unchecked by compute-sanitizer: the split-K
# reduce of 88a851e (warps over the splits, shared memory) and the skinny-m48 member of d56be93.
#   1. memcheck and racecheck: the split-K reduce through `regtile sanitize --split-k` (two presets, every
#      size) and through the split-K GPU tests' edge shapes; skinny-m48 through its GPU tests;
#   2. the whole GPU suite;
#   3. both library sweeps and the call overhead (session6_final.sh with TESTS=0 PDL=0 OVERHEAD=1).
. lab/device_runs/prelude.sh /tmp/rtc_s7
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s7
for tool in memcheck racecheck; do
  ( timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m regtile.tools.sanitize --split-k 3 \
      --presets zorder,tile1d --sizes all ) > $OUT/${tool}_splitk.log 2>&1
  echo "$tool split-K (sanitize): rc $?"; grep -E "ERROR SUMMARY|WRONG" $OUT/${tool}_splitk.log | tail -2
  ( timeout 110 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -m gpu -q -p no:cacheprovider \
      tests/gpu/test_splitk_gpu.py tests/gpu/test_family_gpu.py -k "(edge_sizes and zorder) or skinny-m48" ) > $OUT/${tool}_tests.log 2>&1
  echo "$tool tests: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/${tool}_tests.log | tail -2
done
( time timeout 200 python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 12 ) > $OUT/pytest_gpu.log 2>&1
echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head; tail -1 $OUT/pytest_gpu.log
# SWEEPS=0: stop after the tests (the 600 s a call does not hold all three parts)
[ "${SWEEPS:-1}" = 1 ] && TESTS=0 PDL=0 OVERHEAD=1 bash lab/device_runs/session6_final.sh | tail -30
