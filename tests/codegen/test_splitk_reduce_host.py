"""The split-K reduce kernel's own text (codegen/splitk.emit_reduce), compiled for the host under
tests/host_cuda.py's CUDA shim (a block's threads are OS threads; __syncthreads a barrier) and run on
the CPU: a check of its index math (the float4 path, and the per-float path of N % 4 != 0, whose
elements a block may span rows) and of its warps' split of the partials, without a GPU.  Against
float64 on fresh random partials; C NaN-poisoned where beta == 0 (C must not be read, every element
written); guard words around C and W untouched."""
import numpy as np
import pytest

from host_cuda import CXX, HostModule, host_driver
from regtile.codegen import splitk
from tiers import tiered

pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++) to build the kernel text with")

GUARD = 16  # floats of NaN before and after each buffer
_modules = {}


def _kernel(split_k: int, tmp_path_factory, monkeypatch):
    """run(M, N, alpha, W, beta, C, ldc): the reduce kernel over its grid, its arguments packed and
    launched as the runtime's (driver.PackedLaunch through tests/host_cuda.host_driver)."""
    from regtile.runtime import driver
    if split_k not in _modules:
        _modules[split_k] = HostModule(splitk.emit_reduce(split_k), tmp_path_factory.mktemp("reduce"))
    mod = _modules[split_k]
    host_driver(monkeypatch, mod)

    def run(M, N, alpha, W, beta, C, ldc):
        driver.PackedLaunch(mod.main, mod.main.source.geometry.grid(M, N), (M, N, alpha, W, beta, C, ldc), {})((), 0)
    return run


def _guarded(values: np.ndarray, offset: int = 0) -> np.ndarray:
    """`values` inside NaN guard words; `offset` floats more in front (a C or W not 16-byte aligned)."""
    buf = np.full(values.size + 2 * GUARD + offset, np.nan, dtype=np.float32)
    buf[GUARD + offset:GUARD + offset + values.size] = values.ravel()
    return buf


@pytest.mark.parametrize("split_k", tiered([2, 3, 8, 11, 32], fast={3, 32}))  # a host compile each
@pytest.mark.parametrize("m, n, ldc, offset", [
    (1, 1, 1, 0), (7, 3, 3, 0), (5, 2, 2, 0), (33, 2, 5, 0), (65, 33, 33, 0), (129, 7, 9, 0),  # per float
    (3, 100, 101, 0),  # per float, a block's 128 elements over 2 rows
    (4, 4, 4, 0), (3, 8, 12, 0), (17, 64, 64, 0), (9, 36, 40, 0),  # float4; the last, 3 blocks and a part
    (6, 8, 8, 1),  # N % 4 == 0 but C not 16-byte aligned: per float
])
@pytest.mark.parametrize("alpha, beta", [(1.0, 0.0), (0.5, -1.5)])
def test_reduce_text_on_the_host(tmp_path_factory, monkeypatch, split_k, m, n, ldc, offset, alpha, beta):
    run = _kernel(split_k, tmp_path_factory, monkeypatch)
    rng = np.random.default_rng(m * 1000 + n * 10 + split_k)
    W = rng.standard_normal((split_k, m, n)).astype(np.float32)
    C0 = rng.standard_normal((m, ldc)).astype(np.float32)
    if beta == 0.0:
        C0[:, :n] = np.nan  # beta == 0: C is not read, and every element must be written
    wbuf, cbuf = _guarded(W), _guarded(C0, offset)
    c_at = GUARD + offset
    run(m, n, alpha, wbuf.ctypes.data + 4 * GUARD, beta, cbuf.ctypes.data + 4 * c_at, ldc)
    C = cbuf[c_at:c_at + m * ldc].reshape(m, ldc)
    ref = alpha * W.astype(np.float64).sum(axis=0) + (beta * C0[:, :n].astype(np.float64) if beta else 0.0)
    assert not np.isnan(C[:, :n]).any(), "elements of C not written"
    np.testing.assert_allclose(C[:, :n], ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(C[:, n:], C0[:, n:])  # the padding of each row of C untouched
    assert np.isnan(cbuf[:c_at]).all() and np.isnan(cbuf[c_at + m * ldc:]).all(), "written outside C"
    assert np.isnan(wbuf[:GUARD]).all() and np.isnan(wbuf[GUARD + W.size:]).all()
