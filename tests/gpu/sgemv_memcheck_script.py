"""For compute-sanitizer (no torch: the 0ad5c1c run of a torch version reported 34 errors whose
lines did not come back).  Split (in one launch, fused_reduce, each case launched twice: the
counters must return to 0 and the bits repeat; and with the reduce kernel), transposed, strided (negative too) and ragged GEMVs on
regtile's own device buffers, each checked against float64:

    compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/sgemv_memcheck_script.py
"""
import os

import numpy as np

from regtile.codegen.sgemv_config import SgemvConfig, SgemvTConfig
from regtile.runtime import driver
from regtile.runtime.gemv import plan_for

STAGED = SgemvConfig(rows_per_warp=32, vec=4, warps_per_block=4, unroll=8, stage_cols=80)
SHARED_X = SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, row_groups=2, share_x=True)
FUSED_N = SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, fused_reduce=True)
FUSED_T = SgemvTConfig(32, 8, 4, 4, fused_reduce=True)
FUSED_T1 = SgemvTConfig(4, 64, 1, 4, fused_reduce=True)
CASES = [(7, 50000, "N", 1, -1, FUSED_N), (4096, 77, "T", 1, 2, FUSED_T), (100003, 3, "T", -1, 1, FUSED_T1),
         (2560, 1000, "T", 1, 1, FUSED_T), (1, 8192, "N", 1, 1, FUSED_N),
         (1000, 130, "N", 2, 1, SgemvConfig(vec=4, warps_per_block=8, unroll=2, fused_reduce=True)),
         (2, 1 << 16, "N", 1, 1, None), (3000, 5, "T", 2, -3, None), (77, 1000, "T", -1, 1, None),
         (129, 77, "N", 3, 2, None), (1000, 3, "T", 1, 1, None), (5, 4099, "N", -2, 1, None),
         (4097, 33, "T", 1, 2, None), (4096, 4096, "T", 1, 1, None),
         (1001, 77, "N", 1, 1, STAGED), (45, 75, "N", -1, 2, STAGED), (1, 77, "N", 1, 1, STAGED),
         (67, 40001, "N", 1, 1, SHARED_X), (5, 4099, "N", 2, -1, SHARED_X)]
# sm_90 thread-block clusters (SgemvTConfig.cluster): whole strips; a ragged last strip with row
# tails, backwards x and strided y; vec 1 strips of 4 columns, 3 real.  SGEMV_CASES=cluster runs
# only these (the device run's time).
CLUSTER = [(4096, 4096, "T", 1, 1, SgemvTConfig(32, 8, 4, 8, cluster=8)),
           (2500, 1000, "T", -1, 2, SgemvTConfig(32, 8, 4, 4, cluster=4)),
           (1000, 3, "T", 1, -1, SgemvTConfig(4, 64, 1, 4, cluster=8)),
           (7, 50000, "N", 1, -1, SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, cluster=8)),
           (301, 4099, "N", 2, 1, SgemvConfig(vec=4, warps_per_block=8, unroll=4, warps_per_row=2, cluster=4))]
# Session 3 run 4: op T thread rows meeting by warp shuffles (warp_reduce; whole strips, a ragged
# strip with backwards x and strided y, vec 1) and rows staged through shared memory (stage_rows;
# tiles, ragged tiles with backwards x, a narrow strip).  SGEMV_CASES=new runs only these.
STAGED_T = SgemvTConfig(32, 8, 4, 8, stage_rows=64)
NEW = [(4096, 4096, "T", 1, 1, SgemvTConfig(8, 64, 4, 8, warp_reduce=True)),
       (1000, 130, "T", -1, 2, SgemvTConfig(8, 32, 4, 8, warp_reduce=True)),
       (999, 129, "T", 1, 1, SgemvTConfig(4, 64, 1, 4, warp_reduce=True)),
       (4096, 77, "T", 1, 1, STAGED_T), (1001, 77, "T", -1, 2, STAGED_T),
       (5000, 5, "T", 1, 1, SgemvTConfig(2, 64, 4, 4, stage_rows=32))]
