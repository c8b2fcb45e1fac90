"""Programmatic dependent launch (codegen/kernel.PDL_WAIT, runtime/driver.programmatic_config) on
the GPU, switched on as REGTILE_PDL=1 would: the dependent kernels (split-K's reduce, a split GEMV's
reduce, a few-vector GEMV's kernel after its staging, and its reduce) go through cuLaunchKernelEx,
and the results match float64 - on a stream, and captured in a CUDA graph and replayed.  Each test
uses a fresh stream: a plan packs its launches once a stream, with the switch as it is then.
Outputs NaN-poisoned first; fresh random data."""
import pytest

import regtile
from regtile.runtime import driver

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemm_checks import capture_and_replay  # noqa: E402
torch.backends.cuda.matmul.allow_tf32 = False

# GEMMs whose plan has a dependent kernel: split-K members with N % 4 != 0 (the reduce's per-float
# path) and N % 4 == 0 (docs/data/shape-sweep.json: splitk-32x64-f4 split 32, splitk-32x64-f8 split 16),
# and few-vector GEMMs (stage, kernel, reduce where split)
GEMMS = [(65, 33, 4097), (768, 64, 768), (2048, 16, 32768), (8192, 8, 8192), (4, 1024, 65536)]
# GEMVs with splits (the split reduce): few long rows (op N), many short rows (op T); and one kernel
# (a GEMV kernel is itself a programmatic dependent of what came before it)
GEMVS = [(7, 50000, False), (16384, 16, True), (32, 4096, True)]


@pytest.fixture
def programmatic(monkeypatch):
    """PDL on; the list of functions launched through cuLaunchKernelEx."""
    if driver._arch_number(driver.device().arch) < 90:
        pytest.skip("programmatic dependent launch needs sm_90")
    if not driver._have_launch_ex():
        pytest.skip("libcuda's cuLaunchKernelEx cannot be opened through ctypes")
    monkeypatch.setattr(driver, "PROGRAMMATIC", True)
    launched, real = [], driver._launch_ex_fn

    def counted(config, func, params, extra):
        launched.append(func)
        return real(config, func, params, extra)
    monkeypatch.setattr(driver, "_launch_ex_fn", counted)
    return launched


def _err(got, ref):
    return ((got.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


@pytest.mark.parametrize("m, n, k", GEMMS)
def test_sgemm_dependent_kernels(programmatic, m, n, k):
    A, B = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    C = torch.full((m, n), float("nan"), device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        regtile.sgemm(A, B, C)
    s.synchronize()
    assert programmatic, "no launch of this plan went through cuLaunchKernelEx"
    assert int(torch.isnan(C).sum()) == 0
    assert _err(C, A.double() @ B.double()) <= 1e-5


@pytest.mark.parametrize("m, n, trans", GEMVS)
def test_sgemv_split_reduce(programmatic, m, n, trans):
    A = torch.randn(m, n, device="cuda")
    x = torch.randn(m if trans else n, device="cuda")
    y0 = torch.randn(n if trans else m, device="cuda")
    y = y0.clone()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        regtile.sgemv(A, x, y, alpha=0.5, beta=-2.0, trans=trans)
    s.synchronize()
    assert programmatic, "no launch of this plan went through cuLaunchKernelEx"
    ref = 0.5 * ((A.double().t() if trans else A.double()) @ x.double()) - 2.0 * y0.double()
    assert _err(y, ref) <= 1e-5


@pytest.mark.parametrize("m, n, k", [(65, 33, 4097), (2048, 16, 32768)])
def test_graph_capture_and_replay(programmatic, m, n, k):
    """Programmatic launches captured: the graph's edges keep the dependent after its primary."""
    A, B, C = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), torch.zeros(m, n, device="cuda")
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, B, C, alpha=alpha), A, B, C, replays=3)
    assert programmatic
