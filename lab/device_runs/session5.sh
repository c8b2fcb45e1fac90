#!/bin/bash
# Session 5 (2026-11-27) on the H100, from the repository root on the GPU machine (REGTILE_COMMIT names
# the code: .git does not travel).  PART=1:
#   1. the whole GPU suite (the split-K reduce's per-float path, programmatic dependent launches);
#   2. lab/experiments/pdl_ab: PDL on and off, kernel for kernel, GEMVs and GEMMs (CUDA graphs and streams);
#   3. lab/experiments/tiny_longk_kernels: per-kernel device times of the tiny long-K shapes, then the same
#      with MAX_SPLIT_K raised to 64 on this copy only (65x33x4097 at 64 splits);
#   4. the candidates of the suite shapes with N % 4 != 0 that have split-K members
#      (lab/device_runs/session5_oddn.json), then the table refit over every earlier run with this one last.
# PART=cand: step 4 alone (CAND=0 leaves it out of PART=1).  PART=2: the library sweeps (shape suite, SGEMV suite) and the call overhead.
# Programmatic dependent launch is off unless REGTILE_PDL=1 is in the environment (runtime/driver.py):
# if pdl_ab shows it ahead, turn it on by default, then run the candidates (PART=1's step 4) and
# PART=2 with it, so the table is fitted on what regtile.sgemm runs.
. lab/device_runs/prelude.sh /tmp/rtc_s5
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s5
if [ "${PART:-1}" = 1 ]; then
( time timeout ${SUITE_S:-330} python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 12 ) > $OUT/pytest_gpu.log 2>&1
echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -30; tail -3 $OUT/pytest_gpu.log
( time timeout ${PDL_S:-150} python3 -m lab.experiments.pdl_ab ) > $OUT/pdl_ab.log 2>&1
echo "pdl_ab: rc $?"; python3 - <<'PY'
import json, os
d = json.load(open(os.path.join(os.environ.get("OUT", "."), "pdl_ab.json")))
for kind in ("gemv", "gemm"):
    for r in d[kind]:
        if "error" in r:
            print(kind, r["shape"], r["error"][:200]); continue
        shape = f"{r['m']}x{r['n']}" + (f" {r['op']}" if kind == "gemv" else f"x{r['k']}")
        us = r["us"]; ck = r["check"]
        print(f"{shape:>16} pdl {us['pdl'][0]:8.2f}/{us['pdl'][1]:8.2f}  plain {us['plain'][0]:8.2f}/{us['plain'][1]:8.2f}"
              + (f"  cublas {us['cublas'][0]:8.2f}/{us['cublas'][1]:8.2f}" if "cublas" in us else "")
              + f"  err {max(c['rel_err'] for c in ck.values()):.1e} unwritten {sum(c['unwritten'] for c in ck.values())}"
              + f"  {r['kernel'][:70]}")
PY
( timeout 60 python3 -m lab.experiments.tiny_longk_kernels 700x35x2048:splitk-32x32-f4,splitk-32x64-f8,fused-32x32-k8 \
    65x33x4097:splitk-32x64-f4,splitk-32x32-f4,fused-32x32-k8 ) > $OUT/tiny_longk.log 2>&1
echo "tiny_longk: rc $?"; cut -c1-200 $OUT/tiny_longk.log | grep -v Warn | tail -8
cp $OUT/tiny_longk_kernels.json $OUT/tiny_longk_kernels_32.json 2>/dev/null
sed -i 's/^MAX_SPLIT_K = 32$/MAX_SPLIT_K = 64/' codegen/config.py
( timeout 60 python3 -m lab.experiments.tiny_longk_kernels 65x33x4097:splitk-32x64-f4,splitk-32x64-f4+split_k=32,splitk-32x32-f4,splitk-32x64-f8 ) > $OUT/tiny_longk64.log 2>&1
echo "tiny_longk 64: rc $?"; cut -c1-200 $OUT/tiny_longk64.log | grep -v Warn | tail -5
sed -i 's/^MAX_SPLIT_K = 64$/MAX_SPLIT_K = 32/' codegen/config.py
fi
if [ "${PART:-1}" = 1 ] || [ "${PART:-1}" = cand ]; then
RAW=$OUT/shape-candidates-session5-oddn_${REGTILE_COMMIT:-unknown}.json
[ "${CAND:-1}" = 1 ] && candidates_and_refit lab/device_runs/session5_oddn.json $RAW ${CAND_S:-100}
fi
if [ "${PART:-1}" = 2 ]; then
timeout ${SWEEP_S:-240} python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
  --budget-s $(( ${SWEEP_S:-240} - 30 )) > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; tail -2 $OUT/sweep.log; head -14 $OUT/shapes_table.md
timeout ${SGEMV_S:-200} python3 -m regtile.tools.sgemv_sweep --precompile 16 --probe-shapes 1048576x16T,32x4096T --budget-s $(( ${SGEMV_S:-200} - 40 )) --out $OUT/sgemv-sweep.json > $OUT/sgemv_sweep.log 2>&1
echo "sgemv sweep: rc $?"; tail -4 $OUT/sgemv_sweep.log
timeout 90 python3 benchmarks/overhead.py --json $OUT/overhead.json > $OUT/overhead.log 2>&1
echo "overhead: rc $?"; tail -14 $OUT/overhead.log
fi
