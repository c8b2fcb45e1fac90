"""What the SGEMM GPU test files check alike: the relative error against a float64 reference, and a call warmed up
on a side stream, captured into a CUDA graph there, and replayed on fresh A and B (C NaN-poisoned before each replay)
against the float64 product.  Imported only by GPU tests (torch on a GPU)."""
import torch


def rel_err(got, ref) -> float:
    """||got - ref|| / ||ref|| in float64 (a NaN anywhere in `got`, an unwritten poisoned element, makes it NaN)."""
    return ((got.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def capture_and_replay(call, A, B, C, replays: int = 2) -> None:
    """call(alpha, stream) enqueues C = alpha A B on `stream` (a torch.cuda.Stream): once with
    alpha 1 as the warm-up (plans, workspaces and counters made outside the graph), once with
    alpha 2 under capture; each replay must give 2 A B for the data A and B hold then."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        call(1.0, s)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        call(2.0, s)
    for _ in range(replays):
        A.copy_(torch.randn(*A.shape, device="cuda"))
        B.copy_(torch.randn(*B.shape, device="cuda"))
        C.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        ref = 2.0 * (A.double() @ B.double())
        err = (torch.linalg.vector_norm(C.double() - ref) / torch.linalg.vector_norm(ref)).item()
        assert err <= 1e-5, err
