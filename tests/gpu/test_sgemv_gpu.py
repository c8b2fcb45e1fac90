"""SGEMV family on the GPU against float64: the 40-shape suite where it fits quickly, both
orientations, splits, alpha/beta, beta == 0 over a NaN y, NaN/Inf propagation, BLAS strides
(positive and negative), column-major A, misaligned operands, the numpy entry, the seed's
presets, and gemv_for_gemm (the m == 1 / n == 1 GEMMs).  Outputs start NaN-poisoned."""
import numpy as np
import pytest

import regtile
from regtile.codegen.presets import get_preset, sgemv_preset_names
from regtile.codegen.sgemv_config import SgemvConfig, SgemvTConfig
from regtile.runtime import bench, driver
from regtile.runtime.gemv import gemv_for_gemm, plan_for
from regtile.tools.sgemv_sweep import DECODE, EXTRA, SUITE

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemv_checks import NAN, close as _close, graph_replays, nan_inf_through_strides, ref as _ref, repeated_launches  # noqa: E402



def _run(m, n, op, alpha=1.0, beta=0.0, config=None):
    g = torch.Generator(device="cuda").manual_seed(m * 7 + n)
    A = torch.randn(m, n, device="cuda", generator=g)
    trans = op == "T"
    xlen, ylen = (m, n) if trans else (n, m)
    x = torch.randn(xlen, device="cuda", generator=g)
    y0 = torch.randn(ylen, device="cuda", generator=g)
    y = y0.clone() if beta != 0.0 else torch.full((ylen,), NAN, device="cuda")
    regtile.sgemv(A, x, y, alpha=alpha, beta=beta, trans=trans, config=config)
    torch.cuda.synchronize()
    _close(y, _ref(A, x, trans, alpha, beta, y0))


QUICK = [s for s in SUITE + EXTRA + DECODE if s[0] * s[1] <= 80 << 20]


@pytest.mark.parametrize("m, n, op", QUICK)
def test_suite_shape(m, n, op):
    _run(m, n, op)


@pytest.mark.parametrize("m, n, op", [(2, 1 << 20, "N"), (300, 50000, "N"), (2560, 7680, "T"),
                                      (1_000_003, 3, "T"), (7, 4099, "T"), (129, 1000, "N"), (33, 5, "T")])
def test_alpha_beta_and_splits(m, n, op):
    _run(m, n, op, alpha=-0.5, beta=2.0)


@pytest.mark.parametrize("op", ["N", "T"])
@pytest.mark.parametrize("m, n", [(1, 1), (3, 4099), (1000, 127), (4097, 33)])
def test_ragged(m, n, op):
    _run(m, n, op, alpha=1.5, beta=0.5)


