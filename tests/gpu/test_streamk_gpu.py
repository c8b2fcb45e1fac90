"""Stream-K on the GPU against float64: the work-list kernel and the reduction of its split
tiles launched together (runtime/sgemm_launch.py), with the method of
tests/gpu/test_sgemm_gpu.py - fresh random inputs, C poisoned with NaN (and the partial
tiles too, so a partial left unwritten reaches C as NaN), every element checked written."""
import numpy as np
import pytest

from regtile.codegen.presets import get_preset
from regtile.runtime import bench, driver
from regtile.runtime.compiler import compile_config
from gpu_helpers import check_config, check_host_sgemm, two_runs
from regtile.runtime.sgemm_launch import stream_k_plan

pytestmark = pytest.mark.gpu

ZORDER = get_preset("zorder").config
CONFIGS = {
    "best": ZORDER.replace(bn=256, tn=16, min_blocks=1, sass_pass=True),  # 128x256 8x16 + SASS pass
    "zorder": ZORDER,  # 128x128, 2 blocks an SM
    "vec4": get_preset("vec4").config,  # one shared stage
    "tile1d": get_preset("tile1d").config,  # scalar loads and stores
    # regtile.sgemm's sm_90 default below one wave of 128x256 tiles
    "small": ZORDER.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1),
}
# edges in M, N and K; fewer tiles than SMs (all stream-K); whole waves plus a partial one
SHAPES = [(1, 1, 1), (7, 129, 31), (129, 7, 1023), (1000, 31, 129), (257, 130, 61), (129, 257, 4096),
          (1023, 1023, 1023), (2048, 2304, 520), (1536, 3584, 333)]


def _check(cfg, m, n, k, alpha=1.0, beta=0.0, label=""):
    check_config(cfg, m, n, k, alpha, beta, "ptx", f"{label} stream-K")


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_stream_k_sizes(name, m, n, k):
    _check(CONFIGS[name].replace(stream_k=True), m, n, k, label=name)


@pytest.mark.parametrize("alpha, beta", [(0.5, -1.5), (1.0, 1.0), (-2.0, 0.0), (0.0, 0.75)])
@pytest.mark.parametrize("name", ["best", "tile1d"])
def test_stream_k_alpha_beta(name, alpha, beta):
    _check(CONFIGS[name].replace(stream_k=True), 1025, 2047, 700, alpha, beta, label=name)


def test_plan_uses_every_sm_and_splits_tiles():
    """The shapes above do reach the stream-K path: ranges and split tiles."""
    kernel = driver.load(compile_config(CONFIGS["best"].replace(stream_k=True), driver.device().arch, backend="ptx"))
    plan = stream_k_plan(kernel, 2048, 2304, 520)
    assert plan.slots_per_wave == driver.device().sm_count * kernel.blocks_per_sm
    assert plan.stream_k_tiles > 0 and plan.slots > 0


def test_stream_k_is_deterministic():
    """Split tiles are summed in K order, no atomics: two launches give the same bits."""
    cfg = CONFIGS["best"].replace(stream_k=True)
    kernel = driver.load(compile_config(cfg, driver.device().arch, backend="ptx"))
    first, second = two_runs(kernel, 1536, 3584, 2048)
    assert not np.isnan(first).any()
    assert first.tobytes() == second.tobytes()


def test_sgemm_with_stream_k():
    check_host_sgemm(700, 1500, 900, 0.5, 2.0, config=CONFIGS["best"].replace(stream_k=True), backend="ptx")


def test_flags_are_lowered_after_every_launch():
    """The first piece of a split tile lowers its slots' flags: the next launch must not see a
    flag still up (it would add a slot before the later piece has written it)."""
    from regtile.runtime.sgemm_launch import SgemmLaunch, workspace_bytes
    cfg = CONFIGS["best"].replace(stream_k=True)
    kernel = driver.load(compile_config(cfg, driver.device().arch, backend="ptx"))
    m, n, k = 1536, 3584, 2048
    work = bench.GemmWorkload(m, n, k)
    try:
        ws = work.workspace(workspace_bytes(kernel, m, n, k))
        launch = SgemmLaunch(kernel, m, n, k, 1.0, work.a[0].ptr, k, work.b[0].ptr, n, 0.0, work.c[0].ptr, n, ws)
        plan = launch.plan
        assert plan.slots > 0
        for _ in range(3):
            launch(int(work.stream))
            work.stream.synchronize()
            ints = np.empty(plan.work_ints().size, dtype=np.int32)
            launch.work_lists[0].download(ints)
            assert not ints[plan.flags_offset // 4:].any(), "a flag left raised"
            assert (ints[:plan.flags_offset // 4] == plan.work_ints()[:plan.flags_offset // 4]).all()
    finally:
        work.close()
