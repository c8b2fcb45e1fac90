"""Kernels rewritten by the SASS register-bank pass (sass/bank_pass.py, applied by runtime/sass_stage.py) on the GPU,
against a float64 reference: every preset the pass applies to, both backends, edge
sizes, alpha/beta, padded and misaligned operands.  The pass reorders FFMAs and renames
registers inside the cubin; these tests are what says the rewritten kernels compute
what ptxas's did.  Same check as the PTX backend's tests (fresh random data, NaN
poison, per-element error bound)."""
import pytest

from regtile.codegen.config import SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.presets import PRESETS, get_preset
from regtile.runtime.compiler import compile_source

import test_ptx_backend_gpu as _ptx_gpu

_gemm_check = _ptx_gpu._gemm_check
launcher = _ptx_gpu.launcher  # the same module-scoped fixture: cupy, else the driver API

pytestmark = pytest.mark.gpu

SGEMM = [n for n, p in PRESETS.items() if isinstance(p.config, SgemmConfig)]
KERNELS = [(n, "cuda") for n in SGEMM] + [(n, "ptx") for n in SGEMM if get_preset(n).config.frag_regs] + \
          [("128x256", "ptx")]
SIZES = [(1, 1, 1), (7, 33, 5), (127, 129, 65), (129, 255, 257), (1000, 1000, 1000), (1023, 1025, 2049),
         (31, 1000, 7), (2048, 96, 257)]
ALPHA_BETA = [(1.0, 0.0), (0.5, -1.5)]


def _config(name):
    if name == "128x256":  # the PTX kernel at parity with cuBLAS (docs/backends.md)
        return get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1)
    return get_preset(name).config


@pytest.fixture(scope="module")
def rewritten(launcher):
    arch = launcher.arch()
    if arch != "sm_90":
        pytest.skip(f"the SASS pass targets sm_90; this GPU is {arch}")
    cache = {}

    def get(name, backend):
        if (name, backend) not in cache:
            art = compile_source(emit(_config(name).replace(sass_pass=True), backend), arch)
            assert art.sass_pass is not None and art.resources.spill_free
            cache[(name, backend)] = art
        return cache[(name, backend)]
    return get


@pytest.mark.parametrize("alpha, beta", ALPHA_BETA)
@pytest.mark.parametrize("m, n, k", SIZES)
@pytest.mark.parametrize("name, backend", KERNELS)
def test_rewritten_kernel_against_float64(launcher, rewritten, name, backend, m, n, k, alpha, beta):
    _gemm_check(launcher, rewritten(name, backend), m, n, k, alpha, beta)


@pytest.mark.parametrize("name, backend", [("zorder", "ptx"), ("zorder", "cuda"), ("128x256", "ptx"),
                                           ("zorder-256x128", "cuda")])
def test_rewritten_kernel_leading_dimensions_and_misaligned_rows(launcher, rewritten, name, backend):
    art = rewritten(name, backend)
    _gemm_check(launcher, art, 256, 256, 64, 0.75, 0.25, pad=(4, 8, 4))
    _gemm_check(launcher, art, 300, 200, 100, 0.75, 0.25, pad=(3, 5, 1), misalign=(1, 1, 1))
    _gemm_check(launcher, art, 4097, 257, 129, -1.0, 0.0)


def test_regtile_sgemm_default_on_a_large_shape_uses_the_pass_and_is_right():
    """regtile.sgemm with nothing tuned: on sm_90 a shape whose 128x256 tiles fill the SMs
    runs the PTX kernel with the SASS pass (runtime/choice.py default_sgemm_kernel)."""
    import numpy as np
    import regtile
    from regtile.runtime import driver
    from regtile.runtime.choice import default_sgemm_kernel
    dev = driver.device()
    m, n, k = 2048, 4096 + 3, 301
    cfg, backend = default_sgemm_kernel(m, n, dev.arch, dev.sm_count)
    if dev.arch == "sm_90":
        assert backend == "ptx" and cfg.sass_pass
    rng = np.random.default_rng()
    A = rng.standard_normal((m, k), dtype=np.float32)
    B = rng.standard_normal((k, n), dtype=np.float32)
    C = np.full((m, n), np.nan, dtype=np.float32)
    out = regtile.sgemm(A, B, C, config=cfg, backend=backend)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    bound = (k + 2) * 2.0 ** -23 * (np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64))) + 1e-30
    assert not np.isnan(out).any()
    assert (np.abs(out - ref) <= bound).all()
