"""Edge split (codegen/edges.py) on the GPU against float64: the interior by the config's
kernel, the strips by the edge kernel, all through runtime/sgemm_launch.py - fresh random
inputs, C and the workspace NaN-poisoned, every element checked written."""
import numpy as np
import pytest

from regtile.codegen.presets import get_preset
from regtile.runtime import driver
from regtile.runtime.compiler import compile_config
from regtile.runtime.sgemm_launch import SgemmLaunch, edge_plan
from gpu_helpers import check_config, check_host_sgemm, two_runs

pytestmark = pytest.mark.gpu

BEST = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True,
                                           edge_split=True)
# split: both strips, one strip each way, K ragged too, an interior of one tile; and a
# shape the cost model leaves whole (4095: its edge tiles are nearly full)
SHAPES = [(129, 257, 64), (1000, 1000, 200), (2049, 2049, 33), (4097, 300, 513), (300, 4097, 100), (129, 4100, 9),
          (4095, 4095, 17)]


@pytest.mark.parametrize("m, n, k", SHAPES)
def test_edge_split_sizes(m, n, k):
    check_config(BEST, m, n, k, backend="ptx", what="edge split")


@pytest.mark.parametrize("alpha, beta", [(0.5, -1.5), (0.0, 0.75)])
def test_edge_split_alpha_beta(alpha, beta):
    check_config(BEST, 1025, 2047, 300, alpha, beta, backend="ptx", what="edge split")


def test_one_pass_main_kernel():
    check_config(BEST.replace(stream_k=False), 1000, 1000, 200, backend="ptx", what="edge split, one-pass interior")


def test_shapes_take_the_split_they_should():
    """The shapes above reach both paths, and the launch follows the plan: the interior's
    launches, then the edge kernel's."""
    kernel = driver.load(compile_config(BEST, driver.device().arch, backend="ptx"))
    assert edge_plan(kernel, 2049, 2049).split and not edge_plan(kernel, 4095, 4095).split
    launch = SgemmLaunch(kernel, 2049, 2049, 33, 1.0, 0, 2049, 0, 2049, 0.0, 0, 2049, workspace=1 << 20)
    main = {kernel.source.name, kernel.ranges.source.name}
    edge = {kernel.edge.source.name, kernel.edge.ranges.source.name}
    kinds = ["main" if kk.source.name in main else "edge" if kk.source.name in edge else kk.source.name
             for kk, _, _ in launch.steps]
    assert kinds[0] == "main" and kinds[-1] == "edge" and kinds == sorted(kinds, key=["main", "edge"].index)


def test_edge_split_is_deterministic():
    kernel = driver.load(compile_config(BEST, driver.device().arch, backend="ptx"))
    first, second = two_runs(kernel, 2049, 2049, 700)
    assert not np.isnan(first).any()
    assert first.tobytes() == second.tobytes()


def test_sgemm_with_edge_split():
    check_host_sgemm(1031, 700, 2305, 2.0, -0.5, config=BEST, backend="ptx")
