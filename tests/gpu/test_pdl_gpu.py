"""Programmatic dependent launch (codegen/kernel.PDL_WAIT, runtime/driver.programmatic_config) on
the GPU, switched on as REGTILE_PDL=1 would: the dependent kernels (split-K's reduce, a split GEMV's
reduce, a few-vector GEMV's kernel after its staging, and its reduce; the fused split-K kernel after the GEMM that
wrote its operand) go through cuLaunchKernelEx,
and the results match float64 - on a stream, and captured in a CUDA graph and replayed.  Each test
uses a fresh stream: a plan packs its launches once a stream, with the switch as it is then.
Outputs NaN-poisoned first; fresh random data."""
import pytest

import regtile
from regtile.codegen import heuristic
from regtile.codegen.hardware import arch_number
from regtile.runtime import driver

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemm_checks import capture_and_replay, rel_err as _err  # noqa: E402
torch.backends.cuda.matmul.allow_tf32 = False

# GEMMs whose plan has a dependent kernel: CUDA C split-K members at their split (named, not left to
# the table, which a refit may move), N % 4 != 0 (the reduce's per-float path) and N % 4 == 0; a stream-K PTX plan
# (512x16x32768 on skinny-n16-k32: fewer tiles than SMs, its K ranges' launch; 2048x16x32768 until session 34, which
# fused-128x16, one launch, now takes); and few-vector GEMMs, which fewvec_config.route takes by size (stage, kernel,
# reduce where split)
GEMMS = [("splitk-32x64-f4", 65, 33, 4097), ("splitk-32x32-f4", 700, 35, 2048), ("splitk-32x64-f8", 768, 64, 768),
         (None, 4096, 12, 8192), (None, 8192, 8, 8192), (None, 4, 1024, 65536), (None, 512, 16, 32768)]
# GEMVs with splits (the split reduce): few long rows (op N), many short rows (op T); and one kernel
# (a GEMV kernel is itself a programmatic dependent of what came before it)
GEMVS = [(7, 50000, False), (16384, 16, True), (32, 4096, True)]


@pytest.fixture
def programmatic(monkeypatch):
    """PDL on; the list of functions launched through cuLaunchKernelEx."""
    if arch_number(driver.device().arch) < 90:
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


def _config(member, m, n, k):
    if member is None:
        return None
    cfg, backend = heuristic.member_config(member, m, n, k, driver.device().sm_count)
    assert backend == "cuda" and cfg.split_k > 1
    return cfg


@pytest.mark.parametrize("member, m, n, k", GEMMS)
def test_sgemm_dependent_kernels(programmatic, member, m, n, k):
    A, B = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    C = torch.full((m, n), float("nan"), device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        regtile.sgemm(A, B, C, config=_config(member, m, n, k))
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


# Fused split-K plans (session 40: programmatic, waiting first, no trigger): the table's picks for these shapes
# (fused-128x16, fused-32x32-k8), checked before the test relies on them
FUSED = [(4096, 16, 4096), (3136, 64, 576)]


@pytest.mark.parametrize("m, n, k", FUSED)
def test_fused_plan_waits_for_the_kernel_that_wrote_its_operand(programmatic, m, n, k):
    """The fused kernel reads A right after the GEMM that wrote it on the same stream (X = P Q, X NaN-poisoned
    first): a read ahead of its griddepcontrol.wait would see NaN or stale values.  Then again at once: the second
    call's split counters and workspace follow the first call's."""
    dev = driver.device()
    assert heuristic.choose_kernel(m, n, k, dev.arch, dev.sm_count)[1] == "fusedk", "no longer a fused pick"
    P, Q, B = torch.randn(m, 64, device="cuda"), torch.randn(64, k, device="cuda"), torch.randn(k, n, device="cuda")
    X = torch.full((m, k), float("nan"), device="cuda")
    C1, C2 = (torch.full((m, n), float("nan"), device="cuda") for _ in range(2))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        regtile.sgemm(P, Q, X)
        before = len(programmatic)  # X's own kernels (PTX) are programmatic too
        regtile.sgemm(X, B, C1)
        regtile.sgemm(X, B, C2, alpha=-0.5)
    s.synchronize()
    assert len(programmatic) >= before + 2, "the fused calls did not go through cuLaunchKernelEx"
    ref = X.double() @ B.double()
    assert int(torch.isnan(C1).sum()) == 0 and int(torch.isnan(C2).sum()) == 0
    assert _err(C1, ref) <= 1e-5 and _err(C2, -0.5 * ref) <= 1e-5


@pytest.mark.parametrize("member, m, n, k", [GEMMS[0], GEMMS[3], GEMMS[6]])
def test_graph_capture_and_replay(programmatic, member, m, n, k):
    """Programmatic launches captured: the graph's edges keep the dependent after its primary."""
    A, B, C = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), torch.zeros(m, n, device="cuda")
    cfg = _config(member, m, n, k)
    capture_and_replay(lambda alpha, s: regtile.sgemm(A, B, C, alpha=alpha, config=cfg), A, B, C, replays=3)
    assert programmatic
