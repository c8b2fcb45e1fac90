"""The few-vector kernels (codegen/fewvec_config.py, runtime/fewvec.py) on the GPU against float64
on fresh random data, outputs NaN-poisoned: small m (op T over B, op N over B^T with C transposed)
and small n (op N over A, op T over A^T with C transposed) for 2..16 vectors, odd and even k,
unaligned leading dimensions and pointers (the scalar paths), both layouts of the small operand,
splits with the reduce kernel, alpha/beta (beta == 0 ignoring C's NaNs), NaN/Inf reaching exactly
their outputs, repeated launches giving the same bits, a CUDA graph capture and replays, and
regtile.sgemm taking the route."""
import pytest

import regtile
from regtile.codegen.fewvec_config import FewVecNConfig, FewVecTConfig, route as fewvec_routing
from regtile.runtime.fewvec import fewvec_route, rule_config

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemm_checks import capture_and_replay  # noqa: E402
from gemv_checks import NAN, close, nonfinite_exact  # noqa: E402


def _stored(rows, cols, pad, shift, g):
    """A rows x cols row-major view with leading dimension cols + pad, starting `shift` floats
    after a 16-byte aligned base (shift 1: not 16-byte aligned)."""
    ld = cols + pad
    base = torch.randn(shift + rows * ld + 4, device="cuda", generator=g)
    return base[shift:shift + rows * ld].view(rows, ld)[:, :cols], ld


def _operands(m, n, k, trans_a, trans_b, pads, shift, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    pa, pb, pc = pads
    A, lda = _stored(k, m, pa, shift, g) if trans_a else _stored(m, k, pa, shift, g)
    B, ldb = _stored(n, k, pb, shift, g) if trans_b else _stored(k, n, pb, shift, g)
    C, ldc = _stored(m, n, pc, 0, g)
    return A, lda, B, ldb, C, ldc


def _ref(A, B, trans_a, trans_b, alpha, beta, C0):
    a = A.double().T if trans_a else A.double()
    b = B.double().T if trans_b else B.double()
    r = alpha * (a @ b)
    return r + beta * C0.double() if beta != 0.0 else r


def _launch(route, A, B, C, alpha, beta):
    route.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), alpha, beta, torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()


