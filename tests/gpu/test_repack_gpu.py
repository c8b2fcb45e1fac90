"""Repacked plans on the GPU (codegen/repack.py, sessions 42-44): both operands' rows unaligned (NT, TT, NN), or B^T's
alone where m is large (NT, TT), copied into padded rows by the plan's copy kernel before the GEMM.  float64 references on fresh random data, C
NaN-poisoned; strided operands, alpha / beta, a second call on new data and a CUDA graph's replays (the copies are
launches of the graph)."""
import pytest

import regtile
from regtile.codegen.repack import padded, stored_rows
from regtile.runtime import plans

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemm_checks import capture_and_replay  # noqa: E402
torch.backends.cuda.matmul.allow_tf32 = False

M, N, K = 2049, 2047, 1025  # m n / (m + n) = 1024: repacked


def _check(C, opA, opB, alpha=1.0, beta=0.0, C0=None):
    """C against alpha op(A) op(B) + beta C0 in float64 (opA, opB: the m x k and k x n views)."""
    ref = alpha * (opA.double() @ opB.double())
    if C0 is not None:
        ref = ref + beta * C0.double()
    assert not torch.isnan(C).any(), "an element of C was not written"
    err = (torch.linalg.vector_norm(C.double() - ref) / torch.linalg.vector_norm(ref)).item()
    assert err <= 1e-5, err


def _operand(rows, cols, ld):
    """rows x cols float32, row-major with leading dimension ld (a view of a wider buffer where ld > cols)."""
    return torch.randn(rows, ld, device="cuda")[:, :cols]


@pytest.mark.parametrize("layout", ["NT", "TT", "NN"])
@pytest.mark.parametrize("pad_a, pad_b", [(0, 0), (2, 6)])
def test_unaligned_rows_run_on_padded_copies(layout, pad_a, pad_b):
    ta, tb = layout[0] == "T", layout[1] == "T"
    (rows_a, len_a), (rows_b, len_b) = stored_rows(M, N, K, ta, tb)
    lda, ldb = len_a + pad_a, len_b + pad_b
    plan = plans.GemmPlan(M, N, K, ta, tb, lda, ldb, N)
    assert plan.repack is not None, plan.describe()
    assert plan.repack.leading_dims(lda, ldb) == (padded(len_a), padded(len_b)), plan.describe()
    assert "repacked into padded rows first" in plan.describe()
    A, B = _operand(rows_a, len_a, lda), _operand(rows_b, len_b, ldb)  # as stored
    opA, opB = (A.t() if ta else A), (B.t() if tb else B)
    C0 = torch.randn(M, N, device="cuda")
    C = C0.clone()
    regtile.sgemm(A, B, C, alpha=0.75, beta=-0.5, transa=ta, transb=tb)
    torch.cuda.synchronize()
    _check(C, opA, opB, 0.75, -0.5, C0)
    A.copy_(torch.randn(rows_a, len_a, device="cuda"))  # new data, the same plan: the copies run again
    B.copy_(torch.randn(rows_b, len_b, device="cuda"))
    C = torch.full((M, N), float("nan"), device="cuda")
    regtile.sgemm(opA, opB, C)  # the transposed views: the same plan
    torch.cuda.synchronize()
    _check(C, opA, opB)


def test_a_repacked_plan_in_a_cuda_graph():
    A, Bt = torch.randn(M, K, device="cuda"), torch.randn(N, K, device="cuda")
    C = torch.full((M, N), float("nan"), device="cuda")
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, Bt.t(), C, alpha=alpha), A, Bt.t(), C)


def test_two_streams_copy_into_their_own_workspaces():
    """Each stream's call copies into its own buffers: two streams on one plan at once do not share the copies."""
    pairs = [(torch.randn(M, K, device="cuda"), torch.randn(N, K, device="cuda")) for _ in range(2)]
    outs = [torch.full((M, N), float("nan"), device="cuda") for _ in range(2)]
    streams = [torch.cuda.Stream() for _ in range(2)]
    for s in streams:  # the operands and the NaN fill were written on the current stream
        s.wait_stream(torch.cuda.current_stream())
    for _ in range(3):
        for (A, Bt), C, s in zip(pairs, outs, streams):
            with torch.cuda.stream(s):
                regtile.sgemm(A, Bt, C, transb=True)
    torch.cuda.synchronize()
    for (A, Bt), C in zip(pairs, outs):
        _check(C, A, Bt.t())


