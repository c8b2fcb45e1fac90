#!/bin/bash
# Session 6 (2026-11-27) on the H100, from the repository root on the GPU machine (REGTILE_COMMIT names
# the code: .git does not travel).  Programmatic dependent launch is on by default from this session.
# PART=1:
#   1. the whole GPU suite (PDL on; the split-K reduce's warps over the splits);
#   2. lab/experiments/tiny_longk_kernels: per-kernel device times of the tiny long-K shapes with the new
#      reduce, then with MAX_SPLIT_K raised to 64 on this copy only;
#   3. the candidates of the whole 123-shape suite (every split-K member's time changed: the reduce, PDL),
#      then the table refit over every earlier run with this one last -> $OUT/heuristic_table.json.
# PART=2 (the refit table committed): the library sweeps (shape suite, SGEMV suite) and the call overhead.
. lab/device_runs/prelude.sh /tmp/rtc_s6
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s6
if [ "${PART:-1}" = 1 ]; then
( time timeout ${SUITE_S:-200} python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 12 ) > $OUT/pytest_gpu.log 2>&1
echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -30; tail -3 $OUT/pytest_gpu.log
( timeout 60 python3 -m lab.experiments.tiny_longk_kernels 700x35x2048:splitk-32x32-f4,splitk-32x64-f4,fused-32x32-k8 \
    65x33x4097:splitk-32x64-f4,splitk-32x64-f8,splitk-32x32-f4,fused-32x32-k8 ) > $OUT/tiny_longk.log 2>&1
echo "tiny_longk: rc $?"; cut -c1-220 $OUT/tiny_longk.log | grep -v Warn | tail -9
sed -i 's/^MAX_SPLIT_K = 32$/MAX_SPLIT_K = 64/' codegen/config.py
( timeout 60 python3 -m lab.experiments.tiny_longk_kernels 65x33x4097:splitk-32x64-f4,splitk-32x64-f8,splitk-32x32-f4 \
    700x35x2048:splitk-32x32-f4,splitk-32x32-f4+split_k=32 ) > $OUT/tiny_longk64.log 2>&1
echo "tiny_longk 64: rc $?"; cut -c1-220 $OUT/tiny_longk64.log | grep -v Warn | tail -7
sed -i 's/^MAX_SPLIT_K = 64$/MAX_SPLIT_K = 32/' codegen/config.py
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session6_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-300}
fi
if [ "${PART:-1}" = 2 ]; then
timeout ${SWEEP_S:-240} python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
  --budget-s $(( ${SWEEP_S:-240} - 30 )) > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; tail -2 $OUT/sweep.log; head -14 $OUT/shapes_table.md
timeout ${SGEMV_S:-200} python3 -m regtile.tools.sgemv_sweep --precompile 16 --budget-s $(( ${SGEMV_S:-200} - 40 )) \
  --out $OUT/sgemv-sweep.json > $OUT/sgemv_sweep.log 2>&1
echo "sgemv sweep: rc $?"; tail -4 $OUT/sgemv_sweep.log
timeout 90 python3 benchmarks/overhead.py --json $OUT/overhead.json > $OUT/overhead.log 2>&1
echo "overhead: rc $?"; tail -14 $OUT/overhead.log
fi
