"""The few-vector GEMMs end to end on the CPU (tests/host_cuda.py): codegen/fewvec_config.route's
operands for each layout, the rule's config, its module (stage, kernel, reduce) compiled for the
host and launched by runtime/fewvec's own packed launches, against float64 on fresh random data,
C NaN-poisoned where beta == 0.  What tests/gpu/test_fewvec_gpu.py checks on the device."""
import numpy as np
import pytest

from host_cuda import CXX, HostModule, host_driver
from regtile.codegen.emit import emit_cuda
from regtile.codegen.fewvec_config import choose_fewvec, route
from tiers import tiered

pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++)")

# (m, n, k): few rows of C (op T over B) and few columns (op N over A), float4 and ragged lengths
# 9-16 rows of C go through the shared-memory kernel (smem_vectors): a ragged last strip on the scalar path
# (16x130), a narrow one (12x24: 8 lanes, four thread rows a warp) and a short k with a row tail (9x70x515)
# (4, 60, 300): a strip wider than its 60 columns on the float4 path (emit_sgemv.VEC_BLOCK_TEST)
SHAPES = [(3, 200, 300), (16, 130, 257), (12, 24, 700), (9, 70, 515), (2, 64, 1000), (200, 5, 300), (300, 16, 129),
          (129, 2, 64), (4, 60, 300)]
# the fast tier: op N (over B^T) and op T (over A^T), each with C transposed, and the shared-memory kernel (op T over
# B); every layout of every shape, the other routings among them, in the slow tier (a host compile each)
_FAST = {(3, 200, 300, False, True), (200, 5, 300, True, False), (16, 130, 257, False, False),
         (4, 60, 300, False, False)}
# every layout: the matrix is the big operand as stored (B or B^T for a few rows of C, A or A^T for a few
# columns; the transposed one gives a transposed C), the vectors read either way
CASES = [(m, n, k, ta, tb) for m, n, k in SHAPES for ta in (False, True) for tb in (False, True)]
_modules = {}


def _run(monkeypatch, tmp_path_factory, m, n, k, trans_a, trans_b, splits, alpha, beta):
    from regtile.runtime import fewvec
    rng = np.random.default_rng(m * 7 + n * 3 + k + 11 * trans_a + 5 * trans_b)
    A = rng.standard_normal((k, m) if trans_a else (m, k)).astype(np.float32)
    B = rng.standard_normal((n, k) if trans_b else (k, n)).astype(np.float32)
    lda, ldb, ldc = A.shape[1], B.shape[1], n
    r = route(m, n, k, trans_a, lda, trans_b, ldb, force=True)
    assert r is not None, f"route refused {m}x{n}x{k} trans_a={trans_a} trans_b={trans_b}"
    cfg = choose_fewvec(r.rows, r.cols, r.op, r.vectors, r.transposed_c)
    if cfg not in _modules:
        _modules[cfg] = HostModule(emit_cuda(cfg), tmp_path_factory.mktemp("fewvec"))
    mod = _modules[cfg]
    host_driver(monkeypatch, mod)
    plan = fewvec.FewVecPlan(mod.main, cfg, r.rows, r.cols, splits)
    launch = fewvec.FewVecRoute(plan, r.sv, r.sp, r.ld, ldc, r.mat_is_a)
    C0 = rng.standard_normal((m, n)).astype(np.float32)
    C = np.full((m, n), np.nan, dtype=np.float32) if beta == 0.0 else C0.copy()
    launch.launch(A.ctypes.data, B.ctypes.data, C.ctypes.data, alpha, beta, stream=0)
    opa = (A.T if trans_a else A).astype(np.float64)
    opb = (B.T if trans_b else B).astype(np.float64)
    ref = alpha * (opa @ opb) + (beta * C0.astype(np.float64) if beta else 0.0)
    assert not np.isnan(C).any(), f"{int(np.isnan(C).sum())} elements of C not written ({plan.describe()})"
    np.testing.assert_allclose(C, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max(), err_msg=plan.describe())


@pytest.mark.parametrize("m, n, k, trans_a, trans_b", tiered(CASES, fast=_FAST))
def test_layouts_one_and_three_splits(monkeypatch, tmp_path_factory, m, n, k, trans_a, trans_b):
    _run(monkeypatch, tmp_path_factory, m, n, k, trans_a, trans_b, 1, 0.5, -2.0)
    _run(monkeypatch, tmp_path_factory, m, n, k, trans_a, trans_b, 3, 1.5, 0.0)