@pytest.mark.parametrize("op", ["N", "T"])
@pytest.mark.parametrize("m, n", [(2, 1 << 18), (5000, 64), (64, 300)])
def test_nan_inf_propagate(m, n, op):
    """A NaN in A poisons exactly its output; an Inf in x gives Inf or NaN where float64 does."""
    trans = op == "T"
    A = torch.randn(m, n, device="cuda")
    x = torch.randn(m if trans else n, device="cuda")
    A[m // 2, n // 3] = NAN
    x[0] = float("inf")
    y = torch.full((n if trans else m,), NAN, device="cuda")
    y.fill_(NAN)
    regtile.sgemv(A, x, y, trans=trans)
    torch.cuda.synchronize()
    ref = _ref(A, x, trans)
    yd = y.double()
    assert torch.equal(torch.isnan(yd), torch.isnan(ref))
    assert torch.equal(torch.isinf(yd), torch.isinf(ref))
    fin = torch.isfinite(ref)
    if fin.any():
        assert ((yd[fin] - ref[fin]).norm() / max(ref[fin].norm().item(), 1e-30)).item() <= 1e-5


@pytest.mark.parametrize("op", ["N", "T"])
@pytest.mark.parametrize("m, n", [(3, 1 << 20), (16384, 128), (300, 7)])
def test_beta_zero_ignores_nan_y(op, m, n):
    _run(m, n, op)  # y starts NaN: beta == 0 must not read it


@pytest.mark.parametrize("op", ["N", "T"])
@pytest.mark.parametrize("incx, incy", [(2, 3), (-1, 1), (3, -2), (-2, -5)])
@pytest.mark.parametrize("m, n", [(37, 1000), (2, 50000), (3000, 5)])
def test_strided_vectors(op, incx, incy, m, n):
    trans = op == "T"
    xlen, ylen = (m, n) if trans else (n, m)
    A = torch.randn(m, n, device="cuda")
    xb = torch.randn(1 + (xlen - 1) * abs(incx), device="cuda")
    yb = torch.randn(1 + (ylen - 1) * abs(incy), device="cuda")
    yb0 = yb.clone()
    xi = torch.arange(xlen, device="cuda") * abs(incx)
    yi = torch.arange(ylen, device="cuda") * abs(incy)
    xi, yi = (xi if incx > 0 else xi.flip(0)), (yi if incy > 0 else yi.flip(0))
    regtile.sgemv(A, xb, yb, alpha=0.75, beta=-1.0, trans=trans, incx=incx, incy=incy)
    torch.cuda.synchronize()
    ref = _ref(A, xb[xi], trans, 0.75, -1.0, yb0[yi])
    _close(yb[yi], ref)
    untouched = torch.ones_like(yb, dtype=torch.bool)
    untouched[yi] = False
    assert torch.equal(yb[untouched], yb0[untouched])  # the gaps between y's elements stay as they were


@pytest.mark.parametrize("trans", [False, True])
def test_column_major_a(trans):
    m, n = 513, 301
    A = torch.randn(n, m, device="cuda").T  # column-major m x n
    x = torch.randn(m if trans else n, device="cuda")
    y = torch.full((n if trans else m,), NAN, device="cuda")
    regtile.sgemv(A, x, y, trans=trans)
    torch.cuda.synchronize()
    _close(y, _ref(A, x, trans))
    Ah = np.asfortranarray(np.random.default_rng(1).standard_normal((m, n), dtype=np.float32))
    xh = np.random.default_rng(2).standard_normal(m if trans else n, dtype=np.float32)
    yh = regtile.sgemv(Ah, xh, trans=trans)
    ref = (Ah.T.astype(np.float64) if trans else Ah.astype(np.float64)) @ xh
    assert np.linalg.norm(yh - ref) / np.linalg.norm(ref) <= 1e-5


def test_misaligned_x_and_lda():
    m, n = 333, 257
    for op in ("N", "T"):
        trans = op == "T"
        storage = torch.randn((m if trans else n) + 1, device="cuda")
        x = storage[1:]  # 4 bytes off a 16-byte boundary: the float4 path must not be taken
        A = torch.randn(m, n + 1, device="cuda")[:, :n]  # lda = n + 1: rows not 16-byte aligned
        y = torch.randn(n if trans else m, device="cuda")
        y0 = y.clone()
        regtile.sgemv(A, x, y, alpha=1.5, beta=0.5, trans=trans)
        torch.cuda.synchronize()
        _close(y, _ref(A, x, trans, 1.5, 0.5, y0))


def test_numpy_entry_strided():
    rng = np.random.default_rng()
    A = rng.standard_normal((1001, 77), dtype=np.float32)
    x = rng.standard_normal(77 * 2, dtype=np.float32)
    y = np.full(1001 * 3, 5.0, np.float32)
    regtile.sgemv(A, x, y, incx=2, incy=-3)
    ref = A.astype(np.float64) @ x[::2]
    got = y[np.arange(1001) * 3][::-1]  # incy < 0: logical element 0 is the last in memory
    assert np.linalg.norm(got - ref) / np.linalg.norm(ref) <= 1e-5
    assert (y[1::3] == 5.0).all()


def test_device_path_is_async_and_cached(monkeypatch):
    """A repeated call finds its plan (no compile) and returns before the kernel ends: it is
    enqueued behind a GPU sleep, and the sleep is still running when the calls return."""
    from regtile.runtime import compiler
    A = torch.randn(16384, 4096, device="cuda")
    x = torch.randn(4096, device="cuda")
    y = torch.empty(16384, device="cuda")
    regtile.sgemv(A, x, y)
    torch.cuda.synchronize()
    plan = plan_for(16384, 4096, "N")

    def no_compile(*a, **k):
        raise AssertionError("a cached sgemv compiled")
    monkeypatch.setattr(compiler, "compile_config", no_compile)
    monkeypatch.setattr(compiler, "compile_source", no_compile)
    done = torch.cuda.Event()
    torch.cuda._sleep(2_000_000_000)  # about a second of GPU time ahead of the calls
    for _ in range(5):
        regtile.sgemv(A, x, y)
    done.record()
    assert not done.query()  # the calls returned while the GPU was still asleep: no sync
    torch.cuda.synchronize()
    assert plan_for(16384, 4096, "N") is plan
    ref = A.double() @ x.double()
    assert float((y.double() - ref).norm() / ref.norm()) <= 1e-5


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m, n, k", [(1, 7680, 2560), (1, 77, 5000), (4096, 1, 300), (1, 1, 1000), (33, 1, 7)])
def test_gemv_for_gemm(m, n, k, ta, tb):
    A = torch.randn(k, m, device="cuda") if ta else torch.randn(m, k, device="cuda")
    B = torch.randn(n, k, device="cuda") if tb else torch.randn(k, n, device="cuda")
    opA, opB = (A.T if ta else A), (B.T if tb else B)
    ldc = n + 3 if n > 1 else 5  # C with a padded leading dimension
    Cbuf = torch.randn(m, ldc, device="cuda")
    C0 = Cbuf.clone()
    ok = gemv_for_gemm(m, n, k, A.data_ptr(), A.shape[1], ta, B.data_ptr(), B.shape[1], tb, Cbuf.data_ptr(), ldc,
                       1.25, 0.5, torch.cuda.current_stream().cuda_stream)
    assert ok
    torch.cuda.synchronize()
    ref = 1.25 * (opA.double() @ opB.double()) + 0.5 * C0[:, :n].double()
    _close(Cbuf[:, :n].reshape(-1), ref.reshape(-1))
    assert torch.equal(Cbuf[:, n:], C0[:, n:])
    assert not gemv_for_gemm(2, 2, 4, 0, 4, False, 0, 2, False, 0, 2, 1.0, 0.0)


# ---- the seed's presets and explicit configs, through the bench launcher --------------
def _check(cfg, m, n, alpha=1.0, beta=0.0):
    work = bench.GemvWorkload(m, n)
    try:
        kernel = driver.load(regtile.runtime.compiler.compile_config(cfg, driver.device().arch))
        r = bench.check_and_time_gemv(bench.gemv_kernel_launcher(kernel, work, alpha, beta, cfg), work, alpha, beta,
                                      repeat=0)
    finally:
        work.close()
    assert r["unwritten"] == 0 and r["rel_err"] <= 1e-5, (cfg, m, n, r)


@pytest.mark.parametrize("name", sgemv_preset_names())
@pytest.mark.parametrize("m, n", [(1, 1), (129, 16), (999, 130)])
def test_presets_any_shape(name, m, n):
    _check(get_preset(name).config, m, n)


@pytest.mark.parametrize("warps_per_row", [2, 4])
@pytest.mark.parametrize("m, n", [(7, 4099), (129, 1000)])
def test_rows_split_across_warps(warps_per_row, m, n):
    cfg = SgemvConfig(rows_per_warp=1, vec=4, warps_per_block=8, unroll=4, warps_per_row=warps_per_row)
    _run(m, n, "N", 0.5, -1.0, config=cfg)


@pytest.mark.parametrize("m, n", [(1, 4096), (7, 3000), (32, 2052), (17, 4092), (7, 50000), (1, 16388), (8, 65536),
                                  (5, 30004)])
def test_few_rows_one_step_rule(m, n):
    """The rule's 16 warps a row at unroll 2 (config_for_shape, FEW_ROWS and FEW_LONG_ROWS): rows
    that end inside the step, splits of one step with a short last one, alpha and beta."""
    from regtile.codegen.sgemv_config import config_for_shape
    assert config_for_shape(m, n).warps_per_row == 16
    _run(m, n, "N", 0.5, -1.0)
    _run(m, n, "N")


@pytest.mark.parametrize("cfg", [SgemvTConfig(32, 8, 4, 4), SgemvTConfig(8, 32, 4, 2), SgemvTConfig(4, 16, 1, 1)])
@pytest.mark.parametrize("m, n", [(1, 1), (1000, 129), (5, 4099)])
def test_t_configs(cfg, m, n):
    _run(m, n, "T", 0.5, -1.0, config=cfg)


# A strip wider than the matrix, or past its last column, on the float4 path where N is a multiple of 4
# (emit_sgemv.VEC_BLOCK_TEST; the threads past N read the row's last float4 and store nothing): MoE routers' 60
# columns, 80 and 100 columns on one 128-column strip, 4100's last strip of 4 columns; N = 102 keeps scalars.
@pytest.mark.parametrize("cfg", [None, SgemvTConfig(32, 8, 4, 4), SgemvTConfig(16, 16, 4, 8)])
@pytest.mark.parametrize("m, n", [(4096, 60), (300, 80), (1000, 100), (5, 4100), (77, 102)])
def test_t_strip_past_n(cfg, m, n):
    _run(m, n, "T", 0.5, -1.0, config=cfg)


@pytest.mark.parametrize("lda, shift", [(61, 0), (64, 1), (64, 2)])
def test_t_strip_past_n_on_unaligned_rows(lda, shift):
    """N a multiple of 4 on rows that are not 16-byte aligned (lda 61) or an A that is not (shifted 1 or 2 floats):
    the strip past N reads scalars, rows 4 rows in flight (the float4-past-N form)."""
    m, n = 300, 60
    buf = torch.randn(m * lda + shift, device="cuda")
    A = buf[shift:].view(m, lda)[:, :n]
    x = torch.randn(m, device="cuda")
    y = torch.full((n,), NAN, device="cuda")
    regtile.sgemv(A, x, y, trans=True, config=SgemvTConfig(16, 16, 4, 4))
    torch.cuda.synchronize()
    _close(y, _ref(A, x, True))


STAGED = SgemvConfig(rows_per_warp=32, vec=4, warps_per_block=4, unroll=8, stage_cols=80)


@pytest.mark.parametrize("m, n, lda, shift, incx", [
    (1000, 77, 77, 0, 1),     # the staged path, a last warp of 8 rows
    (33, 77, 80, 0, -2),      # padded rows (lda 80 <= stage_cols), backwards x
    (70000, 77, 77, 0, 1),    # many blocks
    (100, 5, 5, 0, 3),        # rows shorter than a float4, strided x
    (1, 77, 77, 0, 1),
    (300, 77, 96, 0, 1),      # lda above stage_cols: the direct path
    (300, 77, 77, 1, 1),      # A not 16-byte aligned: the direct path
])
def test_staged_rows(m, n, lda, shift, incx):
    """SgemvConfig.stage_cols: rows copied to shared memory by their warp, a lane a row;
    alpha/beta, NaN in A poisoning exactly its row, beta == 0 over a NaN y."""
    g = torch.Generator(device="cuda").manual_seed(m + n + lda)
    buf = torch.randn(m * lda + shift, device="cuda", generator=g)
    A = buf[shift:].view(m, lda)[:, :n]
    A[m // 2, n // 3] = NAN
    xb = torch.randn(1 + (n - 1) * abs(incx), device="cuda", generator=g)
    xi = torch.arange(n, device="cuda") * abs(incx)
    x = xb[xi if incx > 0 else xi.flip(0)]
    for beta in (0.0, 0.5):
        y0 = torch.randn(m, device="cuda", generator=g)
        y = y0.clone() if beta else torch.full((m,), NAN, device="cuda")
        regtile.sgemv(A, xb, y, alpha=1.5, beta=beta, incx=incx, config=STAGED)
        torch.cuda.synchronize()
        ref = 1.5 * (A.double() @ x.double()) + (beta * y0.double() if beta else 0.0)
        bad = torch.isnan(ref)
        assert torch.equal(torch.isnan(y), bad)  # exactly the NaN row
        _close(y[~bad], ref[~bad])


@pytest.mark.parametrize("cfg", [
    SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, row_groups=2, share_x=True),
    SgemvConfig(vec=4, warps_per_block=8, unroll=2, warps_per_row=2, row_groups=4, share_x=True),
    SgemvConfig(vec=4, warps_per_block=4, unroll=4, row_groups=2, share_x=True),
])
@pytest.mark.parametrize("m, n", [(1, 1), (3, 4099), (7, 4100), (129, 1000), (301, 50000)])
def test_shared_x(cfg, m, n):
    """share_x: row groups reading each x float4 once (odd M: a group without a row), split or not."""
    _run(m, n, "N", 0.5, -1.0, config=cfg)


def test_shared_x_strided_and_misaligned():
    cfg = SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, row_groups=2, share_x=True)
    m, n = 65, 20000
    A = torch.randn(m, n + 1, device="cuda")[:, :n]  # lda = n + 1: the scalar path
    xb = torch.randn(2 * n, device="cuda")
    y = torch.full((m,), NAN, device="cuda")
    A[5, 7] = NAN
    regtile.sgemv(A, xb, y, incx=-2, config=cfg)
    torch.cuda.synchronize()
    ref = A.double() @ xb[torch.arange(n, device="cuda").flip(0) * 2].double()
    bad = torch.isnan(ref)
    assert torch.equal(torch.isnan(y), bad)
    _close(y[~bad], ref[~bad])


