#!/bin/bash
# The SGEMV one-wave run on the H100 (2026-11-25, issue 21, session 3 run 4), from the repository
# root on the GPU machine, REGTILE_COMMIT set: the SGEMV GPU tests (while the sweep's kernels
# compile), the full sweep with probes (op T without a split: narrow strips, tall blocks, warp
# shuffles; op T staged rows for 1Mx77), then compute-sanitizer on the new kernel forms
# (SGEMV_CASES=new) with the time left.  Fits the 200 s limit.  Results under $OUT.
. lab/device_runs/prelude.sh /tmp/rtc_gemv4
. lab/device_runs/sgemv_steps.sh
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
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
sgemv_sweep 150 25
sgemv_sanitize new 188 195 10