# Session 47: op T strips past N on the float4 path where N is a multiple of 4 (emit_sgemv.VEC_BLOCK_TEST: the
# threads past N read the row's last float4): a strip wider than the matrix (60, 80 and 100 columns), a last strip of
# 4 columns, a split one-launch finish, and a cluster (sm_90).  SGEMV_CASES=strip runs only these.
STRIP = [(4096, 60, "T", 1, 1, None), (300, 80, "T", 1, 2, SgemvTConfig(32, 8, 4, 4)),
         (1000, 100, "T", -1, 1, SgemvTConfig(32, 8, 4, 8)), (5, 4100, "T", 1, 1, SgemvTConfig(32, 8, 4, 4)),
         (2000, 60, "T", 2, -1, SgemvTConfig(16, 16, 4, 4, fused_reduce=True)),
         (999, 80, "T", 1, 1, SgemvTConfig(16, 16, 4, 4, warp_reduce=True))]
STRIP_SM90 = [(1000, 60, "T", 1, 1, SgemvTConfig(16, 16, 4, 4, cluster=4))]
if os.environ.get("SGEMV_CASES") == "new":
    CASES = NEW
elif os.environ.get("SGEMV_CASES") == "strip":
    CASES = STRIP + (STRIP_SM90 if driver.device().arch == "sm_90" else [])
elif driver.device().arch == "sm_90":
    CASES = CLUSTER if os.environ.get("SGEMV_CASES") == "cluster" else CASES + CLUSTER + NEW + STRIP + STRIP_SM90
else:
    CASES = CASES + STRIP
rng = np.random.default_rng(0)
bad = 0
for m, n, op, incx, incy, cfg in CASES:
    xlen, ylen = (n, m) if op == "N" else (m, n)
    A = rng.standard_normal((m, n), dtype=np.float32)
    xb = rng.standard_normal(1 + (xlen - 1) * abs(incx), dtype=np.float32)
    yb = rng.standard_normal(1 + (ylen - 1) * abs(incy), dtype=np.float32)
    xi = np.arange(xlen) * abs(incx)
    yi = np.arange(ylen) * abs(incy)
    xi, yi = (xi if incx > 0 else xi[::-1]), (yi if incy > 0 else yi[::-1])
    ref = 0.5 * ((A.T if op == "T" else A).astype(np.float64) @ xb[xi]) + 0.25 * yb[yi]
    plan = plan_for(m, n, op, incx, incy, config=cfg)
    ok, first = True, None
    for rep in range(2):  # twice: the one-launch finish's counters must be back at 0
        with driver.to_device(A) as da, driver.to_device(xb) as dx, driver.to_device(yb) as dy:
            x0 = dx.ptr + (0 if incx > 0 else 4 * (xlen - 1) * -incx)
            y0 = dy.ptr + (0 if incy > 0 else 4 * (ylen - 1) * -incy)
            plan.launch(0.5, da.ptr, n, x0, incx, 0.25, y0, incy, 0)
            driver.synchronize(plan.describe())
            out = np.empty_like(yb)
            dy.download(out)
        err = np.linalg.norm(out[yi] - ref) / np.linalg.norm(ref)
        ok = ok and err <= 1e-5 and (first is None or np.array_equal(out[yi], first))  # the same bits again
        first = out[yi]
    bad += not ok
    print(f"{m}x{n} op {op} incx {incx} incy {incy} {plan.kernel.source.name} splits {plan.splits}"
          f"{' (one launch)' if plan.fused else ' (one cluster launch)' if plan.cluster else ''}: err {err:.1e} {'ok' if ok else 'WRONG'}")
print("memcheck script done,", bad, "wrong")
raise SystemExit(1 if bad else 0)