# ---- splits in one launch (fused_reduce: the last block of a column sums the partials) ----
FUSED_CASES = [  # (m, n, op, config, splits): more outputs than threads, one output a block, many splits
    (7, 50000, "N", SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, fused_reduce=True), 24),
    (301, 40001, "N", SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, row_groups=2, share_x=True,
                                  fused_reduce=True), 9),
    (1000, 130, "N", SgemvConfig(vec=4, warps_per_block=8, unroll=2, fused_reduce=True), 3),
    (4096, 77, "T", SgemvTConfig(32, 8, 4, 4, fused_reduce=True), 128),
    (1_000_003, 3, "T", SgemvTConfig(4, 64, 1, 4, fused_reduce=True), 1024),
    (2560, 1000, "T", SgemvTConfig(32, 8, 4, 8, fused_reduce=True), 5),
    (33, 300, "T", SgemvTConfig(8, 32, 4, 1, fused_reduce=True), 2),
]


def _fused_plan(m, n, op, cfg, splits):
    plan = plan_for(m, n, op, config=cfg, splits=splits)
    assert plan.fused and plan.splits == splits
    assert "one launch" in plan.describe() and len(plan._pack_once((torch.cuda.current_stream().cuda_stream, 1, 1))) == 1
    return plan


@pytest.mark.parametrize("m, n, op, cfg, splits", FUSED_CASES)
def test_fused_split_repeated_launches(m, n, op, cfg, splits):
    """Several launches in a row (the counters must be back at 0 after each, or a later launch
    finds no last block and y keeps its NaN), alpha/beta and beta == 0 over NaN, and the same
    inputs giving the same bits (the split order is fixed)."""
    plan = _fused_plan(m, n, op, cfg, splits)
    repeated_launches(plan, torch.randn(m, n, device="cuda"), op == "T")


