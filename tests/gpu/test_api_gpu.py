"""The library call path on the GPU (issue 19): layouts through views, column-major C,
batches with broadcast, CUDA graph capture and replay, user streams, zero sizes, the
torch op with autograd (a small MLP trained against torch), and cached calls that do no
compile and no allocation.  float64 references on fresh random data; outputs poisoned."""
import numpy as np
import pytest

import regtile
from regtile.runtime import compiler, driver, plan_store, plans

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemm_checks import capture_and_replay, rel_err as _err  # noqa: E402
torch.backends.cuda.matmul.allow_tf32 = False


def _within_terms(got, a, b, alpha=1.0, beta=0.0, c0=None):
    """Elementwise: |got - (alpha a b + beta c0)| <= 2e-6 x the size of the terms.  Where m = n = 1 the
    result is one scalar that may cancel to near zero, and a norm-relative error (_err) measures the
    cancellation, not regtile (it failed once on a 1 x 1 result of 0.0069, H100, session 14).  NaN
    (an unwritten, poisoned element) fails."""
    ref, mag = alpha * (a @ b), abs(alpha) * (a.abs() @ b.abs())
    if c0 is not None:
        ref, mag = ref + beta * c0.double(), mag + abs(beta) * c0.double().abs()
    return bool(((got.double() - ref).abs() <= 2e-6 * mag).all())


def _poison(shape, colmajor=False):
    if colmajor:
        return torch.full(tuple(reversed(shape)), float("nan"), device="cuda").t()
    return torch.full(shape, float("nan"), device="cuda")


def _operand(rows, cols, colmajor, pad=0):
    """A rows x cols float32 view: row-major (ld cols + pad) or column-major (a transposed
    view of a (cols, rows + pad) tensor)."""
    if colmajor:
        return torch.randn(cols, rows + pad, device="cuda")[:, :rows].t()
    return torch.randn(rows, cols + pad, device="cuda")[:, :cols]


LAYOUTS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("a_col, b_col", LAYOUTS)
@pytest.mark.parametrize("m, n, k", [(256, 256, 256), (1000, 777, 129), (33, 2049, 65), (2048, 2048, 512)])
def test_layouts_through_views(a_col, b_col, m, n, k):
    A, B = _operand(m, k, a_col, pad=3), _operand(k, n, b_col, pad=5)
    C = _poison((m, n))
    regtile.sgemm(A, B, C)
    torch.cuda.synchronize()
    assert _err(C, A.double() @ B.double()) <= 1e-5


@pytest.mark.parametrize("transa, transb", LAYOUTS)
def test_blas_trans_flags(transa, transb):
    m, n, k = 300, 200, 100
    A = torch.randn((k, m) if transa else (m, k), device="cuda")
    B = torch.randn((n, k) if transb else (k, n), device="cuda")
    C = torch.randn(m, n, device="cuda")
    C0 = C.clone()
    regtile.sgemm(A, B, C, alpha=0.5, beta=-1.5, transa=transa, transb=transb)
    ref = 0.5 * ((A.t() if transa else A).double() @ (B.t() if transb else B).double()) - 1.5 * C0.double()
    torch.cuda.synchronize()
    assert _err(C, ref) <= 1e-5


# TN's small 4x4 members run the cp.async ring of four stages where K holds more than 16 k-tiles (operand_forms.for_ring,
# session 37): aligned rows (16-byte cp.asyncs), unaligned A^T and B (the float copies' 4-byte ones), ragged edges, C's
# unaligned rows staged (8192x30x1024; 16384x30x4096 was the case until session 41's skinny-n stand-in took it, and
# 16384x30x2048 until session 42's: layout_choice.skinny_stand_in, from 48 MiB of A in TN).
TN_RING = [(512, 512, 512), (127, 511, 257), (49, 1280, 320), (333, 777, 999), (1000, 90, 1025), (8192, 30, 1024)]


@pytest.mark.parametrize("m, n, k", TN_RING)
def test_tn_ring_plans(m, n, k):
    plan = plans.GemmPlan(m, n, k, True, False, m, n, n)
    assert plan.config.stages == 4, plan.describe()
    A, B = torch.randn(k, m, device="cuda"), torch.randn(k, n, device="cuda")
    C = torch.randn(m, n, device="cuda")
    C0 = C.clone()
    regtile.sgemm(A, B, C, alpha=0.5, beta=-1.5, transa=True)
    torch.cuda.synchronize()
    assert _within_terms(C, A.t().double(), B.double(), 0.5, -1.5, C0)
    C = _poison((m, n))
    regtile.sgemm(A, B, C, transa=True)
    torch.cuda.synchronize()
    assert _within_terms(C, A.t().double(), B.double())


