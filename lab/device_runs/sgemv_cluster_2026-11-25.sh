#!/bin/bash
# The SGEMV cluster run on the H100 (2026-11-25, issue 21), from the repository root on the GPU
# machine, REGTILE_COMMIT set: the SGEMV GPU tests (while the sweep's kernels compile), the full
# sweep with probes on the split shapes (cluster against two launches), then compute-sanitizer
# on the cluster cases with the time left.  Fits 290 s (ran in 61 s at bd3ff88: the sweep took
# 18 s, precompile's pool broke and the sweep compiled what it needed).  Results under $OUT.
# As run at bd3ff88, where the rule picked the cluster form for 2-16 op T splits on sm_90; from
# the next commit on the rule keeps two launches and REGTILE_SGEMV_CLUSTER no longer exists.
. lab/device_runs/prelude.sh /tmp/rtc_gemv2
. lab/device_runs/sgemv_steps.sh
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
PROBE=4096x4096T,2560x7680T,2048x2048T,2048x6144T,768x768T,16384x4096T,16384x50000T,1048576x16T,16384x16T,32x1048576N,7x50000N
python3 - > $OUT/precompile.log 2>&1 <<PY &
from regtile.tools.sgemv_sweep import precompile, SUITE, EXTRA, DECODE, _names
sh = SUITE + EXTRA + DECODE
w = _names("$PROBE")
precompile(sh, {s for s in sh if f"{s[0]}X{s[1]}{s[2]}" in w}, 10)
PY
PRE=$!
# a cluster launch that fails would stop the sweep at its first split op T shape: then the rule's
# reduce kernel (REGTILE_SGEMV_CLUSTER=0) and the failure in the log
timeout 40 python3 -c "
import torch, regtile
A = torch.randn(4096, 4096, device='cuda'); x = torch.randn(4096, device='cuda'); y = torch.empty(4096, device='cuda')
regtile.sgemv(A, x, y, trans=True); torch.cuda.synchronize()
from regtile.runtime.gemv import plan_for; print('cluster smoke:', plan_for(4096, 4096, 'T').describe())
print('err', float(((y.double() - A.double().T @ x.double()).norm() / (A.double().T @ x.double()).norm())))
" > $OUT/smoke.log 2>&1 || export REGTILE_SGEMV_CLUSTER=0
echo "smoke: $(tail -2 $OUT/smoke.log | tr '\n' ' ') REGTILE_SGEMV_CLUSTER=${REGTILE_SGEMV_CLUSTER:-}"
timeout 100 python3 -m pytest -q -p no:cacheprovider -n 6 tests/gpu/test_sgemv_gpu.py > $OUT/pytest_gpu.log 2>&1
echo "gpu tests: rc $? at $(el) s"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_gpu.log | tail -12
wait $PRE; echo "precompile: $(tail -1 $OUT/precompile.log) at $(el) s"
sgemv_sweep 215 30
sgemv_sanitize cluster 283 288 12
