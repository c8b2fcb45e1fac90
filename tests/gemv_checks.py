"""What the SGEMV GPU test files check alike (tests/gpu/test_sgemv*_gpu.py): the float64
reference, the closeness test that also catches unwritten (NaN-poisoned) outputs, a plan's
repeated launches, a CUDA graph replay, and NaN/Inf reaching exactly their outputs.  Imported
only by GPU tests (torch on a GPU)."""
import torch

NAN = float("nan")


def ref(A, x, trans, alpha=1.0, beta=0.0, y0=None):
    r = alpha * ((A.double().T if trans else A.double()) @ x.double())
    if beta != 0.0:
        r = r + beta * y0.double()
    return r


def close(y, want, tol=1e-5):
    y = y.double()
    assert not torch.isnan(y).any(), f"{int(torch.isnan(y).sum())} outputs unwritten or NaN"
    err = ((y - want).norm() / max(want.norm().item(), 1e-30)).item()
    assert err <= tol, err


def repeated_launches(plan, A, trans, lda=None):
    """Four launches on one plan: fresh x, alpha/beta, beta == 0 over a NaN y, then the same
    inputs again, which must give the same bits (every reduction order is fixed).  Any state a
    launch leaves behind (a counter not back at 0) shows as a NaN or a wrong y in a later one."""
    m, n = A.shape
    xlen, ylen = (m, n) if trans else (n, m)
    s = torch.cuda.current_stream().cuda_stream
    outs, x = [], None
    for rep, (alpha, beta) in enumerate([(1.0, 0.0), (-0.5, 2.0), (1.0, 0.0), (1.0, 0.0)]):
        if rep < 3:  # the fourth launch repeats the third's inputs
            x = torch.randn(xlen, device="cuda")
        y0 = torch.randn(ylen, device="cuda")
        y = y0.clone() if beta else torch.full((ylen,), NAN, device="cuda")
        plan.launch(alpha, A.data_ptr(), lda or n, x.data_ptr(), 1, beta, y.data_ptr(), 1, s)
        torch.cuda.synchronize()
        close(y, ref(A, x, trans, alpha, beta, y0))
        outs.append(y)
    assert torch.equal(outs[2], outs[3])  # same inputs, same bits


def graph_replays(plan, A, trans):
    """A CUDA graph captured around a launch of the plan, replayed with new x each time, then an
    ordinary launch on the capture stream."""
    m, n = A.shape
    xlen, ylen = (m, n) if trans else (n, m)
    x = torch.randn(xlen, device="cuda")
    y = torch.full((ylen,), NAN, device="cuda")
    stream = torch.cuda.Stream()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=stream):
        plan.launch(1.0, A.data_ptr(), n, x.data_ptr(), 1, 0.0, y.data_ptr(), 1, stream.cuda_stream)
    for _ in range(3):
        x.copy_(torch.randn(xlen, device="cuda"))
        y.fill_(NAN)
        g.replay()
        torch.cuda.synchronize()
        close(y, ref(A, x, trans))
    y.fill_(NAN)
    with torch.cuda.stream(stream):
        plan.launch(1.0, A.data_ptr(), n, x.data_ptr(), 1, 0.0, y.data_ptr(), 1, stream.cuda_stream)
    torch.cuda.synchronize()
    close(y, ref(A, x, trans))


def nonfinite_exact(y, want, count=None):
    """NaN and Inf exactly where the reference has them (at most `count` such outputs when
    given, at least one), the finite rest close."""
    yd = y.double()
    assert torch.equal(torch.isnan(yd), torch.isnan(want)) and torch.equal(torch.isinf(yd), torch.isinf(want))
    if count is not None:
        assert 1 <= int((~torch.isfinite(want)).sum()) <= count
    fin = torch.isfinite(want)
    assert ((yd[fin] - want[fin]).norm() / want[fin].norm()).item() <= 1e-5


def nan_inf_through_strides(m, n, trans, cfg, incx):
    """regtile.sgemv with a NaN and an Inf in A, x read with `incx` (1 or -1: backwards), y
    strided backwards (incy = -2): exactly their outputs turn NaN / Inf, beta applies to the rest,
    the gaps of y stay untouched."""
    import regtile
    A = torch.randn(m, n, device="cuda")
    A[m // 2, n // 3] = NAN
    A[m // 3, n // 2] = float("inf")
    xlen, ylen = (m, n) if trans else (n, m)
    xb = torch.randn(xlen, device="cuda")
    yb = torch.randn(1 + (ylen - 1) * 2, device="cuda")
    yb0 = yb.clone()
    regtile.sgemv(A, xb, yb, alpha=1.0, beta=0.5, trans=trans, incx=incx, incy=-2, config=cfg)
    torch.cuda.synchronize()
    yi = (torch.arange(ylen, device="cuda") * 2).flip(0)
    want = ref(A, xb.flip(0) if incx < 0 else xb, trans) + 0.5 * yb0[yi].double()
    nonfinite_exact(yb[yi], want, count=2)
    assert torch.equal(yb[1::2], yb0[1::2])
