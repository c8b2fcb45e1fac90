"""For compute-sanitizer (no torch): regtile's batched choice (codegen/batch_choice.py, session 45: skinny-m16 /
skinny-n16 and its splits over K, the k16 tiles, 128x256, 256x128, 128x128, 64x64, 32x64, 32x32 on ragged C with their
edge clamp, as these shapes pick them) on regtile's own device buffers, each
exactly its batch's size - the last entry's last line holds only its own floats, so a read past any bound is an
error - in every layout, each checked against float64 (C NaN-poisoned first).

    compute-sanitizer --tool memcheck --error-exitcode 9 python3 lab/device_runs/batched_memcheck.py [gemv] [first=I]

`gemv` (session 46): the batches of m == 1 / n == 1 GEMMs instead (GEMV_SHAPES), which run one batched GEMV launch
where codegen/batch_choice.batched_gemv takes them: the last entry's matrix, vector and output end at their buffers'
ends.  first=I: SHAPES from index I on (the sanitizer takes about 3 s a case: session 46's run a stopped at its
150 s limit after 50 of the 64 cases, all correct).
"""
import sys

import numpy as np

from regtile.codegen.batch_choice import batch_member
from regtile.runtime import driver
from regtile.runtime.plans import GemmPlan

SHAPES = [(5, 1, 300, 200), (7, 300, 5, 200), (48, 512, 64, 512), (3, 1000, 1000, 1000), (200, 77, 77, 64),
          (24, 257, 257, 64), (16, 4096, 40, 77), (4, 513, 67, 129), (16, 1000, 77, 40),
          (32, 8, 128, 2048), (40, 1, 130, 700),
          # ragged C on tall-256x128, 128x256, the k16 tiles and 32x64 with their edge clamp
          (4, 2000, 2000, 300), (8, 999, 1001, 129), (6, 1000, 1000, 700), (40, 333, 64, 333), (24, 197, 64, 197)]
GEMV_SHAPES = [(256, 1, 1024, 128), (37, 1, 515, 128), (20, 1, 64, 1030), (96, 1, 77, 64), (300, 1, 130, 33),
               (64, 333, 1, 96), (40, 1000, 1, 517), (40, 1, 80, 300), (24, 1, 96, 1030),
               # op T strips past N on the float4 path (session 47, emit_sgemv.VEC_BLOCK_TEST)
               (30, 1, 100, 300), (16, 1, 1000, 200)]


def run(batch, m, n, k, ta, tb, rng):
    ar, ac = (k, m) if ta else (m, k)
    br, bc = (n, k) if tb else (k, n)
    sa, sb, sc = ar * ac, br * bc, m * n  # packed entries: ld = the stored rows' length
    A = rng.standard_normal((batch, ar, ac), dtype=np.float32)
    B = rng.standard_normal((batch, br, bc), dtype=np.float32)
    c_flat = np.full(batch * sc, np.nan, np.float32)
    opa = np.swapaxes(A, 1, 2) if ta else A
    opb = np.swapaxes(B, 1, 2) if tb else B
    ref = np.matmul(opa.astype(np.float64), opb.astype(np.float64))
    plan = GemmPlan(m, n, k, ta, tb, ac, bc, n, batch, (sa, sb, sc))
    with driver.to_device(A.reshape(-1)) as da, driver.to_device(B.reshape(-1)) as db, \
            driver.to_device(c_flat) as dc:
        plan.launch(da.ptr, db.ptr, dc.ptr, 1.0, 0.0, 0)
        driver.synchronize(plan.describe())
        out = np.empty_like(c_flat)
        dc.download(out)
    got = out.reshape(batch, m, n)
    err = np.linalg.norm(got - ref) / np.linalg.norm(ref) if not np.isnan(got).any() else np.inf
    return err, plan


rng = np.random.default_rng(0)
bad = 0
first = int(next((a.split("=")[1] for a in sys.argv[1:] if a.startswith("first=")), 0))
for batch, m, n, k in GEMV_SHAPES if "gemv" in sys.argv[1:] else SHAPES[first:]:
    for ta in (False, True):
        for tb in (False, True):
            err, plan = run(batch, m, n, k, ta, tb, rng)
            ok = err <= 1e-5
            bad += not ok
            what = (f"GEMV {plan.gemv.plan.describe()}" if plan.gemv is not None else
                    f"{batch_member(m, n, k, batch, 132, tb, ta)} split {plan.config.split_k}")
            print(batch, m, n, k, ta, tb, what, f"{err:.2e}", "ok" if ok else "WRONG", flush=True)
raise SystemExit(1 if bad else 0)
