#!/bin/bash
# The SGEMV one-wave run on the H100 (2026-11-25, issue 21, session 3 run 4), from the repository
# root on the GPU machine, REGTILE_COMMIT set: the SGEMV GPU tests (while the sweep's kernels
# compile), the full sweep with probes (op T without a split: narrow strips, tall blocks, warp
# shuffles; op T staged rows for 1Mx77), then compute-sanitizer on the new kernel forms
# (SGEMV_CASES=new) with the time left.  Fits the 200 s limit.  Results under $OUT.
set -u
export PYTHONUNBUFFERED=1 REGTILE_CACHE_DIR=${REGTILE_CACHE_DIR:-/tmp/rtc_gemv4}
OUT=${OUT:-.}
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit ${REGTILE_COMMIT:-unknown} $(date -u +%FT%TZ)"
PROBE=4096x4096T,2560x7680T,2048x6144T,2048x2048T,32x4096T,300x50000T,768x768T,16384x4096T,1048576x77T,4096x77T
python3 - > $OUT/precompile.log 2>&1 <<PY &
from regtile.tools.sgemv_sweep import precompile, SUITE, EXTRA, DECODE, _names
sh = SUITE + EXTRA + DECODE
w = _names("$PROBE")
precompile(sh, {s for s in sh if f"{s[0]}X{s[1]}{s[2]}" in w}, 10)
PY
PRE=$!
timeout 75 python3 -m pytest -q -p no:cacheprovider -n 6 tests/gpu/test_sgemv_gpu.py > $OUT/pytest_gpu.log 2>&1
echo "gpu tests: rc $? at $(el) s"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_gpu.log | tail -14
wait $PRE; echo "precompile: $(tail -1 $OUT/precompile.log) at $(el) s"
BUDGET=$(( 150 - $(el) ))
timeout $(( BUDGET + 25 )) python3 -m regtile.tools.sgemv_sweep --out $OUT/sgemv-sweep.json --probe-shapes $PROBE \
  --budget-s $BUDGET > $OUT/sweep.log 2>&1
echo "sweep: rc $? at $(el) s (budget $BUDGET)"; grep -c "^[0-9]*x[0-9]* [NT]:" $OUT/sweep.log
LEFT=$(( 188 - $(el) ))
{ echo "## SGEMV_CASES=new compute-sanitizer --tool memcheck"; SGEMV_CASES=new timeout $LEFT \
  compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/sgemv_memcheck_script.py; echo "rc $?"; } > $OUT/checks.log 2>&1
LEFT=$(( 195 - $(el) ))
[ $LEFT -gt 10 ] && { echo "## racecheck"; SGEMV_CASES=new timeout $LEFT compute-sanitizer --tool racecheck \
  --error-exitcode 9 python3 tests/gpu/sgemv_memcheck_script.py; echo "rc $?"; } >> $OUT/checks.log 2>&1
echo "checks at $(el) s:"; grep -E "SUMMARY|WRONG|^rc|^## |done" $OUT/checks.log
grep -E "^[0-9]*x[0-9]* [NT]:" $OUT/sweep.log | awk '{print $1,$2,$4,$7,$9,$12,$15}' | tail -44