# m, n, k, trans_a, trans_b, (pad a, pad b, pad c), shift, config (None: the rule's), splits (None: the rule's)
CASES = [
    # small m: op T over B (k x n)
    (4, 1024, 4096, False, False, (0, 0, 0), 0, None, None),
    (2, 1000, 777, False, False, (3, 0, 5), 0, None, None),      # a ragged strip, odd k
    (3, 129, 1024, True, False, (1, 0, 0), 0, None, 3),          # A^T stored: strided vectors, splits
    (5, 515, 1001, False, False, (0, 1, 2), 0, None, 4),         # unaligned ldb: the scalar path
    (8, 4096, 512, False, False, (0, 0, 0), 1, None, 2),         # B not 16-byte aligned
    (13, 2048, 999, True, False, (2, 0, 3), 0, None, 5),
    (16, 4096, 1024, False, False, (0, 4, 0), 0, None, None),
    (16, 300, 2050, False, False, (0, 0, 0), 0, FewVecTConfig(16, 16, 8, 2), 7),
    (7, 64, 333, False, False, (0, 0, 0), 0, FewVecTConfig(7, 4, 16, 2), 3),   # narrow strips, a row tail
    (6, 1000, 1000, False, False, (0, 0, 0), 0, FewVecTConfig(6, 32, 1, 1), 2),  # one thread row
    # small n: op N over A (m x k)
    (1000, 4, 4096, False, False, (0, 0, 0), 0, None, None),
    (777, 2, 1023, False, False, (0, 3, 1), 0, None, None),      # odd k: scalars at the row ends
    (1000, 3, 1024, False, True, (0, 1, 0), 0, None, 4),         # B^T stored, splits
    (333, 7, 2050, False, False, (1, 0, 0), 0, None, 3),         # unaligned lda: the scalar path
    (1024, 8, 999, False, False, (0, 0, 2), 1, None, 2),         # A not 16-byte aligned
    (500, 16, 4096, False, True, (0, 5, 0), 0, None, None),
    (2049, 12, 513, False, False, (0, 0, 0), 0, None, 5),
    (130, 5, 5000, False, False, (0, 0, 0), 0, FewVecNConfig(5, 2, 3, 2), 6),  # a ragged last block
    (100, 9, 300, False, False, (0, 0, 0), 0, FewVecNConfig(9, 1, 1, 1), 1),
    # vector groups (op T) and rows sharing a warp (op N)
    (13, 2048, 999, False, False, (0, 0, 0), 0, FewVecTConfig(13, 32, 8, 4, min_blocks=2, vector_groups=2), 5),
    (9, 1000, 777, True, False, (1, 0, 0), 0, FewVecTConfig(9, 32, 8, 4, vector_groups=2), 3),  # 7 padding vectors
    (16, 300, 2050, False, False, (0, 3, 0), 0, FewVecTConfig(16, 16, 8, 2, vector_groups=4), 2),  # scalar path
    (1000, 3, 1024, False, True, (0, 0, 0), 0, FewVecNConfig(3, 4, 2, 2, lanes_per_row=8), 4),
    (333, 7, 2050, False, False, (1, 0, 0), 0, FewVecNConfig(7, 2, 2, 2, lanes_per_row=16), 3),  # unaligned lda
    (2049, 12, 513, False, False, (0, 0, 1), 0, FewVecNConfig(12, 4, 2, 2, min_blocks=4, lanes_per_row=8), 5),
    # 9-16 vectors through shared memory (smem_vectors; the rule's config where None): the scalar path on an
    # unaligned ldb and on B off 16 bytes, narrow strips (8 and 4 lanes: 4 and 8 thread rows a warp to shuffle),
    # a thread row a warp (32 lanes: nothing to shuffle), A^T stored, row tails, the rule's splits
    (16, 515, 1001, False, False, (0, 1, 2), 0, None, 4),
    (12, 4096, 512, False, False, (0, 0, 0), 1, None, 2),
    (16, 24, 3001, True, False, (2, 0, 0), 0, None, 5),
    (9, 1000, 777, False, False, (0, 0, 0), 0, None, None),
    (16, 4096, 4096, False, False, (0, 0, 0), 0, None, None),
    (14, 2000, 5000, False, False, (0, 0, 3), 0, FewVecTConfig(14, 32, 8, 2, min_blocks=1, smem_vectors=True), 3),
    (11, 300, 1500, False, False, (0, 0, 0), 0, FewVecTConfig(11, 4, 64, 2, min_blocks=1, smem_vectors=True), 2),
    # the first steps asked of L2 before the PDL wait (prefetch_steps): ragged ends, row tails, unaligned rows
    (13, 2048, 999, False, False, (0, 0, 0), 0, FewVecTConfig(13, 32, 8, 4, min_blocks=2, vector_groups=2,
                                                              prefetch_steps=4), 5),
    (5, 515, 1001, False, False, (0, 1, 2), 0, FewVecTConfig(5, 32, 8, 8, prefetch_steps=8), 4),
    (333, 7, 2050, False, False, (0, 0, 0), 0, FewVecNConfig(7, 2, 2, 2, min_blocks=4, lanes_per_row=16,
                                                             prefetch_steps=2), 3),
    (1000, 16, 1023, False, False, (1, 0, 0), 0, FewVecNConfig(16, 4, 2, 2, lanes_per_row=8, prefetch_steps=8), 2),
    # small m on B^T (NT, TT): op N over B^T's rows, C transposed (session 31)
    (4, 1024, 4096, False, True, (0, 0, 0), 0, None, None),
    (3, 129, 1024, True, True, (1, 2, 3), 0, None, 3),           # A^T's strided vectors, splits, C padded
    (5, 515, 1001, False, True, (0, 1, 2), 0, None, 4),          # unaligned ldb: the scalar path
    (12, 1000, 777, False, True, (0, 0, 2), 1, None, 2),         # B^T off 16 bytes
    (16, 4096, 4096, False, True, (0, 0, 0), 0, None, None),
    (7, 333, 2050, False, True, (0, 0, 0), 0, FewVecNConfig(7, 2, 2, 2, lanes_per_row=16, transposed_c=True), 3),
    # small n on A^T (TN, TT): op T over A^T's columns, C transposed
    (1000, 4, 4096, True, False, (0, 0, 0), 0, None, None),
    (777, 2, 1023, True, False, (3, 0, 1), 0, None, 3),          # a ragged strip, splits, C padded
    (1000, 3, 1024, True, True, (0, 1, 0), 0, None, 4),          # B^T's strided vectors
    (515, 5, 1001, True, False, (1, 0, 2), 0, None, 4),          # unaligned lda: the scalar path
    (2048, 16, 4096, True, False, (0, 0, 0), 0, None, None),     # through shared memory
    (2000, 14, 5000, True, False, (0, 0, 3), 0, FewVecTConfig(14, 32, 8, 2, min_blocks=1, smem_vectors=True,
                                                              transposed_c=True), 3),
    (1000, 9, 777, True, False, (1, 0, 0), 0, FewVecTConfig(9, 32, 8, 4, vector_groups=2, transposed_c=True), 3),
]


