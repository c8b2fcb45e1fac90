"""Repacked NT plans on the GPU (codegen/repack.py, session 42): both operands' rows unaligned along K, copied into
padded rows by the plan's copy kernel before the GEMM.  float64 references on fresh random data, C NaN-poisoned;
strided operands, alpha / beta, a second call on new data and a CUDA graph's replays (the copies are launches of
the graph)."""
import pytest

import regtile
from regtile.codegen.repack import padded
from regtile.runtime import plans

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemm_checks import capture_and_replay  # noqa: E402
torch.backends.cuda.matmul.allow_tf32 = False

M, N, K = 2049, 2047, 1025  # m n / (m + n) = 1024: repacked


def _check(C, A, Bt, alpha=1.0, beta=0.0, C0=None):
    ref = alpha * (A.double() @ Bt.double().t())
    if C0 is not None:
        ref = ref + beta * C0.double()
    assert not torch.isnan(C).any(), "an element of C was not written"
    err = (torch.linalg.vector_norm(C.double() - ref) / torch.linalg.vector_norm(ref)).item()
    assert err <= 1e-5, err


def _operand(rows, cols, ld):
    """rows x cols float32, row-major with leading dimension ld (a view of a wider buffer where ld > cols)."""
    return torch.randn(rows, ld, device="cuda")[:, :cols]


@pytest.mark.parametrize("lda, ldb", [(K, K), (K + 2, K + 6)])
def test_nt_with_unaligned_rows_runs_on_padded_copies(lda, ldb):
    plan = plans.GemmPlan(M, N, K, False, True, lda, ldb, N)
    assert plan.repack is not None and plan.repack.leading_dims(lda, ldb) == (padded(K), padded(K)), plan.describe()
    assert "repacked into padded rows first" in plan.describe()
    A, Bt = _operand(M, K, lda), _operand(N, K, ldb)
    C0 = torch.randn(M, N, device="cuda")
    C = C0.clone()
    regtile.sgemm(A, Bt, C, alpha=0.75, beta=-0.5, transb=True)
    torch.cuda.synchronize()
    _check(C, A, Bt, 0.75, -0.5, C0)
    A.copy_(torch.randn(M, K, device="cuda"))  # new data, the same plan: the copies run again
    Bt.copy_(torch.randn(N, K, device="cuda"))
    C = torch.full((M, N), float("nan"), device="cuda")
    regtile.sgemm(A, Bt, C, transb=True)
    torch.cuda.synchronize()
    _check(C, A, Bt)


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
        _check(C, A, Bt)