@pytest.mark.parametrize("ta, tb, m, n, k", [
    (False, True, 10240, 28, 2560), (True, False, 10240, 28, 2560), (True, True, 10240, 28, 2560),
    (False, True, 6144, 30, 1537), (True, True, 6144, 30, 1537), (True, False, 16384, 21, 769)])
def test_a_tall_skinny_n_shape_with_a_big_a_runs_the_skinny_n_stand_in(ta, tb, m, n, k):
    """Sessions 41-42 (layout_choice.skinny_stand_in): in NT, TN and TT a tall skinny-n shape with a big A runs the
    layout's skinny-n member (skinny-n32 on B^T only, skinny-n32-256 on A^T) through regtile.sgemm, every element
    right: long K, and session 42's bounds with unaligned rows (K of 1537 and 769, n of 30 and 21)."""
    plan = plans.GemmPlan(m, n, k, ta, tb, m if ta else k, k if tb else n, n)
    assert (plan.config.bm, plan.config.bn) == ((256, 32) if ta else (128, 32)), plan.describe()
    A = torch.randn(k, m, device="cuda") if ta else torch.randn(m, k, device="cuda")
    B = torch.randn(n, k, device="cuda") if tb else torch.randn(k, n, device="cuda")
    C = _poison((m, n))
    regtile.sgemm(A, B, C, transa=ta, transb=tb)
    torch.cuda.synchronize()
    assert _within_terms(C, (A.t() if ta else A).double(), (B.t() if tb else B).double())


def test_tn_ring_column_major_c_and_graphs():
    """The ring reached the other ways: a column-major C with transa (C^T = B^T A^T, TN again on the swapped problem),
    and a column-major A without transa (TN) captured in a CUDA graph and replayed."""
    m, n, k = 511, 257, 1025
    assert plans.GemmPlan(n, m, k, True, False, n, m, m).config.stages == 4  # the swapped problem's plan
    A, B = torch.randn(k, m, device="cuda"), torch.randn(k, n, device="cuda")
    C = _poison((m, n), colmajor=True)
    regtile.sgemm(A, B, C, transa=True)
    torch.cuda.synchronize()
    assert _within_terms(C, A.t().double(), B.double())
    A, B, C = torch.randn(k, m, device="cuda").t(), torch.randn(k, n, device="cuda"), _poison((m, n))
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, B, C, alpha=alpha), A, B, C)


@pytest.mark.parametrize("m, n, k, colmajor", [(513, 257, 129, True), (300, 500, 70, False)])
def test_column_major_c(m, n, k, colmajor):
    """A column-major C: C^T = B^T A^T, the kernel on swapped operands (with column-major operands,
    the N,N kernel), no copy."""
    A, B = _operand(m, k, colmajor), _operand(k, n, colmajor)
    C = _poison((m, n), colmajor=True)
    regtile.sgemm(A, B, C)
    torch.cuda.synchronize()
    assert _err(C, A.double() @ B.double()) <= 1e-5


@pytest.mark.parametrize("batch, m, n, k", [(8, 128, 128, 128), (3, 100, 70, 33), (4, 1024, 1024, 64)])
@pytest.mark.parametrize("broadcast", [None, "A", "B"])
def test_batched(batch, m, n, k, broadcast):
    A = torch.randn(1 if broadcast == "A" else batch, m, k, device="cuda")
    B = torch.randn(1 if broadcast == "B" else batch, k, n, device="cuda")
    if broadcast == "A":
        A = A.expand(batch, m, k)  # batch stride 0
    C = _poison((batch, m, n))
    regtile.sgemm(A, B, C)
    torch.cuda.synchronize()
    assert _err(C, torch.matmul(A.double(), B.double())) <= 1e-5


def test_batched_2d_operand_broadcasts():
    A = torch.randn(5, 64, 32, device="cuda")
    W = torch.randn(32, 48, device="cuda")
    C = _poison((5, 64, 48))
    regtile.sgemm(A, W, C)
    torch.cuda.synchronize()
    assert _err(C, A.double() @ W.double()) <= 1e-5