def _config(m, n, k, ta, lda, tb, ldb, cfg):
    """`cfg`, or the rule's kernel for the route the layouts give."""
    if cfg is not None:
        return cfg
    r = fewvec_routing(m, n, k, ta, lda, tb, ldb, force=True)
    return rule_config(r.rows, r.cols, r.op, r.vectors, transposed_c=r.transposed_c)


@pytest.mark.parametrize("m, n, k, ta, tb, pads, shift, cfg, splits", CASES)
def test_against_float64(m, n, k, ta, tb, pads, shift, cfg, splits):
    """alpha 1 beta 0 over a NaN C, alpha/beta over a random C, then the same inputs twice giving
    the same bits (fixed reduction orders); C's padding columns untouched."""
    A, lda, B, ldb, C, ldc = _operands(m, n, k, ta, tb, pads, shift, seed=m * 131 + n * 7 + k)
    route = fewvec_route(m, n, k, ta, lda, tb, ldb, ldc, config=_config(m, n, k, ta, lda, tb, ldb, cfg), splits=splits)
    assert route is not None
    if splits is not None:
        assert route.plan.splits == splits
    full = C.as_strided((m, ldc), (ldc, 1)) if pads[2] else None
    keep = full[:, n:].clone() if full is not None else None
    C.fill_(NAN)
    _launch(route, A, B, C, 1.0, 0.0)
    close(C, _ref(A, B, ta, tb, 1.0, 0.0, None))
    C0 = torch.randn(m, n, device="cuda")
    C.copy_(C0)
    _launch(route, A, B, C, -0.5, 2.0)
    close(C, _ref(A, B, ta, tb, -0.5, 2.0, C0))
    outs = []
    for _ in range(2):
        C.fill_(NAN)
        _launch(route, A, B, C, 1.0, 0.0)
        outs.append(C.clone())
    assert torch.equal(outs[0], outs[1])
    if keep is not None:
        assert torch.equal(full[:, n:], keep)


@pytest.mark.parametrize("m, n, k, splits", [(4, 1024, 2048, 1), (4, 1024, 2048, 3), (1000, 4, 2048, 1),
                                             (1000, 4, 2048, 4), (16, 1024, 2048, 1), (16, 1024, 2048, 3)])
