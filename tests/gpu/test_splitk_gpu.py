"""Split-K on the GPU against float64: the partial kernel and its reduction launched
together (runtime/sgemm_launch.py), with the method of tests/gpu/test_sgemm_gpu.py -
fresh random inputs, C poisoned with NaN (and the split-K workspace too, so a partial
left unwritten reaches C as NaN), every element checked written."""
import numpy as np
import pytest

import regtile
from regtile.codegen.config import SgemmConfig
from regtile.codegen.presets import get_preset
from regtile.runtime import driver
from regtile.runtime.compiler import compile_config
from gpu_helpers import check_config, two_runs
from regtile.runtime.sgemm_launch import SgemmLaunch, workspace_bytes

pytestmark = pytest.mark.gpu

ZORDER = get_preset("zorder").config
CONFIGS = {
    "zorder": ZORDER,  # 128x128x8, float4, double-buffered, 2 blocks/SM
    "zorder-256x128": get_preset("zorder-256x128").config,
    "vec4": get_preset("vec4").config,  # one shared stage
    "tile1d": get_preset("tile1d").config,  # scalar loads and stores
    # no shared memory (global loads by k); the naive preset's 1x1 thread tile cannot split
    # (config.SPLIT_K_MIN_ACCUMULATORS), so its loop with a 4x2 tile
    "naive-4x2": get_preset("naive").config.replace(tm=4, tn=2, warps=None),
    # bk=16 with min_blocks=2 spills at its 128-register cap (refused since issue 8): one block an SM
    "bk16": ZORDER.replace(bk=16, min_blocks=1),
}
# K < split_k * BK (empty splits), K not a multiple of BK, edges in M and N
EDGE = [(1, 1, 1), (7, 129, 31), (129, 7, 1023), (1000, 31, 129), (31, 1000, 7), (129, 129, 5), (257, 130, 61),
        (1023, 1023, 1023), (65, 3, 200), (33, 2, 77)]  # N of 2-3: one thread's 4 elements span rows


def _check(cfg, m, n, k, alpha=1.0, beta=0.0, label=""):
    check_config(cfg, m, n, k, alpha, beta, "cuda", f"{label} split_k={cfg.split_k}")


@pytest.mark.parametrize("m, n, k", EDGE)
@pytest.mark.parametrize("split_k", [2, 3, 8])
@pytest.mark.parametrize("name", ["zorder", "vec4", "tile1d"])
def test_split_k_edge_sizes(name, split_k, m, n, k):
    _check(CONFIGS[name].replace(split_k=split_k), m, n, k, label=name)


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("split_k", [2, 4])
def test_split_k_every_kernel_kind(name, split_k):
    _check(CONFIGS[name].replace(split_k=split_k), 300, 200, 1000, label=name)


@pytest.mark.parametrize("split_k", [1, 2, 4, 8])
@pytest.mark.parametrize("name", ["zorder", "zorder-256x128"])
def test_split_k_skinny_8192x128x8192(name, split_k):
    _check(CONFIGS[name].replace(split_k=split_k), 8192, 128, 8192, label=name)


@pytest.mark.parametrize("split_k", [4, 32])
def test_split_k_more_splits_than_k_tiles(split_k):
    """K = 5 < BK: one split does all of K, the others write zeros."""
    _check(ZORDER.replace(split_k=split_k), 130, 257, 5)
    _check(ZORDER.replace(split_k=split_k), 130, 257, 8 * split_k + 3)


@pytest.mark.parametrize("alpha, beta", [(0.5, -1.5), (1.0, 1.0), (-2.0, 0.0), (0.0, 0.75)])
@pytest.mark.parametrize("name", ["zorder", "tile1d"])
def test_split_k_alpha_beta(name, alpha, beta):
    _check(CONFIGS[name].replace(split_k=4), 129, 257, 1000, alpha, beta, label=name)
    _check(CONFIGS[name].replace(split_k=4), 128, 256, 1024, alpha, beta, label=name)  # float4 reduce path