def test_graph_capture_and_replay():
    m = n = k = 512
    A, B, C = (torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), torch.zeros(m, n, device="cuda"))
    # the warm-up on the capture stream makes the plan and its workspace (torch's current stream)
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, B, C, alpha=alpha), A, B, C)


def test_graph_capture_on_a_fresh_stream_without_warm_up():
    """The first call on a stream during a capture: its workspace is allocated outside the graph."""
    m, n, k = 384, 640, 200  # a shape no other test plans
    A, B, C = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), torch.zeros(m, n, device="cuda")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        regtile.sgemm(A, B, C)
    C.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    assert _err(C, A.double() @ B.double()) <= 1e-5


def test_a_captured_plan_outlives_the_cache():
    """A graph points into its plan's workspace and work lists: evicting the plan from
    regtile.sgemm's cache must free neither (runtime/plan_store.captured_plans pins it)."""
    import gc
    import weakref
    m, n, k = 1536, 1280, 768  # a shape no other test plans; its plan owns device state (asserted)
    A, B, C = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), torch.zeros(m, n, device="cuda")
    before = len(plan_store.captured_plans)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        regtile.sgemm(A, B, C)
    assert len(plan_store.captured_plans) == before + 1, "the captured plan was not pinned"
    plan = plan_store.captured_plans[-1]
    assert (plan.m, plan.n, plan.k) == (m, n, k)
    ref = weakref.ref(plan)
    del plan
    regtile.runtime.gemm.clear_caches()
    gc.collect()
    assert ref() is not None
    torch.empty(64 << 20, device="cuda").fill_(float("nan"))  # reuse freed memory, if any was freed
    for _ in range(2):
        A.copy_(torch.randn(m, k, device="cuda"))
        C.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        assert _err(C, A.double() @ B.double()) <= 1e-5


def test_user_streams_run_concurrently_with_their_own_workspaces():
    m = n = k = 1024
    streams = [torch.cuda.Stream() for _ in range(3)]
    ops = [(torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), _poison((m, n))) for _ in streams]
    torch.cuda.synchronize()
    for _ in range(3):
        for s, (A, B, C) in zip(streams, ops):
            regtile.sgemm(A, B, C, stream=s)  # an explicit torch.cuda.Stream
    for s in streams:
        s.synchronize()
    for A, B, C in ops:
        assert _err(C, A.double() @ B.double()) <= 1e-5


def test_current_torch_stream_is_the_default():
    A, B, C = torch.randn(256, 256, device="cuda"), torch.randn(256, 256, device="cuda"), _poison((256, 256))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        regtile.sgemm(A, B, C)
        C2 = C * 2  # ordered after the GEMM on the same stream
    s.synchronize()
    assert _err(C2, 2 * (A.double() @ B.double())) <= 1e-5


def test_parameters_with_requires_grad_are_accepted():
    W = torch.nn.Parameter(torch.randn(64, 32, device="cuda"))
    X = torch.randn(32, 16, device="cuda")
    C = _poison((64, 16))
    regtile.sgemm(W, X, C)
    torch.cuda.synchronize()
    assert _err(C, W.detach().double() @ X.double()) <= 1e-5


@pytest.mark.parametrize("m, n, k", [(0, 5, 7), (5, 0, 7), (0, 0, 0)])
def test_zero_m_or_n_is_a_no_op(m, n, k):
    A, B, C = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), torch.randn(m, n, device="cuda")
    assert regtile.sgemm(A, B, C, beta=0.5) is C


@pytest.mark.parametrize("beta", [0.0, 1.0, -2.5])
def test_k_zero_scales_c(beta):
    A, B = torch.randn(70, 0, device="cuda"), torch.randn(0, 90, device="cuda")
    C = torch.randn(70, 90, device="cuda")
    ref = beta * C.double() if beta else torch.zeros(70, 90, dtype=torch.float64, device="cuda")
    if beta == 0.0:
        C.fill_(float("nan"))  # beta 0: C is not read
    regtile.sgemm(A, B, C, beta=beta)
    torch.cuda.synchronize()
    assert torch.allclose(C.double(), ref)


@pytest.mark.parametrize("beta", [0.0, 3.0])
def test_host_zero_sizes(beta):
    C = np.ones((4, 3), np.float32)
    out = regtile.sgemm(np.zeros((4, 0), np.float32), np.zeros((0, 3), np.float32), C, beta=beta)
    assert out is C and np.all(C == beta)
    assert regtile.sgemm(np.zeros((0, 5), np.float32), np.zeros((5, 3), np.float32)).shape == (0, 3)


