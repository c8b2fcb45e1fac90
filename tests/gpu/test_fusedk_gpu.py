"""The fused split-K kernel (backend "fusedk", codegen/emit_fusedk.py) on the GPU against
float64: ragged edges with rows aligned or not (per-float copies), more splits than k-tiles,
alpha / beta, and what the arrival counters must keep true - the same bits on every launch
(the last split sums the partials in split order), repeated launches and CUDA graph replays
finding the counters back at 0.  Every family member (fused ones included) also runs
tests/gpu/test_family_gpu.py's ragged shapes."""
import numpy as np
import pytest

from regtile.codegen.heuristic import member_config
from regtile.codegen.presets import FAMILY
from regtile.runtime import driver
from regtile.runtime.compiler import compile_config
from gpu_helpers import check_config, two_runs

pytestmark = pytest.mark.gpu

FUSED = [name for name, m in FAMILY.items() if m.backend == "fusedk"]
# K ragged against BK = 32 and odd (rows of A not 16-byte aligned); N odd (B's rows not
# aligned); M, N ragged against every tile; K shorter than the splits' k-tiles
SHAPES = [(700, 35, 2048), (65, 33, 4097), (48, 2048, 1000), (1000, 32, 4096), (129, 130, 1031), (5, 3, 7),
          (200, 72, 40), (1000, 64, 4100), (256, 96, 1024), (512, 32, 4100), (384, 64, 2080)]
# the last four on aligned rows: the k-tiles inside the operands of a block inside M and N take the lean copies
# (codegen/emit_fusedk.spread), the ragged M and N's blocks and K's last k-tile load_tile, in the same launch
# (member_config keeps the loop on; regtile.sgemm's plans take it off where M or N has an edge block:
# operand_forms.for_lean_copies);
# 256x96x1024 is inside every tile of 32 or 64, 512x32x4100 and 384x64x2080 inside M and N of the 128x32 / 128x64
# tiles with a ragged last k-tile in a split


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("name", FUSED)
def test_fused_member_is_right(name, m, n, k):
    cfg, backend = member_config(name, m, n, k, 132)
    check_config(cfg, m, n, k, backend=backend, what=f"{name} split_k={cfg.split_k}")


# fused-128x16 (session 34) in its region, at the split that keeps its blocks within one wave of two an SM
# (heuristic.split_for within=True: 3, 16, 32 of 33, 8): n of 13-16, rows ragged against 128 and against 4 (n = 13)
N16_SHAPES = [(11008, 16, 4096), (2048, 13, 4096), (1000, 16, 65536), (300, 16, 1000)]


@pytest.mark.parametrize("m, n, k", N16_SHAPES)
def test_fused_128x16_at_its_split(m, n, k):
    cfg, backend = member_config("fused-128x16", m, n, k, 132)
    check_config(cfg, m, n, k, backend=backend, what=f"fused-128x16 split_k={cfg.split_k}")


@pytest.mark.parametrize("split_k", [1, 2, 7, 32])
def test_fused_splits_alpha_beta(split_k):
    cfg = FAMILY["fused-32x64"].config.replace(split_k=split_k)
    check_config(cfg, 67, 131, 999, 0.5, -1.5, backend="fusedk", what=f"fused-32x64 split_k={split_k}")


@pytest.mark.parametrize("name", ["fused-32x32", "fused-128x32"])
def test_fused_is_deterministic_and_relaunchable(name):
    """Two launches of one launch object (the same counters): the second finds them at 0 and
    writes the same bits."""
    m, n, k = 300, 40, 8191
    cfg, backend = member_config(name, m, n, k, 132)
    assert cfg.split_k > 1
    kernel = driver.load(compile_config(cfg, driver.device().arch, backend=backend))
    first, second = two_runs(kernel, m, n, k)
    assert not np.isnan(first).any()
    assert np.array_equal(first, second)


def test_fused_plan_in_a_cuda_graph_replays():
    torch = pytest.importorskip("torch")
    from regtile.runtime.plans import GemmPlan
    m, n, k = 65, 33, 4097
    cfg, backend = member_config("fused-32x32", m, n, k, 132)
    assert cfg.split_k > 1
    plan = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
    A, B, C = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"), torch.zeros(m, n, device="cuda")
    from gemm_checks import capture_and_replay  # warm-up on the capture stream: its workspace and counters
    capture_and_replay(lambda alpha, s: plan.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), alpha, 0.0, s.cuda_stream),
                       A, B, C, replays=3)