@pytest.mark.parametrize("m, n, op, cfg, splits", [FUSED_CASES[0], FUSED_CASES[3], FUSED_CASES[5]])
def test_fused_split_graph_replay(m, n, op, cfg, splits):
    """A CUDA graph captured around the plan's first launch (its workspace and zeroed counters
    made during the capture), replayed with new x each time, then an ordinary launch."""
    cfg = cfg.replace(unroll=max(1, cfg.unroll // 2))  # a plan of its own: built inside the capture
    plan = plan_for(m, n, op, config=cfg, splits=splits)  # compiled outside the capture
    assert plan.fused
    graph_replays(plan, torch.randn(m, n, device="cuda"), op == "T")


@pytest.mark.parametrize("op", ["N", "T"])
def test_fused_split_nan_inf_and_strides(op):
    """A NaN and an Inf in A through the one-launch finish (exactly their outputs turn NaN / Inf),
    strided and backwards y with its gaps untouched."""
    m, n = (5, 30000) if op == "N" else (20000, 300)
    trans = op == "T"
    cfg = (SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, fused_reduce=True) if op == "N"
           else SgemvTConfig(32, 8, 4, 4, fused_reduce=True))
    nan_inf_through_strides(m, n, trans, cfg, incx=1)
    plan = plan_for(m, n, op, 1, -2, config=cfg)
    assert plan.fused and plan.splits > 1


@pytest.mark.parametrize("m, n, cfg, splits", [
    (16384, 128, SgemvTConfig(32, 8, 4, 8), 132),   # 125 rows a split: one step of 64, 61 rows left
    (2048, 6144, SgemvTConfig(32, 8, 4, 8), 5),     # 410 rows: 26 left
    (1000, 129, SgemvTConfig(32, 8, 4, 4), 3),      # a ragged strip (scalar loads) with a tail
    (1 << 20, 16, SgemvTConfig(4, 64, 4, 4), 528),  # 1986 rows: 194 left, 64 thread rows
    (70, 77, SgemvTConfig(32, 8, 4, 4), 1),         # fewer rows than one step: the tail alone
])
def test_t_tail_rows(m, n, cfg, splits):
    """Op T rows left after the unrolled loop (fewer than `unroll` a thread): one predicated
    step; alpha/beta, beta == 0 over NaN y, both reduce modes where split."""
    s = torch.cuda.current_stream().cuda_stream
    A = torch.randn(m, n, device="cuda")
    for c in (cfg, cfg.replace(fused_reduce=True)) if splits > 1 else (cfg,):
        plan = plan_for(m, n, "T", config=c, splits=splits)
        for alpha, beta in ((1.0, 0.0), (0.5, -2.0)):
            x = torch.randn(m, device="cuda")
            y0 = torch.randn(n, device="cuda")
            y = y0.clone() if beta else torch.full((n,), NAN, device="cuda")
            plan.launch(alpha, A.data_ptr(), n, x.data_ptr(), 1, beta, y.data_ptr(), 1, s)
            torch.cuda.synchronize()
            _close(y, _ref(A, x, True, alpha, beta, y0))


# ---- sm_90 thread-block clusters (SgemvTConfig.cluster: the splits meet in distributed shared memory) ----
def _sm90():
    return driver.device().arch == "sm_90"


CLUSTER_CASES = [  # (m, n, config): whole float4 strips, a ragged last strip with row tails, scalar strips
    (4096, 4096, SgemvTConfig(32, 8, 4, 8, cluster=8)),
    (2560, 7680, SgemvTConfig(32, 8, 4, 8, cluster=4)),
    (2500, 1000, SgemvTConfig(32, 8, 4, 4, cluster=4)),   # 625 rows a split: tails; 1000 = 7 strips + 104
    (999, 130, SgemvTConfig(32, 8, 4, 4, cluster=2)),     # a 2-column strip (scalar loads), odd rows
    (1000, 3, SgemvTConfig(4, 64, 1, 4, cluster=8)),      # vec 1: 4 columns a strip, 3 of them real
    (3000, 300, SgemvTConfig(32, 8, 4, 8, cluster=3)),    # not a power of two: shares of 43 columns
]


CLUSTER_N_CASES = [  # op N: one row a block of 4 warps; 4 rows a block of 8 warps (2 a row), odd sizes
    (7, 50000, SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, cluster=8)),
    (301, 4099, SgemvConfig(vec=4, warps_per_block=8, unroll=4, warps_per_row=2, cluster=4)),
    (2, 1 << 16, SgemvConfig(vec=4, warps_per_block=16, unroll=2, warps_per_row=16, cluster=8)),
]


