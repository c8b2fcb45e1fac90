"""For compute-sanitizer (no torch): few-vector GEMMs (runtime/fewvec.py) on regtile's own device
buffers, each buffer exactly its operand's size (a read past an operand's end is an error), each
checked against float64: small m and small n, splits with the reduce, unaligned ld (the scalar
paths), both layouts of the small operand, the big one stored transposed (C written transposed), ragged
strips, row tails and column ends.

    compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/fewvec_memcheck_script.py
"""
import numpy as np

from regtile.codegen.fewvec_config import FewVecNConfig, FewVecTConfig
from regtile.runtime import driver
from regtile.runtime.fewvec import fewvec_route

# m, n, k, trans_a, trans_b, (pad a, pad b, pad c), config (None: the rule's), splits (None: the rule's)
CASES = [(4, 1000, 777, False, False, (0, 0, 0), None, 3),
         (16, 515, 1001, True, False, (1, 1, 2), None, 4),
         (7, 64, 333, False, False, (0, 0, 0), FewVecTConfig(7, 4, 16, 2), 3),
         (3, 4096, 2048, False, False, (0, 0, 0), None, None),
         (1000, 3, 1023, False, True, (0, 1, 0), None, 4),
         (333, 7, 2050, False, False, (1, 0, 3), None, 3),
         (130, 5, 5000, False, False, (0, 0, 0), FewVecNConfig(5, 2, 3, 2), 6),
         (9, 1000, 777, True, False, (1, 0, 0), FewVecTConfig(9, 32, 8, 4, vector_groups=2), 3),
         (333, 7, 2050, False, False, (1, 0, 3), FewVecNConfig(7, 2, 2, 2, lanes_per_row=8), 3),
         (1001, 16, 1023, False, False, (0, 0, 0), FewVecNConfig(16, 4, 2, 2, lanes_per_row=16), 2),
         (2048, 16, 4096, False, False, (0, 0, 0), None, None),
         (12, 70, 515, False, False, (0, 0, 0), None, 2),  # 9-16 vectors: through shared memory
         (16, 24, 3001, True, False, (2, 1, 0), None, 5),
         (16, 4096, 2048, False, False, (0, 0, 0), None, None),
         # the big operand transposed: op N over B^T (small m), op T over A^T (small n), C written transposed
         (4, 1000, 777, False, True, (0, 1, 2), None, 3),
         (13, 515, 1001, True, True, (1, 0, 0), None, None),
         (1000, 3, 1023, True, False, (0, 0, 1), None, 4),
         (777, 12, 515, True, False, (2, 0, 0), None, 2),  # 9-16 vectors: through shared memory
         (333, 7, 2050, True, True, (0, 1, 3), FewVecTConfig(7, 32, 8, 4, vector_groups=2, transposed_c=True), 3),
         # strips past N on the float4 path (N a multiple of 4, emit_sgemv.VEC_BLOCK_TEST; 4 x 1000's last strip too)
         (4, 60, 500, False, False, (0, 0, 0), None, 3),
         (12, 80, 515, False, False, (0, 0, 0), None, 2)]
rng = np.random.default_rng(0)
bad = 0
for m, n, k, ta, tb, (pa, pb, pc), cfg, splits in CASES:
    ar, ac = (k, m) if ta else (m, k)
    br, bc = (n, k) if tb else (k, n)
    lda, ldb, ldc = ac + pa, bc + pb, n + pc
    A = rng.standard_normal((ar, lda), dtype=np.float32)
    B = rng.standard_normal((br, ldb), dtype=np.float32)
    C = rng.standard_normal((m, ldc), dtype=np.float32)
    # the last row holds only its operand's columns: nothing of the padding after it exists
    a_flat, b_flat = A.reshape(-1)[:(ar - 1) * lda + ac], B.reshape(-1)[:(br - 1) * ldb + bc]
    c_flat = C.reshape(-1)[:(m - 1) * ldc + n]
    opa = (A[:, :ac].T if ta else A[:, :ac]).astype(np.float64)
    opb = (B[:, :bc].T if tb else B[:, :bc]).astype(np.float64)
    ref = 0.5 * (opa @ opb) + 0.25 * C[:, :n]
    if cfg is None:
        from regtile.codegen.fewvec_config import route
        from regtile.runtime.fewvec import rule_config
        r = route(m, n, k, ta, lda, tb, ldb, force=True)
        cfg = rule_config(r.rows, r.cols, r.op, r.vectors, transposed_c=r.transposed_c)
    route = fewvec_route(m, n, k, ta, lda, tb, ldb, ldc, config=cfg, splits=splits)
    ok, first = True, None
    for rep in range(2):
        with driver.to_device(a_flat) as da, driver.to_device(b_flat) as db, driver.to_device(c_flat) as dc:
            route.launch(da.ptr, db.ptr, dc.ptr, 0.5, 0.25, 0)
            driver.synchronize(route.plan.describe())
            out = np.empty_like(c_flat)
            dc.download(out)
        got = np.concatenate([out, np.zeros(m * ldc - out.size, np.float32)]).reshape(m, ldc)[:, :n]
        err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        ok = ok and err <= 1e-5 and (first is None or np.array_equal(got, first))
        first = got
    bad += not ok
    print(f"{m}x{n}x{k} ta {ta} tb {tb} {route.plan.describe()}: err {err:.1e} {'ok' if ok else 'WRONG'}")
print("memcheck script done,", bad, "wrong")
raise SystemExit(1 if bad else 0)
