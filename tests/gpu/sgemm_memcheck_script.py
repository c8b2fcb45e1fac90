"""For compute-sanitizer (no torch): SGEMMs whose tiles straddle a vector bound (N % 4 != 0 with B
untransposed, M % 4 != 0 with A^T: ptx_edges.clamp_setup) on regtile's own device buffers, each
buffer exactly its operand's size - the last line of an operand holds only its own floats, so a
read past the bound on line K - 1 is an error - with K a whole number of k-tiles (the last
k-tile is inside K), aligned rows (ld a multiple of 4: the float4 and cp.async paths) and packed
ones (the vectors' floats), through a PTX member given and through the library's own choice;
each checked against float64, C NaN-poisoned first.

    compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/sgemm_memcheck_script.py

SGEMM_MEMCHECK_MEMBERS=sq-128x128,chosen limits it to those members (about 3 s a plan under the sanitizer, cold).
"""
import os

import numpy as np

from regtile.codegen.layouts import with_layout
from regtile.codegen.presets import FAMILY
from regtile.runtime import driver
from regtile.runtime.plans import GemmPlan

MEMBERS = [None, "wide-128x256", "tall-256x128", "tall-128x64-k16", "sq-128x128", "sq-64x64", "sq-32x32"]
if os.environ.get("SGEMM_MEMCHECK_MEMBERS"):  # a comma-separated subset ("chosen": the library's own choice)
    MEMBERS = [None if m == "chosen" else m for m in os.environ["SGEMM_MEMCHECK_MEMBERS"].split(",")]
# m, n, k, trans_a, trans_b, pad of the ragged operand's rows (None: packed; else ld = bound rounded up to 4 + pad)
SHAPES = [(300, 257, 256, False, False, 0), (300, 258, 512, False, False, 0), (129, 515, 256, False, False, None),
          (257, 300, 256, True, False, 0), (515, 130, 256, True, False, None), (258, 259, 256, True, False, 0),
          (200, 131, 128, False, True, 0)]


def run(m, n, k, ta, tb, pad, member, rng):
    ar, ac = (k, m) if ta else (m, k)
    br, bc = (n, k) if tb else (k, n)

    def ld(cols):
        return cols if pad is None else -(-cols // 4) * 4 + pad
    lda, ldb, ldc = ld(ac), ld(bc), n
    A = rng.standard_normal((ar, lda), dtype=np.float32)
    B = rng.standard_normal((br, ldb), dtype=np.float32)
    # the last row holds only its operand's columns: nothing of the padding after it exists
    a_flat, b_flat = A.reshape(-1)[:(ar - 1) * lda + ac], B.reshape(-1)[:(br - 1) * ldb + bc]
    c_flat = np.full((m - 1) * ldc + n, np.nan, np.float32)
    opa = (A[:, :ac].T if ta else A[:, :ac]).astype(np.float64)
    opb = (B[:, :bc].T if tb else B[:, :bc]).astype(np.float64)
    ref = 0.5 * (opa @ opb)
    # a member as the chooser generates it for the layouts (layouts.with_layout: B^T's padding, its register rule)
    kw = {} if member is None else dict(config=with_layout(FAMILY[member].config, ta, tb), backend=FAMILY[member].backend)
    plan = GemmPlan(m, n, k, ta, tb, lda, ldb, ldc, **kw)
    with driver.to_device(a_flat) as da, driver.to_device(b_flat) as db, driver.to_device(c_flat) as dc:
        plan.launch(da.ptr, db.ptr, dc.ptr, 0.5, 0.0, 0)
        driver.synchronize(plan.describe())
        out = np.empty_like(c_flat)
        dc.download(out)
    got = np.concatenate([out, np.zeros(m * ldc - out.size, np.float32)]).reshape(m, ldc)[:, :n]
    err = np.linalg.norm(got - ref) / np.linalg.norm(ref) if not np.isnan(got).any() else np.inf
    return err, plan


rng = np.random.default_rng(0)
bad = 0
for member in MEMBERS:
    for m, n, k, ta, tb, pad in SHAPES:
        err, plan = run(m, n, k, ta, tb, pad, member, rng)
        ok = err <= 1e-5
        bad += not ok
        print(f"{member or 'chosen'} {m}x{n}x{k} ta {ta} tb {tb} pad {pad}: {plan.describe()[:90]}: err {err:.1e} "
              f"{'ok' if ok else 'WRONG'}", flush=True)
print("memcheck script done,", bad, "wrong")
raise SystemExit(1 if bad else 0)