def test_fused_tile_at_the_48kb_line_opts_in():
    """128x32x16 takes four stages of 12 KB, 48 KB of dynamic shared memory, and with splits the kernel
    declares a static `__shared__ int`: together past the 48 KB a block gets without opting in.  The loader
    must count both (session 20: it counted the dynamic part only and the launch failed, INVALID_VALUE)."""
    from regtile.codegen import emit_fusedk
    from regtile.codegen.hardware import DEFAULT_SMEM_PER_BLOCK
    cfg = FAMILY["fused-128x32"].config.replace(bk=16, split_k=2)
    assert emit_fusedk.geometry(cfg).dynamic_smem_bytes == DEFAULT_SMEM_PER_BLOCK
    check_config(cfg, 1000, 32, 4096, backend="fusedk", what="fused 128x32x16 split_k=2")


def _layout_check(plan, m, n, k, ta, tb, alpha=1.0, beta=0.0, seed=0):
    """plan (packed: A stored M x K or, ta, K x M; B stored K x N or, tb, N x K; ldc N) on fresh random operands
    against float64, C NaN-poisoned (beta 0) or random, every element checked written."""
    torch = pytest.importorskip("torch")
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(*((k, m) if ta else (m, k)), device="cuda", generator=g)
    b = torch.randn(*((n, k) if tb else (k, n)), device="cuda", generator=g)
    c = torch.full((m, n), float("nan"), device="cuda") if beta == 0 else torch.randn(m, n, device="cuda", generator=g)
    op_a, op_b = (a.t() if ta else a).double(), (b.t() if tb else b).double()
    ref = alpha * (op_a @ op_b) + (beta * c.double() if beta else 0)
    plan.launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), alpha, beta, 0)
    torch.cuda.synchronize()
    assert not torch.isnan(c).any(), f"{int(torch.isnan(c).sum())} elements unwritten"
    err = (torch.linalg.vector_norm(c.double() - ref) / torch.linalg.vector_norm(ref)).item()
    assert 0 < err <= 1e-5, err


LAYOUTS = {"NT": (False, True), "TN": (True, False), "TT": (True, True)}
# rows of A^T / B^T aligned or not in each layout (per-float copies where lda or ldb is odd): NT 2048 / 4097 / 1031 /
# 4100 / 384 as both leading dimensions, TN and TT M of 700, 65, 129, 512, 196; the lean copies (member_config keeps
# them on) in blocks inside M and N on aligned rows - every block of the last two, K's last k-tile ragged in one
LAYOUT_SHAPES = [(700, 35, 2048), (65, 33, 4097), (129, 130, 1031), (512, 32, 4100), (196, 1152, 384),
                 (3136, 64, 576), (256, 128, 1000)]


@pytest.mark.parametrize("m, n, k", LAYOUT_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", FUSED)
def test_fused_member_in_a_transposed_layout_is_right(name, layout, m, n, k):
    """A^T (BK rows of BM floats in a stage) and B^T (BN rows of BK floats, swizzled), float4 or per-float copies,
    lean or through load_tile (session 33; B^T went a float at a time before, A^T was refused), on ragged shapes."""
    from regtile.runtime.plans import GemmPlan
    ta, tb = LAYOUTS[layout]
    cfg, backend = member_config(name, m, n, k, 132)
    plan = GemmPlan(m, n, k, ta, tb, m if ta else k, k if tb else n, n, config=cfg.replace(trans_a=ta, trans_b=tb),
                    backend=backend)
    _layout_check(plan, m, n, k, ta, tb)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fused_in_a_layout_splits_alpha_beta(layout):
    from regtile.runtime.plans import GemmPlan
    ta, tb = LAYOUTS[layout]
    m, n, k = 67, 131, 999
    cfg = FAMILY["fused-32x64"].config.replace(split_k=7, trans_a=ta, trans_b=tb)
    plan = GemmPlan(m, n, k, ta, tb, m if ta else k, k if tb else n, n, config=cfg, backend="fusedk")
    _layout_check(plan, m, n, k, ta, tb, 0.5, -1.5)