def test_host_fortran_order_everything():
    rng = np.random.default_rng()
    A = np.asfortranarray(rng.standard_normal((130, 70), dtype=np.float32))
    B = np.asfortranarray(rng.standard_normal((70, 90), dtype=np.float32))
    C = np.asfortranarray(rng.standard_normal((130, 90), dtype=np.float32))
    ref = 1.5 * (A.astype(np.float64) @ B) + 0.5 * C
    out = regtile.sgemm(A, B, C, alpha=1.5, beta=0.5)
    assert out is C and np.linalg.norm(C - ref) / np.linalg.norm(ref) <= 1e-5


def test_host_transposed_views():
    rng = np.random.default_rng()
    A = rng.standard_normal((70, 130), dtype=np.float32).T
    B = rng.standard_normal((90, 70), dtype=np.float32).T
    out = regtile.sgemm(A, B)
    ref = A.astype(np.float64) @ B
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) <= 1e-5


def test_host_batched():
    rng = np.random.default_rng()
    A = rng.standard_normal((3, 40, 30), dtype=np.float32)
    B = rng.standard_normal((30, 20), dtype=np.float32)
    out = regtile.sgemm(A, B)
    ref = A.astype(np.float64) @ B
    assert out.shape == (3, 40, 20) and np.linalg.norm(out - ref) / np.linalg.norm(ref) <= 1e-5


def test_cached_call_compiles_and_allocates_nothing(monkeypatch):
    A, B, C = torch.randn(200, 300, device="cuda"), torch.randn(300, 400, device="cuda"), _poison((200, 400))
    regtile.sgemm(A, B, C)
    calls = {"compile": 0, "alloc": 0}
    real_compile, real_init = compiler.compile_config, driver.DeviceBuffer.__init__

    def counting_compile(*a, **k):
        calls["compile"] += 1
        return real_compile(*a, **k)

    def counting_init(self, *a, **k):
        calls["alloc"] += 1
        real_init(self, *a, **k)
    monkeypatch.setattr(compiler, "compile_config", counting_compile)
    monkeypatch.setattr(driver.DeviceBuffer, "__init__", counting_init)
    for _ in range(3):
        regtile.sgemm(A, B, C)
        regtile.sgemm(A.clone(), B, C)  # new pointers, same metadata
    torch.cuda.synchronize()
    assert calls == {"compile": 0, "alloc": 0}
    assert _err(C, A.double() @ B.double()) <= 1e-5


def test_gemm_object_and_its_checks():
    plan = regtile.Gemm(128, 96, 64)
    A, B, C = torch.randn(128, 64, device="cuda"), torch.randn(64, 96, device="cuda"), _poison((128, 96))
    assert plan(A, B, C) is C
    torch.cuda.synchronize()
    assert _err(C, A.double() @ B.double()) <= 1e-5
    with pytest.raises(regtile.InputError, match="this plan is 128x96x64"):
        plan(A[:100], B, C[:100])


def test_torch_op_forward_and_compile_without_graph_breaks():
    x, w = torch.randn(64, 128, device="cuda"), torch.randn(128, 32, device="cuda")
    y = regtile.torch.mm(x, w)
    torch.cuda.synchronize()
    assert _err(y, x.double() @ w.double()) <= 1e-5
    explain = torch._dynamo.explain(lambda a, b: torch.relu(regtile.torch.mm(a, b)))(x, w)
    assert explain.graph_break_count == 0
    f = torch.compile(lambda a, b: torch.relu(regtile.torch.mm(a, b)))
    assert _err(f(x, w), torch.relu(x.double() @ w.double())) <= 1e-5


def test_torch_op_gradients():
    x = torch.randn(48, 80, device="cuda", requires_grad=True)
    w = torch.randn(80, 24, device="cuda", requires_grad=True)
    regtile.torch.mm(x, w).square().sum().backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    (x.double() @ w.double()).square().sum().backward()
    assert _err(gx, x.grad) <= 1e-5 and _err(gw, w.grad) <= 1e-5


