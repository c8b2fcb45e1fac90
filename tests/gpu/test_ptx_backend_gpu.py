"""PTX-backend kernels (codegen/emit_ptx.py, compiled by nvJitLink) on the GPU against a
float64 reference: fresh random inputs per test; with beta == 0 all of C is poisoned
with NaN (BLAS: C is not read then), so any element left unwritten or read shows; with
beta != 0 only the columns past N (ldc > N) are NaN, and must stay so.  Every element
is checked against an error bound, not only a norm.

Launch: cupy (RawModule from the cubin file) when importable, else the project's
driver-API runtime (regtile.runtime.driver); skipped when neither is there."""
import hashlib

import numpy as np
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.hardware import SUPPORTED_ARCHS, needs_smem_opt_in
from regtile.codegen.presets import get_preset
from regtile.runtime.compiler import compile_source

pytestmark = pytest.mark.gpu

PRESETS = ("zorder", "pad", "vec4")
SIZES = [(1, 1, 1), (7, 7, 7), (127, 127, 127), (129, 129, 129), (1000, 1000, 1000), (1024, 1024, 1024),
         (7, 129, 31), (129, 7, 1023), (1000, 31, 129), (31, 1000, 7), (1, 1000, 1), (1000, 1, 1000),
         (300, 1024, 129), (2048, 96, 257)]
ALPHA_BETA = [(1.25, 0.0), (0.5, -1.5)]


# ---- launchers -------------------------------------------------------------------------
class _CupyLauncher:
    def __init__(self, cp, tmp_dir):
        self.cp = cp
        self.tmp_dir = tmp_dir
        self.kernels = {}

    def arch(self) -> str:
        return "sm_" + str(self.cp.cuda.Device().compute_capability)

    def kernel(self, art):
        # keyed by the cubin too: two artifacts of one kernel name (a pass's variants, say) are two kernels
        key = (art.name, hashlib.sha256(art.cubin).hexdigest()[:16])
        if key not in self.kernels:
            path = self.tmp_dir / f"{key[0]}_{key[1]}.cubin"
            path.write_bytes(art.cubin)
            k = self.cp.RawModule(path=str(path)).get_function(art.name)
            smem = art.source.geometry.dynamic_smem_bytes
            if needs_smem_opt_in(k.attributes["shared_size_bytes"], smem):
                k.max_dynamic_shared_size_bytes = smem
            self.kernels[key] = k
        return self.kernels[key]

    def run(self, art, m, n, k, alpha, a_full, a_off, lda, b_full, b_off, ldb, beta, c_full, c_off, ldc):
        cp = self.cp
        a, b, c = cp.asarray(a_full), cp.asarray(b_full), cp.asarray(c_full)
        geo = art.source.geometry
        args = (np.int32(m), np.int32(n), np.int32(k), np.float32(alpha), a[a_off:], np.int32(lda),
                b[b_off:], np.int32(ldb), np.float32(beta), c[c_off:], np.int32(ldc))
        self.kernel(art)(geo.grid(m, n), geo.block, args, shared_mem=geo.dynamic_smem_bytes)
        cp.cuda.Device().synchronize()
        return cp.asnumpy(c)


class _DriverLauncher:
    def __init__(self, driver):
        self.driver = driver

    def arch(self) -> str:
        return self.driver.device().arch

    def run(self, art, m, n, k, alpha, a_full, a_off, lda, b_full, b_off, ldb, beta, c_full, c_off, ldc):
        d = self.driver
        kern = d.load(art, "ptx-backend test")
        bufs = [d.to_device(x) for x in (a_full, b_full, c_full)]
        try:
            a, b, c = (buf.ptr + 4 * off for buf, off in zip(bufs, (a_off, b_off, c_off)))
            geo = art.source.geometry
            kern.launch(geo.grid(m, n), [m, n, k, alpha, a, lda, b, ldb, beta, c, ldc])
            d.synchronize("ptx-backend test")
            return bufs[2].download(np.empty_like(c_full))
        finally:
            for buf in bufs:
                buf.close()


@pytest.fixture(scope="module")
def launcher(tmp_path_factory):
    try:
        import cupy as cp
        return _CupyLauncher(cp, tmp_path_factory.mktemp("ptx_cubins"))
    except ImportError:
        pass
    try:
        from regtile.runtime import driver
        if not hasattr(driver, "load"):
            raise ImportError
        return _DriverLauncher(driver)
    except ImportError:
        pytest.skip("neither cupy nor regtile.runtime.driver is available to launch a cubin")


