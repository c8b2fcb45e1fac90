"""Batches of m == 1 / n == 1 GEMMs as one batched GEMV launch (codegen/batch_choice.batched_gemv,
sgemv_config.BATCHED_DOC): regtile.sgemm's route in every layout, ragged rows, broadcast operands, beta, CUDA
graphs, and the kernel forms the rule chooses among, on ragged and aligned rows, against
float64 on fresh random data with C NaN-poisoned (an unwritten element fails)."""
import pytest

import regtile
from regtile.codegen.batch_choice import batched_gemv
from regtile.codegen.sgemv_config import SgemvConfig, SgemvTConfig
from regtile.runtime import driver, plans
from regtile.runtime.gemv import gemv_matrix, gemv_route

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemm_checks import capture_and_replay, rel_err as _err  # noqa: E402
torch.backends.cuda.matmul.allow_tf32 = False


def _operands(batch, m, n, k, ta, tb):
    A = torch.randn(batch, k, m, device="cuda").transpose(1, 2) if ta else torch.randn(batch, m, k, device="cuda")
    B = torch.randn(batch, n, k, device="cuda").transpose(1, 2) if tb else torch.randn(batch, k, n, device="cuda")
    return A, B


def _plans_of(m, n, k, batch):
    return [p for p in plans.plan_cache.values() if (p.m, p.n, p.k, p.batch) == (m, n, k, batch)]


# decode shapes (head dims 64 / 128, ragged ones), n == 1 batches, and one the rule leaves to the GEMM members
SHAPES = [(256, 1, 1024, 128), (256, 1, 128, 1024), (96, 1, 77, 64), (96, 1, 64, 77), (300, 1, 130, 33),
          (40, 1, 80, 300), (24, 1, 96, 1030),
          (64, 333, 1, 96), (40, 1000, 1, 517), (5, 1, 300, 200)]


@pytest.mark.parametrize("batch, m, n, k", SHAPES)
@pytest.mark.parametrize("ta, tb", [(False, False), (True, True), (False, True), (True, False)])
def test_batched_gemv_route_every_layout(batch, m, n, k, ta, tb):
    A, B = _operands(batch, m, n, k, ta, tb)
    C = torch.full((batch, m, n), float("nan"), device="cuda")
    regtile.sgemm(A, B, C)
    torch.cuda.synchronize()
    assert _err(C, torch.matmul(A.double(), B.double())) <= 1e-5
    made = _plans_of(m, n, k, batch)
    assert made
    for p in made:
        rule = batched_gemv(*gemv_matrix(m, n, k, p.trans_a, p.trans_b), batch, driver.device().sm_count)
        assert (p.gemv is not None) == (rule is not None), p.describe()
        if p.gemv is not None:
            assert p.gemv.plan.batch == batch and p.gemv.plan.grid[1:] == (1, batch) and p.config.batched


@pytest.mark.parametrize("tb", [False, True])
def test_batched_gemv_beta_and_broadcast_operands(tb):
    """C read (beta); the vector broadcast (one query for every entry: batch stride 0), or the matrix."""
    batch, n, k = 200, 512, 64
    x = torch.randn(1, 1, k, device="cuda").expand(batch, 1, k)
    B = torch.randn(batch, n, k, device="cuda").transpose(1, 2) if tb else torch.randn(batch, k, n, device="cuda")
    C0 = torch.randn(batch, 1, n, device="cuda")
    C = C0.clone()
    regtile.sgemm(x, B, C, alpha=0.5, beta=0.25)
    Bb = B[:1].expand(batch, k, n)
    xs = torch.randn(batch, 1, k, device="cuda")
    D = torch.full((batch, 1, n), float("nan"), device="cuda")
    regtile.sgemm(xs, Bb, D)
    torch.cuda.synchronize()
    assert _err(C, 0.5 * torch.matmul(x.double(), B.double()) + 0.25 * C0.double()) <= 1e-5
    assert _err(D, torch.matmul(xs.double(), Bb.double())) <= 1e-5
    assert any(p.gemv is not None for p in _plans_of(1, n, k, batch))


