"""The GEMV family end to end on the CPU: the shape rule's config, its emitted module compiled for
the host (tests/host_cuda.py) and launched by runtime/gemv.GemvPlan's own packed launches - the
split's workspace, the reduce kernel or the one-launch finish, strides of x and y (negative:
backwards from the end) - against float64 on fresh random data.  y is NaN-poisoned where beta == 0
(y must not be read and every element must be written); guard words around y stay untouched.
What the GPU tests (tests/gpu/test_sgemv_gpu.py) check on the device, here without one."""
import numpy as np
import pytest

from host_cuda import CXX, HostModule, host_driver
from regtile.codegen.emit import emit_cuda
from regtile.codegen.sgemv_config import choose_gemv, splits_for
from tiers import tiered

pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++)")

# (m, n, op): few long rows, many short rows (float4 and ragged), one row, op T narrow and wide
# (300, 60): a 64-column strip over 60 columns and (64, 1000)'s last strip, 104 of 128 columns, read float4s
# (emit_sgemv.VEC_BLOCK_TEST: the threads past N on the row's last float4)
SHAPES = [(7, 5000, "N"), (64, 1000, "N"), (300, 77, "N"), (1000, 16, "N"), (33, 130, "N"), (1, 4096, "N"),
          (2000, 16, "T"), (1000, 77, "T"), (64, 1000, "T"), (500, 64, "T"), (32, 4096, "T"), (7, 3, "T"),
          (300, 60, "T")]
_FAST = {(7, 5000, "N"), (1000, 77, "T"), (2000, 16, "T"), (300, 60, "T")}
_modules = {}


def _module(cfg, tmp_path_factory):
    if cfg not in _modules:
        _modules[cfg] = HostModule(emit_cuda(cfg), tmp_path_factory.mktemp("gemv"))
    return _modules[cfg]


def _run(monkeypatch, tmp_path_factory, m, n, op, cfg, splits, incx=1, incy=1, alpha=0.5, beta=-2.0, seed=0):
    from regtile.runtime import gemv
    mod = _module(cfg, tmp_path_factory)
    host_driver(monkeypatch, mod)
    plan = gemv.GemvPlan(mod.main, m, n, op, splits, cfg)
    rng = np.random.default_rng(seed + m * 131 + n)
    xlen, ylen = (n, m) if op == "N" else (m, n)
    A = rng.standard_normal((m, n)).astype(np.float32)
    xs = rng.standard_normal(xlen * abs(incx)).astype(np.float32)
    guard = 8
    ybuf = np.full(ylen * abs(incy) + 2 * guard, np.nan, dtype=np.float32)
    y0 = rng.standard_normal(ylen).astype(np.float32)
    yview = ybuf[guard:guard + ylen * abs(incy)][::abs(incy)]
    yview[:] = np.nan if beta == 0.0 else (y0 if incy > 0 else y0[::-1])
    x_logical = xs[::abs(incx)] if incx > 0 else xs[::abs(incx)][::-1]
    y_before = y0 if beta != 0.0 else np.zeros(ylen)
    xp = gemv._first(xs.ctypes.data, xlen, incx)
    yp = gemv._first(ybuf.ctypes.data + 4 * guard, ylen, incy)
    plan.launch(alpha, A.ctypes.data, n, xp, incx, beta, yp, incy, stream=7)
    got = yview if incy > 0 else yview[::-1]
    op_a = A.astype(np.float64).T if op == "T" else A.astype(np.float64)
    ref = alpha * (op_a @ x_logical.astype(np.float64)) + beta * y_before.astype(np.float64)
    assert not np.isnan(got).any(), f"{int(np.isnan(got).sum())} of {ylen} outputs not written ({plan.describe()})"
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max(), err_msg=plan.describe())
    assert np.isnan(ybuf[:guard]).all() and np.isnan(ybuf[guard + ylen * abs(incy):]).all(), "written outside y"
    if abs(incy) > 1:
        between = np.ones(ybuf.size, bool)
        between[:guard] = between[guard + ylen * abs(incy):] = False
        between[guard:guard + ylen * abs(incy):abs(incy)] = False
        assert np.isnan(ybuf[between]).all(), "written between y's elements"
    return plan


@pytest.mark.parametrize("m, n, op", tiered(SHAPES, fast=_FAST))
def test_rule_config_and_splits(monkeypatch, tmp_path_factory, m, n, op):
    """The rule's config at its own split (blocks_per_sm 2), at one split, and at 3 splits."""
    cfg = choose_gemv(m, n, op, 132)[0]
    for splits in sorted({splits_for(cfg, m, n, 132, 2), 1, 3}):
        _run(monkeypatch, tmp_path_factory, m, n, op, cfg, splits)


