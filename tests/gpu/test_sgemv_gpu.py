"""SGEMV on the GPU against float64: odd M and N, N not a multiple of 4, alpha/beta,
misaligned x (handled through the scalar path), the seed's presets and the shape rule."""
import numpy as np
import pytest

import regtile
from regtile.codegen.presets import get_preset, sgemv_preset_names
from regtile.codegen.sgemv_config import config_for_shape
from regtile.runtime import bench, driver

pytestmark = pytest.mark.gpu

SHAPES = [(1, 1), (7, 3), (31, 16), (127, 32), (129, 33), (1000, 127), (1023, 128), (4097, 1000),
          (16384, 16), (16384, 32), (16384, 128), (3, 4099)]


def _check(cfg, m, n, alpha=1.0, beta=0.0):
    work = bench.GemvWorkload(m, n)
    try:
        kernel = driver.load(regtile.runtime.compiler.compile_config(cfg, driver.device().arch))
        r = bench.check_and_time_gemv(bench.gemv_kernel_launcher(kernel, work, alpha, beta), work, alpha, beta,
                                      repeat=0)
    finally:
        work.close()
    assert r["unwritten"] == 0 and r["rel_err"] <= 1e-5, (cfg, m, n, r)


@pytest.mark.parametrize("m, n", SHAPES)
def test_shape_rule_config(m, n):
    _check(config_for_shape(m, n), m, n)
    _check(config_for_shape(m, n), m, n, alpha=-0.5, beta=2.0)


@pytest.mark.parametrize("name", sgemv_preset_names())
@pytest.mark.parametrize("m, n", [(1, 1), (129, 16), (1000, 32), (999, 130), (4097, 128)])
def test_presets_any_shape(name, m, n):
    _check(get_preset(name).config, m, n)


def test_misaligned_x_and_lda():
    torch = pytest.importorskip("torch")
    m, n = 333, 257
    storage = torch.randn(n + 1, device="cuda")
    x = storage[1:]  # 4 bytes off a 16-byte boundary: float4 path must not be taken
    big = torch.randn(m, n + 1, device="cuda")
    A = big[:, :n]  # lda = n + 1: rows not 16-byte aligned
    y = torch.randn(m, device="cuda")
    y0 = y.clone()
    regtile.sgemv(A, x, y, alpha=1.5, beta=0.5)
    ref = 1.5 * (A.double() @ x.double()) + 0.5 * y0.double()
    assert ((y.double() - ref).norm() / ref.norm()).item() <= 1e-5


def test_numpy_entry():
    rng = np.random.default_rng()
    A = rng.standard_normal((1001, 77), dtype=np.float32)
    x = rng.standard_normal(77, dtype=np.float32)
    y = regtile.sgemv(A, x)
    ref = A.astype(np.float64) @ x
    assert np.linalg.norm(y - ref) / np.linalg.norm(ref) <= 1e-5


@pytest.mark.parametrize("warps_per_row", [2, 4])
@pytest.mark.parametrize("m, n", [(1, 1), (7, 4099), (129, 1000), (4097, 4096)])
def test_rows_split_across_warps(warps_per_row, m, n):
    from regtile.codegen.sgemv_config import SgemvConfig
    cfg = SgemvConfig(rows_per_warp=1, vec=4, warps_per_block=8, unroll=4, warps_per_row=warps_per_row)
    _check(cfg, m, n)
    _check(cfg, m, n, alpha=0.5, beta=-1.0)