@pytest.mark.parametrize("transposed", [False, True])
def test_nan_inf_reach_their_outputs(m, n, k, splits, transposed):
    """A NaN and an Inf in the big operand turn exactly their outputs (a column of C for small m,
    a row for small n) non-finite, through the staged vectors, the splits and the reduce; `transposed`:
    the big operand stored transposed (B^T, A^T), so C is written transposed."""
    ta, tb = (transposed and m > 16), (transposed and m <= 16)
    A, lda, B, ldb, C, ldc = _operands(m, n, k, ta, tb, (0, 0, 0), 0, seed=5)
    if m <= 16:
        at = (n // 3, k // 2), (n // 2, k // 3)
        big = B
    else:
        at = (k // 3, m // 2), (k // 2, m // 3)
        big = A
    if not transposed:
        at = tuple((j, i) for i, j in at)
    big[at[0]] = NAN
    big[at[1]] = float("inf")
    route = fewvec_route(m, n, k, ta, lda, tb, ldb, ldc, config=_config(m, n, k, ta, lda, tb, ldb, None),
                         splits=splits)
    assert route.config.transposed_c == transposed
    C0 = torch.randn(m, n, device="cuda")
    C.copy_(C0)
    _launch(route, A, B, C, 1.0, 0.5)
    want = _ref(A, B, ta, tb, 1.0, 0.5, C0)
    nonfinite_exact(C, want)
    assert int((~torch.isfinite(want)).sum()) == 2 * (m if m <= 16 else n)


@pytest.mark.parametrize("m, n, k", [(4, 8192, 2048), (12, 4096, 4096), (4096, 8, 2048), (2048, 2, 4096),
                                     (8192, 12, 2048), (65536, 16, 1024), (16, 4096, 4096), (13, 2048, 8192),
                                     (8, 80, 500000), (16, 96, 65536), (6, 4544, 4544)])
def test_sgemm_routes_and_graph_replays(m, n, k):
    """regtile.sgemm and regtile.Gemm take the few-vector route (the matrix above the route's
    bound), and a call captured into a CUDA graph replays on fresh operands.  8x80x500000, 16x96x65536 and
    6x4544x4544: op T strips past N on the float4 path (emit_sgemv.VEC_BLOCK_TEST)."""
    A = torch.randn(m, k, device="cuda")
    B = torch.randn(k, n, device="cuda")
    C = torch.full((m, n), NAN, device="cuda")
    plan = regtile.Gemm(m, n, k)
    plan(A, B, C)
    torch.cuda.synchronize()
    assert "fewvec" in plan.describe(), plan.describe()
    close(C, A.double() @ B.double())
    C.fill_(NAN)
    regtile.sgemm(A, B, C, alpha=2.0)
    torch.cuda.synchronize()
    close(C, 2.0 * (A.double() @ B.double()))
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, B, C, alpha=alpha, stream=s), A, B, C)


def test_sgemm_transposed_operands_and_column_major_c():
    """Layouts through regtile.sgemm: A^T for small m and B^T for small n take the route with
    strided vectors; a column-major C (the problem swapped) still computes the right product."""
    for m, n, k, ta, tb in [(8, 4096, 4096, True, False), (2048, 8, 1024, False, True)]:
        A = torch.randn(k, m, device="cuda").T if ta else torch.randn(m, k, device="cuda")
        B = torch.randn(n, k, device="cuda").T if tb else torch.randn(k, n, device="cuda")
        C = torch.full((m, n), NAN, device="cuda")
        plan = regtile.Gemm(m, n, k)  # the views' layouts make the kernel-level trans flags
        plan(A, B, C)
        torch.cuda.synchronize()
        assert "fewvec" in plan.describe(), plan.describe()
        close(C, A.double() @ B.double())
    A, B = torch.randn(2048, 1024, device="cuda"), torch.randn(1024, 6, device="cuda")
    C = torch.full((6, 2048), NAN, device="cuda").T
    regtile.sgemm(A, B, C)
    torch.cuda.synchronize()
    close(C, A.double() @ B.double())


@pytest.mark.parametrize("m, n, k, ta, tb", [(12, 4096, 4096, False, True), (2, 4096, 16384, False, True),
                                             (4096, 8, 4096, True, False), (4096, 16, 4096, True, True)])
def test_sgemm_routes_the_transposed_matrix_and_graph_replays(m, n, k, ta, tb):
    """nn.Linear's batched decode (a few rows of x against W^T: NT) and a weight gradient's few columns (TN) take
    the few-vector route over the transposed operand, C stored transposed (session 31), and replay in a graph."""
    A = torch.randn(k, m, device="cuda").T if ta else torch.randn(m, k, device="cuda")
    B = torch.randn(n, k, device="cuda").T if tb else torch.randn(k, n, device="cuda")
    C = torch.full((m, n), NAN, device="cuda")
    plan = regtile.Gemm(m, n, k)
    plan(A, B, C)
    torch.cuda.synchronize()
    assert "fewvec" in plan.describe() and "C transposed" in plan.describe(), plan.describe()
    close(C, A.double() @ B.double())
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, B, C, alpha=alpha, stream=s), A, B, C)


def test_route_leaves_the_members_their_shapes():
    """Small matrices stay on the family's members (below the route's bounds: 16 MB for 9-16 vectors op T)."""
    for m, n, k in [(16, 1024, 1024), (8, 1024, 1024), (1024, 16, 1024)]:
        plan = regtile.Gemm(m, n, k)
        A, B = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        C = torch.full((m, n), NAN, device="cuda")
        plan(A, B, C)
        torch.cuda.synchronize()
        assert "fewvec" not in plan.describe(), plan.describe()
        close(C, A.double() @ B.double())