def _cluster_plan(m, n, cfg, incx=1, incy=1, op="T"):
    if not _sm90():
        pytest.skip("thread-block clusters: sm_90 only")
    plan = plan_for(m, n, op, incx, incy, config=cfg)
    assert plan.cluster == cfg.cluster == plan.splits and not plan.fused
    assert "one cluster launch" in plan.describe()
    assert len(plan._pack_once((torch.cuda.current_stream().cuda_stream, incx, incy))) == 1  # no reduce kernel
    assert plan.workspace(0) == 0
    return plan


@pytest.mark.parametrize("m, n, op, cfg", [c[:2] + ("T",) + c[2:] for c in CLUSTER_CASES]
                         + [c[:2] + ("N",) + c[2:] for c in CLUSTER_N_CASES])
def test_cluster_repeated_launches(m, n, op, cfg):
    """Several launches in a row on one plan with fresh x, alpha/beta and beta == 0 over a NaN y,
    and the same inputs giving the same bits (the ranks are summed in a fixed order)."""
    plan = _cluster_plan(m, n, cfg, op=op)
    repeated_launches(plan, torch.randn(m, n, device="cuda"), op == "T")


def test_cluster_graph_replay():
    """A CUDA graph of a cluster launch, replayed with new x each time, then an ordinary launch."""
    m, n, cfg = 2048, 6144, SgemvTConfig(32, 8, 4, 8, cluster=4)
    graph_replays(_cluster_plan(m, n, cfg), torch.randn(m, n, device="cuda"), True)