@pytest.fixture(scope="module")
def artifacts(launcher):
    arch = launcher.arch()
    if arch not in SUPPORTED_ARCHS:
        pytest.skip(f"the GPU is {arch}; regtile targets {SUPPORTED_ARCHS}")
    out = {}
    for name in PRESETS:
        src = emit(get_preset(name).config, "ptx")
        art = compile_source(src, arch)
        assert art.compiler.startswith("nvJitLink") and art.resources.spill_free
        out[name] = art
    return out


# ---- the check ---------------------------------------------------------------------------
def _gemm_check(launcher, art, m, n, k, alpha, beta, pad=(0, 0, 0), misalign=(0, 0, 0)):
    """Run C = alpha A B + beta C with row-major A (m x k, lda = k + pad[0]), B (k x n,
    ldb = n + pad[1]), C (m x n, ldc = n + pad[2]), each starting `misalign` floats into
    its device buffer; check every element of C and that C's padding is untouched."""
    rng = np.random.default_rng()
    lda, ldb, ldc = k + pad[0], n + pad[1], n + pad[2]
    A = rng.standard_normal((m, lda), dtype=np.float32)
    B = rng.standard_normal((k, ldb), dtype=np.float32)
    if beta == 0.0:
        C0 = np.full((m, ldc), np.nan, dtype=np.float32)
    else:
        C0 = rng.standard_normal((m, ldc), dtype=np.float32)
        C0[:, n:] = np.nan

    def full(x, off):
        buf = np.full(x.size + off, np.nan, dtype=np.float32)
        buf[off:] = x.reshape(-1)
        return buf

    out = launcher.run(art, m, n, k, alpha, full(A, misalign[0]), misalign[0], lda, full(B, misalign[1]),
                       misalign[1], ldb, beta, full(C0, misalign[2]), misalign[2], ldc)
    C = out[misalign[2]:].reshape(m, ldc)
    assert np.isnan(out[:misalign[2]]).all(), "memory before C was written"
    got = C[:, :n].astype(np.float64)
    a64, b64 = A[:, :k].astype(np.float64), B[:, :n].astype(np.float64)
    ref = alpha * (a64 @ b64)
    scale = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if beta != 0.0:
        ref += beta * C0[:, :n].astype(np.float64)
        scale += abs(beta) * np.abs(C0[:, :n].astype(np.float64))
    what = f"{art.name} {m}x{n}x{k} alpha={alpha} beta={beta} pad={pad} misalign={misalign}"
    unwritten = int(np.isnan(got).sum())
    assert unwritten == 0, f"{what}: {unwritten} elements NaN (unwritten, or C read with beta == 0)"
    # FP32 dot product with FMA: |error| <= (k + 2) * 2^-24 * sum |terms| (with a 2x margin)
    bound = (k + 2) * 2.0 ** -23 * scale + 1e-30
    bad = np.abs(got - ref) > bound
    assert not bad.any(), (f"{what}: {int(bad.sum())} elements outside the error bound, first at "
                           f"{tuple(int(x) for x in np.argwhere(bad)[0])}")
    # relative to the terms' magnitudes, not to the result's: one element of C (1x1x1) can cancel to near zero
    # (session 21: 4.3e-5 against |ref| on tile2d-reg 1x1x1, inside the bound above)
    rel = np.linalg.norm(got - ref) / max(np.linalg.norm(scale), 1e-30)
    assert rel <= 1e-5, f"{what}: relative error {rel}"
    if ldc > n:
        assert np.isnan(C[:, n:]).all(), f"{what}: columns past N were written"


@pytest.mark.parametrize("alpha, beta", ALPHA_BETA)
@pytest.mark.parametrize("m, n, k", SIZES)
@pytest.mark.parametrize("name", PRESETS)
def test_ptx_backend_against_float64(launcher, artifacts, name, m, n, k, alpha, beta):
    _gemm_check(launcher, artifacts[name], m, n, k, alpha, beta)


@pytest.mark.parametrize("name", PRESETS)
def test_ptx_backend_leading_dimensions_and_misaligned_rows(launcher, artifacts, name):
    art = artifacts[name]
    # padded rows that keep 16-byte alignment: the float4 paths with ld > width
    _gemm_check(launcher, art, 256, 256, 64, 0.75, 0.25, pad=(4, 8, 4))
    # odd leading dimensions and pointers one float off: every float4 path must fall back
    _gemm_check(launcher, art, 300, 200, 100, 0.75, 0.25, pad=(3, 5, 1), misalign=(1, 1, 1))
    _gemm_check(launcher, art, 257, 129, 33, -1.0, 0.0, pad=(1, 0, 3), misalign=(0, 1, 0))