@pytest.mark.parametrize("m, n, op", tiered([(64, 1000, "N"), (1000, 77, "T")], fast={(1000, 77, "T")}))
@pytest.mark.parametrize("incx, incy", [(2, 3), (-1, -2)])
def test_strided_and_backwards_vectors(monkeypatch, tmp_path_factory, m, n, op, incx, incy):
    cfg = choose_gemv(m, n, op, 132)[0]
    _run(monkeypatch, tmp_path_factory, m, n, op, cfg, 3, incx=incx, incy=incy)


# op N's case in the slow tier (a host compile, 3.5 s): test_rule_config_and_splits runs op N's kernels in the fast one
@pytest.mark.parametrize("m, n, op", tiered([(7, 5000, "N"), (2000, 16, "T")], fast={(2000, 16, "T")}))
def test_beta_zero_ignores_y_and_one_launch_finish(monkeypatch, tmp_path_factory, m, n, op):
    """beta == 0 with y NaN, through the reduce kernel and through the one-launch finish
    (fused_reduce: each block counts its arrival, the last of a column sums the partials)."""
    cfg = choose_gemv(m, n, op, 132)[0]
    _run(monkeypatch, tmp_path_factory, m, n, op, cfg, 4, alpha=1.5, beta=0.0)
    fused = cfg.replace(fused_reduce=True)
    plan = _run(monkeypatch, tmp_path_factory, m, n, op, fused, 4, alpha=1.5, beta=0.0)
    assert plan.fused
    _run(monkeypatch, tmp_path_factory, m, n, op, fused, 5, seed=1)  # the counters are back at 0


# The family's forms by name, at sizes the CPU runs (the rule takes them at larger ones): rows staged in
# shared memory (op N, lda <= 80; op T, 1Mx77's pick), x shared by row groups with the one-launch
# finish (300x1M's pick), thread rows meeting by warp shuffles (4096x4096 T's), 16-column strips.
FORMS = [("N staged rows", 2000, 77, "N", dict(rows_per_warp=32, vec=4, warps_per_block=4, unroll=8, stage_cols=80)),
         ("N shared x", 300, 5000, "N", dict(vec=4, warps_per_block=4, warps_per_row=4, row_groups=2, share_x=True,
                                              unroll=4, fused_reduce=True)),
         ("T staged rows", 1000, 77, "T", dict(threads_x=32, threads_y=8, vec=4, unroll=8, stage_rows=64)),
         ("T warp shuffles", 512, 1000, "T", dict(threads_x=8, threads_y=64, vec=4, unroll=8, warp_reduce=True)),
         ("T 16-column strips staged", 3000, 16, "T", dict(threads_x=4, threads_y=64, vec=4, unroll=8, stage_rows=64))]


@pytest.mark.parametrize("label", tiered([f[0] for f in FORMS], fast={"T staged rows"}))
def test_family_forms(monkeypatch, tmp_path_factory, label):
    from regtile.codegen.sgemv_config import SgemvConfig, SgemvTConfig
    _, m, n, op, fields = next(f for f in FORMS if f[0] == label)
    cfg = (SgemvTConfig if op == "T" else SgemvConfig)(**fields)
    for splits in ((1,) if cfg.warp_reduce else (1, 4)) if op == "T" else (1, 3):
        _run(monkeypatch, tmp_path_factory, m, n, op, cfg, splits)


@pytest.mark.parametrize("lda, shift", [(60, 0), (61, 0), (64, 1)])
def test_t_strip_past_n_rows_and_alignment(monkeypatch, tmp_path_factory, lda, shift):
    """Op T on 60 columns (a 64-column strip past N): float4s where the rows and A are 16-byte aligned (lda 60), scalars
    where they are not (lda 61; A one float off); NaN in the row padding past N must not reach y."""
    from regtile.codegen.sgemv_config import SgemvTConfig
    from regtile.runtime import gemv
    m, n = 300, 60
    cfg = SgemvTConfig(16, 16, 4, 4)
    mod = _module(cfg, tmp_path_factory)
    host_driver(monkeypatch, mod)
    plan = gemv.GemvPlan(mod.main, m, n, "T", 2, cfg)
    rng = np.random.default_rng(lda + shift)
    buf = np.full(m * lda + shift + 4, np.nan, dtype=np.float32)
    buf = buf[(-buf.ctypes.data // 4) % 4:]  # 16-byte aligned start, then `shift` floats off it
    A = buf[shift:shift + m * lda].reshape(m, lda)
    A[:, :n] = rng.standard_normal((m, n)).astype(np.float32)
    x = rng.standard_normal(m).astype(np.float32)
    y = np.full(n, np.nan, dtype=np.float32)
    plan.launch(1.0, A.ctypes.data, lda, x.ctypes.data, 1, 0.0, y.ctypes.data, 1, stream=7)
    ref = A[:, :n].astype(np.float64).T @ x.astype(np.float64)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
