#!/bin/bash
# Session 6's last integration run on the H100 (the GEMV trigger rule of 474dc9b, the refit table of 9d3c1fd):
# the GEMV / few-vector / PDL / split-K GPU tests, pdl_ab on the shapes of session6_pdl_place.sh (PDL on
# and off with the committed rule), then both library sweeps and the call overhead.
. lab/device_runs/prelude.sh /tmp/rtc_s6f
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s6f
# TESTS=1: the GEMV-path GPU tests; TESTS=all: the whole GPU suite; TESTS=0: none
GPU_TESTS="tests/gpu/test_sgemv_gpu.py tests/gpu/test_sgemv_t_forms_gpu.py tests/gpu/test_fewvec_gpu.py tests/gpu/test_pdl_gpu.py tests/gpu/test_splitk_gpu.py"
[ "${TESTS:-1}" = all ] && GPU_TESTS=tests/gpu
[ "${TESTS:-1}" != 0 ] && ( time timeout 240 python3 -m pytest -m gpu -q -p no:cacheprovider -n 12 $GPU_TESTS ) > $OUT/pytest_gpu_gemv.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu_gemv.log | head; tail -1 $OUT/pytest_gpu_gemv.log
[ "${PDL:-1}" = 1 ] && timeout 150 python3 -m lab.experiments.pdl_ab gemv:${PDL_SHAPES:-2048x6144T,2560x7680T,4096x4096T,2048x2048T,768x768T,32x4096T,300x1048576N,1048576x16T,16384x16T,7x50000N,16384x4096T,1048576x128T} > $OUT/pdl_rule.log 2>&1
echo "pdl_ab: rc $?"; [ "${PDL:-1}" = 1 ] && python3 - <<'PY'
import json, os
d = json.load(open(os.path.join(os.environ["OUT"], "pdl_ab.json")))
for r in d["gemv"]:
    if "error" in r: print(r); continue
    us = r["us"]
    print(f"{r['m']}x{r['n']} {r['op']}: pdl {us['pdl'][0]:7.2f} plain {us['plain'][0]:7.2f}  {r['kernel'][:50]}")
PY
timeout 200 python3 -m regtile.tools.sgemv_sweep --precompile 16 --budget-s 160 --out $OUT/sgemv-sweep.json > $OUT/sgemv_sweep.log 2>&1
echo "sgemv sweep: rc $?"; tail -3 $OUT/sgemv_sweep.log | cut -c1-200
timeout 200 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md --budget-s 170 > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; sed -n 3,12p $OUT/shapes_table.md
[ "${OVERHEAD:-0}" = 1 ] && { timeout 90 python3 benchmarks/overhead.py --json $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead: rc $?"; tail -14 $OUT/overhead.log; }
