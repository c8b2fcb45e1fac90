#!/bin/bash
# The integration run on the H100 (2026-11-25), from the repository root on the GPU machine:
# the whole GPU suite, the determinism test as it behaves there, then what regtile.sgemm
# launches for every suite shape against cuBLAS (docs/data/shape-sweep.json).  Results under $OUT.
. lab/device_runs/prelude.sh /tmp/rtc_final
( time timeout ${SUITE_S:-240} python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 12 ) > $OUT/pytest_gpu.log 2>&1
echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -20; tail -3 $OUT/pytest_gpu.log
timeout 60 python3 -m pytest -q -rs -p no:cacheprovider tests/runtime/test_determinism.py > $OUT/determinism.log 2>&1
echo "determinism: rc $?"; tail -3 $OUT/determinism.log
timeout ${SWEEP_S:-200} python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
  --budget-s $(( ${SWEEP_S:-200} - 30 )) > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; tail -2 $OUT/sweep.log
head -14 $OUT/shapes_table.md
# after the first integration run: the SGEMV suite, the call path's shapes and host cost
if [ -n "${WITH_BENCH:-}" ]; then
  timeout 120 python3 -m regtile.tools.sgemv_sweep --out $OUT/sgemv-sweep.json > $OUT/sgemv.log 2>&1
  echo "sgemv sweep: rc $?"; tail -4 $OUT/sgemv.log
  timeout 90 python3 benchmarks/callpath_bench.py --json $OUT/callpath.json > $OUT/callpath.log 2>&1
  echo "callpath: rc $?"; tail -22 $OUT/callpath.log
  timeout 60 python3 benchmarks/overhead.py --json $OUT/overhead.json > $OUT/overhead.log 2>&1
  echo "overhead: rc $?"; tail -12 $OUT/overhead.log
fi