def test_cluster_nan_inf_and_strides():
    """A NaN and an Inf in A through the cluster reduction (exactly their outputs turn NaN / Inf),
    backwards x, strided backwards y with its gaps untouched."""
    m, n, cfg = 20000, 300, SgemvTConfig(32, 8, 4, 4, cluster=8)
    _cluster_plan(m, n, cfg, -1, -2)
    nan_inf_through_strides(m, n, True, cfg, incx=-1)


@pytest.mark.parametrize("m, n, clusters", [(4096, 4096, 8), (2560, 7680, 4), (2048, 2048, 8), (2048, 6144, 4),
                                            (768, 768, 8)])
def test_cluster_through_sgemv(m, n, clusters):
    """The split op T shapes of the suite and the decode GEMMs: the rule takes no cluster (the
    cluster form measured no faster, docs/sgemv.md; at bd3ff88 the rule picked it and this test
    asserted that; since session 3 run 4 these shapes run the one-wave form without a split);
    the cluster config of the plain form given to regtile.sgemv, beta == 0 over a NaN y; sgemm's
    m == 1 route (the rule's plan)."""
    if not _sm90():
        pytest.skip("thread-block clusters: sm_90 only")
    plan = plan_for(m, n, "T")
    assert plan.cluster == 0 and plan.splits == 1 and plan.config.warp_reduce, plan.describe()
    cfg = SgemvTConfig(32, 8, 4, 8, cluster=clusters)
    _run(m, n, "T", config=cfg)
    assert plan_for(m, n, "T", config=cfg).cluster == clusters
    B = torch.randn(m, n, device="cuda")
    a = torch.randn(1, m, device="cuda")
    c = torch.full((1, n), NAN, device="cuda")
    assert gemv_for_gemm(1, n, m, a.data_ptr(), m, False, B.data_ptr(), n, False, c.data_ptr(), n, 1.0, 0.0,
                         torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    _close(c[0], (a.double() @ B.double())[0])