@pytest.mark.parametrize("tb", [False, True])
def test_batched_gemv_strided_vector_and_strided_c(tb):
    """x at a stride (every other float of a wider row: incx 2 through the vector's transposed view) and a C whose
    row is strided (seen as column-major: the problem swapped to C^T = op(B)^T op(A)^T, n == 1), batched."""
    batch, n, k = 192, 640, 96
    Q = torch.randn(batch, 1, 2 * k, device="cuda")
    x = Q[:, :, ::2]  # (batch, 1, k), unit stride nowhere along k
    B = torch.randn(batch, n, k, device="cuda").transpose(1, 2) if tb else torch.randn(batch, k, n, device="cuda")
    Y = torch.full((batch, 1, 3 * n), float("nan"), device="cuda")
    C = Y[:, :, ::3]  # y at stride 3
    regtile.sgemm(x, B, C)
    torch.cuda.synchronize()
    assert _err(C, torch.matmul(x.double(), B.double())) <= 1e-5
    assert torch.isnan(Y[:, :, 1::3]).all()  # nothing written between y's elements
    assert any(p.gemv is not None and p.gemv.plan.batch == batch for p in plans.plan_cache.values()
               if p.batch == batch and p.k == k)


def test_batched_gemv_graph_capture_and_replay():
    batch, n, k = 128, 1024, 128
    A = torch.randn(batch, 1, k, device="cuda")
    B = torch.randn(batch, n, k, device="cuda")
    C = torch.full((batch, 1, n), float("nan"), device="cuda")
    Bt = B.transpose(1, 2)
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, Bt, C, alpha=alpha), A, Bt, C)
    assert any(p.gemv is not None for p in _plans_of(1, n, k, batch))


# every kernel form the rule picks and the session-46 A/B chose among, on a ragged and an aligned decode shape
FORMS = [SgemvConfig(1, 4, 4, 1, row_groups=4), SgemvConfig(2, 4, 4, 1, row_groups=2),
         SgemvConfig(4, 4, 4, 2, row_groups=2), SgemvConfig(1, 4, 8, 1, row_groups=2), SgemvConfig(1, 4, 4, 4),
         SgemvConfig(1, 4, 4, 8), SgemvTConfig(32, 8, 4, 8), SgemvTConfig(32, 8, 4, 4), SgemvTConfig(16, 16, 4, 8),
         SgemvTConfig(16, 16, 4, 8, warp_reduce=True), SgemvTConfig(16, 16, 4, 4, warp_reduce=True),
         SgemvTConfig(8, 32, 4, 8, warp_reduce=True),
         SgemvTConfig(8, 32, 4, 4, warp_reduce=True), SgemvTConfig(4, 64, 4, 4, warp_reduce=True),
         SgemvTConfig(4, 64, 4, 8, warp_reduce=True),
         SgemvTConfig(8, 64, 4, 8, warp_reduce=True)]


@pytest.mark.parametrize("cfg", FORMS, ids=lambda c: c.describe()[:60].replace(" ", "_"))
@pytest.mark.parametrize("batch, n, k", [(37, 515, 128), (20, 64, 1030)])
def test_batched_gemv_forms(cfg, batch, n, k):
    """A form through gemv_route with that config: m == 1 in NT (op N over B^T's rows) or NN (op T over B), with
    strides that are not multiples of 4 where the rows are ragged (the scalar paths)."""
    op_n = isinstance(cfg, SgemvConfig)
    A = torch.randn(batch, 1, k, device="cuda")
    B = torch.randn(batch, n, k, device="cuda").transpose(1, 2) if op_n else torch.randn(batch, k, n, device="cuda")
    C = torch.full((batch, 1, n), float("nan"), device="cuda")
    sa, sb, sc = A.stride(0), B.stride(0), C.stride(0)
    route = gemv_route(1, n, k, False, k, op_n, B.stride(2) if op_n else B.stride(1), n, batch=batch,
                       strides=(sa, sb, sc), config=cfg.replace(batched=True))
    route.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), 1.0, 0.0, 0)
    torch.cuda.synchronize()
    assert _err(C, torch.matmul(A.double(), B.double())) <= 1e-5