def test_mlp_trains_like_torch():
    """A two-layer MLP trained a few steps with regtile's linear matches torch's losses."""
    torch.manual_seed(0)
    X, Y = torch.randn(256, 64, device="cuda"), torch.randn(256, 16, device="cuda")

    def make():
        torch.manual_seed(1)
        return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 16)).cuda()

    def train(model, use_regtile):
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        losses = []
        for _ in range(8):
            h = X
            for layer in model:
                if isinstance(layer, torch.nn.Linear) and use_regtile:
                    h = regtile.torch.linear(h, layer.weight, layer.bias)
                else:
                    h = layer(h)
            loss = torch.nn.functional.mse_loss(h, Y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    ours, theirs = train(make(), True), train(make(), False)
    assert np.allclose(ours, theirs, rtol=1e-4), (ours, theirs)


# ---- m == 1 / n == 1: the GEMV family through sgemm's cached plans -------------------------
@pytest.mark.parametrize("transa, transb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m, n, k", [(1, 7680, 2560), (1, 333, 1001), (4097, 1, 515), (1, 1, 64), (1, 64, 1)])
def test_gemv_route_all_layouts(m, n, k, transa, transb):
    """op(A) op(B) with one row or one column of C, every layout through the BLAS flags and
    views, alpha and beta: the plan runs the SGEMV family (describe says so)."""
    A = torch.randn((k, m) if transa else (m, k), device="cuda")
    B = torch.randn((n, k) if transb else (k, n), device="cuda")
    C = torch.randn(m, n, device="cuda")
    C0 = C.clone()
    regtile.sgemm(A, B, C, alpha=0.75, beta=-0.5, transa=transa, transb=transb)
    a, b = (A.t() if transa else A).double(), (B.t() if transb else B).double()
    torch.cuda.synchronize()
    assert _within_terms(C, a, b, 0.75, -0.5, C0), (C, 0.75 * (a @ b) - 0.5 * C0.double())
    opA, opB = (A.t() if transa else A), (B.t() if transb else B)
    D = _poison((m, n))
    regtile.sgemm(opA, opB, D)  # the same product through transposed views
    torch.cuda.synchronize()
    assert _within_terms(D, a, b), (D, a @ b)
    described = [p.describe() for p in plans.plan_cache.values() if (p.m, p.n, p.k) in ((m, n, k), (n, m, k))]
    assert described and all("GEMV" in d for d in described), described


@pytest.mark.parametrize("m, n, k", [(1, 4096, 4096), (2048, 1, 700)])
def test_gemv_route_column_major_c_and_cached_calls(m, n, k, monkeypatch):
    A, B = _operand(m, k, True, pad=3), _operand(k, n, False, pad=1)
    C = _poison((m, n), colmajor=True)
    regtile.sgemm(A, B, C)
    torch.cuda.synchronize()
    assert _err(C, A.double() @ B.double()) <= 1e-5
    monkeypatch.setattr(compiler, "compile_config", lambda *a, **k: pytest.fail("a cached GEMV call compiled"))
    for _ in range(3):
        C.fill_(float("nan"))
        A2 = _operand(m, k, True, pad=3)
        regtile.sgemm(A2, B, C)
    torch.cuda.synchronize()
    assert _err(C, A2.double() @ B.double()) <= 1e-5


def test_gemv_route_through_gemm_object_and_host():
    plan = regtile.Gemm(1, 512, 768, transb=True)
    x, W = torch.randn(1, 768, device="cuda"), torch.randn(512, 768, device="cuda")
    C = _poison((1, 512))
    plan(x, W, C)
    torch.cuda.synchronize()
    assert _err(C, x.double() @ W.double().t()) <= 1e-5
    assert "GEMV" in plan.describe()
    rng = np.random.default_rng()
    for a, b in ((rng.standard_normal((1, 300), dtype=np.float32), rng.standard_normal((300, 200), dtype=np.float32)),
                 (rng.standard_normal((400, 300), dtype=np.float32), np.asfortranarray(rng.standard_normal((300, 1), dtype=np.float32))),
                 (rng.standard_normal((300, 1), dtype=np.float32).T, rng.standard_normal((200, 300), dtype=np.float32).T)):
        out = regtile.sgemm(a, b)
        ref = a.astype(np.float64) @ b
        assert np.linalg.norm(out - ref) / np.linalg.norm(ref) <= 1e-5


def test_gemv_route_through_the_torch_op():
    x, w = torch.randn(1, 1024, device="cuda", requires_grad=True), torch.randn(2048, 1024, device="cuda", requires_grad=True)
    y = regtile.torch.linear(x, w)  # x @ w^T: a GEMV on w
    torch.cuda.synchronize()
    assert _err(y.detach(), x.detach().double() @ w.detach().double().t()) <= 1e-5
    g = torch.randn_like(y)
    y.backward(g)  # dx = g @ w (1 row: GEMV), dw = g^T x (an outer product, k = 1)
    torch.cuda.synchronize()
    assert _err(x.grad, g.double() @ w.detach().double()) <= 1e-5
    assert _err(w.grad, g.double().t() @ x.detach().double()) <= 1e-5


@pytest.mark.parametrize("batch, m, n, k", [(64, 128, 128, 128), (16, 512, 512, 512), (8, 1024, 1024, 64),
                                             (5, 1, 300, 200), (7, 300, 5, 200), (48, 512, 64, 512),
                                             (3, 1000, 1000, 1000), (200, 77, 77, 64), (24, 257, 257, 64),
                                             (16, 1000, 77, 40), (32, 8, 128, 2048), (40, 1, 130, 700)])
@pytest.mark.parametrize("ta, tb", [(False, False), (True, True), (False, True), (True, False)])
def test_batched_choice_every_layout(batch, m, n, k, ta, tb):
    """The batched member choose_batched picks (codegen/batch_choice.py: skinny-m16 / skinny-n16, the k16 tiles,
    128x256, 128x128 (B^T, its edge clamp), 64x64, 32x64 and 32x32 among these shapes, ragged ones too; decode's
    batches split over K: 32 x 8x128x2048 in 16, 40 x 1x130x700 in 4), in every layout, against float64."""
    A = torch.randn(batch, k, m, device="cuda").transpose(1, 2) if ta else torch.randn(batch, m, k, device="cuda")
    B = torch.randn(batch, n, k, device="cuda").transpose(1, 2) if tb else torch.randn(batch, k, n, device="cuda")
    C = _poison((batch, m, n))
    regtile.sgemm(A, B, C)
    torch.cuda.synchronize()
    assert _err(C, torch.matmul(A.double(), B.double())) <= 1e-5
    made = [p for p in plans.plan_cache.values() if (p.m, p.n, p.k, p.batch) == (m, n, k, batch)]
    assert made and all(p.config.batched for p in made)
    gemms = [p for p in made if p.gemv is None]  # m == 1 or n == 1: a batched GEMV where batched_gemv takes it
    assert all(not p.config.stream_k for p in gemms)
    splits = {(32, 8, 128, 2048): 16, (40, 1, 130, 700): 4}.get((batch, m, n, k), 1)
    assert all(p.config.split_k == splits for p in gemms)


def test_batched_split_with_beta_a_broadcast_operand_and_a_column_major_c():
    """Decode's batch split over K (16 splits) where C is read (beta), A is one matrix for every entry (batch stride
    0) and C is column-major (the problem swapped: op(B)^T op(A)^T), against float64."""
    batch, m, n, k = 32, 8, 128, 2048
    A = torch.randn(1, m, k, device="cuda").expand(batch, m, k)
    B = torch.randn(batch, k, n, device="cuda")
    C0 = torch.randn(batch, m, n, device="cuda")
    C = C0.clone()
    regtile.sgemm(A, B, C, alpha=0.5, beta=0.25)
    Ct = torch.randn(batch, n, m, device="cuda").transpose(1, 2)  # column-major entries
    Ct0 = Ct.clone()
    regtile.sgemm(A, B, Ct, alpha=0.5, beta=0.25)
    torch.cuda.synchronize()
    ref = 0.5 * torch.matmul(A.double(), B.double())
    assert _err(C, ref + 0.25 * C0.double()) <= 1e-5
    assert _err(Ct, ref + 0.25 * Ct0.double()) <= 1e-5


def test_sgemv_cached_torch_path_matches_the_full_path():
    """regtile.sgemv's torch fast path (metadata seen before): same results, strided x and y,
    negative increments, the current stream."""
    A = torch.randn(700, 900, device="cuda")
    x, y = torch.randn(2 * 900, device="cuda"), torch.randn(3 * 700, device="cuda")
    for _ in range(3):
        x.normal_()
        y0 = y.clone()
        regtile.sgemv(A, x, y, alpha=1.5, beta=0.5, incx=-2, incy=3)
        xs = x[::2].flip(0).double()
        ref = y0.double().clone()
        ref[::3] = 1.5 * (A.double() @ xs) + 0.5 * y0[::3].double()
        torch.cuda.synchronize()
        assert _err(y, ref) <= 1e-5