@pytest.mark.parametrize("layout", ["NT", "TT"])
def test_a_column_major_c(layout):
    """C column-major: the library runs C^T = op(B)^T op(A)^T (NT stays NT, TT becomes NN), repacked the same."""
    ta, tb = layout[0] == "T", layout[1] == "T"
    swapped = plans.GemmPlan(N, M, K, False, layout == "NT", K, K if layout == "NT" else M, M)  # C^T's problem
    assert swapped.repack is not None, swapped.describe()
    (rows_a, len_a), (rows_b, len_b) = stored_rows(M, N, K, ta, tb)
    A, B = torch.randn(rows_a, len_a, device="cuda"), torch.randn(rows_b, len_b, device="cuda")
    opA, opB = (A.t() if ta else A), (B.t() if tb else B)
    C = torch.full((N, M), float("nan"), device="cuda").t()
    regtile.sgemm(opA, opB, C)
    torch.cuda.synchronize()
    _check(C, opA, opB)


def test_more_rows_than_a_grids_y_could_count():
    """A's 70001 rows, more than a grid's y could count (session 42's kernel strode over them; since session 43 the
    copy's blocks are one 1-D grid over both operands' rows)."""
    m, n, k = 70001, 1027, 29  # m n / (m + n) = 1012; 2.1e9 multiply-adds, over REPACK_MIN_MACS
    plan = plans.GemmPlan(m, n, k, False, True, k, k, n)
    assert plan.repack is not None and plan.repack.a.rows == m, plan.describe()
    A, Bt = torch.randn(m, k, device="cuda"), torch.randn(n, k, device="cuda")
    C = torch.full((m, n), float("nan"), device="cuda")
    regtile.sgemm(A, Bt.t(), C)
    torch.cuda.synchronize()
    _check(C, A, Bt.t())


@pytest.mark.parametrize("which", ["A", "B"])
def test_one_operand_copied_the_other_read_in_place(which, monkeypatch):
    """A rule may name one operand (codegen/repack.REPACK_RULES): the copy kernel then has no rows for the
    other, and the GEMM reads that one in place, unaligned."""
    from regtile.codegen import repack
    monkeypatch.setattr(repack, "REPACK_RULES", {"TT": (repack.RepackRule(which, 0),)})
    (rows_a, len_a), (rows_b, len_b) = stored_rows(M, N, K, True, True)
    plan = plans.GemmPlan(M, N, K, True, True, len_a, len_b, N)
    assert (plan.repack.a is not None, plan.repack.b is not None) == (which == "A", which == "B"), plan.describe()
    A, B = torch.randn(rows_a, len_a, device="cuda"), torch.randn(rows_b, len_b, device="cuda")
    C = torch.full((M, N), float("nan"), device="cuda")
    plan.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), 1.0, 0.0, torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    _check(C, A.t(), B.t())


@pytest.mark.parametrize("layout", ["NT", "TT"])
def test_b_alone_where_m_is_large(layout):
    """The committed rule of B^T alone (m >= 3000, m n / (m + n) under 700; session 44) through regtile.sgemm: the plan
    copies B^T, reads A (unaligned in NT) in place, alpha / beta on a strided B."""
    m, n, k = 3001, 700, 1023
    ta = layout[0] == "T"
    (rows_a, len_a), (rows_b, len_b) = stored_rows(m, n, k, ta, True)
    plan = plans.GemmPlan(m, n, k, ta, True, len_a, len_b + 2, n)
    assert plan.repack is not None and plan.repack.a is None and plan.repack.b is not None, plan.describe()
    assert plan.repack.leading_dims(len_a, len_b + 2) == (len_a, padded(len_b))
    A, B = _operand(rows_a, len_a, len_a), _operand(rows_b, len_b, len_b + 2)
    opA, opB = (A.t() if ta else A), B.t()
    C0 = torch.randn(m, n, device="cuda")
    C = C0.clone()
    regtile.sgemm(opA, opB, C, alpha=1.5, beta=0.25)
    torch.cuda.synchronize()
    _check(C, opA, opB, 1.5, 0.25, C0)