def test_split_k_is_deterministic():
    """The reduction sums W[0], W[1], ... in order: two launches give the same bits."""
    kernel = driver.load(compile_config(ZORDER.replace(split_k=8), driver.device().arch))
    first, second = two_runs(kernel, 1000, 512, 4096)
    assert not np.isnan(first).any()
    assert first.tobytes() == second.tobytes()


def test_sgemm_numpy_and_device_arrays_with_split_k():
    rng = np.random.default_rng()
    cfg = ZORDER.replace(split_k=4)
    A = rng.standard_normal((300, 2000), dtype=np.float32)
    B = rng.standard_normal((2000, 70), dtype=np.float32)
    C = rng.standard_normal((300, 70), dtype=np.float32)
    ref = 0.5 * (A.astype(np.float64) @ B) + 2.0 * C
    out = regtile.sgemm(A, B, C, alpha=0.5, beta=2.0, config=cfg)
    assert out is C and np.linalg.norm(C - ref) / np.linalg.norm(ref) <= 1e-5
    torch = pytest.importorskip("torch")
    big_a = torch.randn(300, 2000 + 12, device="cuda")
    big_b = torch.randn(2000, 70 + 5, device="cuda")
    big_c = torch.randn(300, 70 + 3, device="cuda")
    Ad, Bd, Cd = big_a[:, :2000], big_b[:, :70], big_c[:, :70]
    C0 = Cd.clone()
    before = big_c.clone()
    regtile.sgemm(Ad, Bd, Cd, alpha=0.75, beta=0.25, config=cfg)
    refd = 0.75 * (Ad.double() @ Bd.double()) + 0.25 * C0.double()
    assert ((Cd.double() - refd).norm() / refd.norm()).item() <= 1e-5
    assert torch.equal(big_c[:, 70:], before[:, 70:])  # columns beyond N untouched


def test_split_k_workspace_belongs_to_the_plan_and_is_reused():
    """A split-K plan allocates its partials' workspace on its first call on a stream and keeps
    it for the calls after (runtime/plans.py); the results stay right."""
    from regtile.runtime.plans import GemmPlan
    rng = np.random.default_rng()
    plan = GemmPlan(64, 64, 512, False, False, 512, 64, 64, config=ZORDER.replace(split_k=2), backend="cuda")
    A = rng.standard_normal((64, 512), dtype=np.float32)
    B = rng.standard_normal((512, 64), dtype=np.float32)
    out = np.full((64, 64), np.nan, dtype=np.float32)
    with driver.to_device(A) as a, driver.to_device(B) as b, driver.DeviceBuffer(out.nbytes) as c:
        c.upload(out)
        plan.launch(a.ptr, b.ptr, c.ptr, 1.0, 0.0, 0)
        ws = plan._bound[0].keep[0]
        plan.launch(a.ptr, b.ptr, c.ptr, 1.0, 0.0, 0)
        assert ws is not None and ws.ptr and plan._bound[0].keep[0] is ws
        driver.synchronize()
        c.download(out)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) <= 1e-5


def test_launch_describes_both_kernels_and_counts_workspace():
    kernel = driver.load(compile_config(ZORDER.replace(split_k=4), driver.device().arch))
    assert kernel.reduce is not None and kernel.reduce.source.name == "regtile_splitk_reduce_4"
    assert workspace_bytes(kernel.source, 100, 30) == 4 * 4 * 100 * 30
    text = SgemmLaunch(kernel, 100, 30, 50, 1.0, 1, 50, 1, 30, 0.0, 1, 30, workspace=1).describe()
    assert "regtile_splitk_reduce_4" in text and "grid (1, 1, 4)" in text


def test_one_pass_config_still_launches_one_kernel():
    kernel = driver.load(compile_config(SgemmConfig(), driver.device().arch))
    assert kernel.reduce is None
    assert len(SgemmLaunch(kernel, 10, 10, 10, 1.0, 1, 10, 1, 10, 0.0, 1, 10).steps) == 1
