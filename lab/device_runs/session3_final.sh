#!/bin/bash
# The integration runs on the H100 of 2026-11-25's third session, from the repository root on
# the GPU machine, in two calls (each under the device's 10-minute limit):
#   PART=1: the whole GPU suite, then what regtile.sgemm launches for every suite shape against
#           cuBLAS (docs/data/shape-sweep.json);
#   PART=2: the call path's layouts and batches against torch (benchmarks/callpath_bench.py), the
#           per-call host cost (benchmarks/overhead.py), and the cuBLAS kernels behind the shapes
#           still below 1.0x (lab/experiments/cublas_kernels.py, from PART=1's sweep if given).
# Results under $OUT; REGTILE_COMMIT names the code (.git does not travel).
. lab/device_runs/prelude.sh /tmp/rtc_final
if [ "${PART:-1}" = 1 ]; then
  ( time timeout ${SUITE_S:-270} python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 12 ) > $OUT/pytest_gpu.log 2>&1
  echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -20; tail -3 $OUT/pytest_gpu.log
  timeout ${SWEEP_S:-240} python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
    --budget-s $(( ${SWEEP_S:-240} - 30 )) > $OUT/sweep.log 2>&1
  echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; tail -2 $OUT/sweep.log
  head -14 $OUT/shapes_table.md
else
  timeout 200 python3 benchmarks/callpath_bench.py --precompile 16 --json $OUT/callpath.json > $OUT/callpath.log 2>&1
  echo "callpath: rc $?"; tail -24 $OUT/callpath.log
  timeout 90 python3 benchmarks/overhead.py --json $OUT/overhead.json > $OUT/overhead.log 2>&1
  echo "overhead: rc $?"; tail -14 $OUT/overhead.log
  timeout 120 python3 -m lab.experiments.cublas_kernels ${SWEEP:+--sweep $SWEEP} > $OUT/cublas_kernels.log 2>&1
  echo "cublas kernels: rc $?"; tail -40 $OUT/cublas_kernels.log
fi
