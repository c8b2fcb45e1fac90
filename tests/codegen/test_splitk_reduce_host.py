"""The split-K reduce kernel's own text (codegen/splitk.emit_reduce), compiled for the host with the
system C++ compiler under a small CUDA shim and run thread by thread on the CPU: a check of its index
math (the float4 path, and the per-float path of N % 4 != 0, whose 4 elements a thread may span rows)
without a GPU.  The kernel has no barrier, shuffle or shared memory, so running its threads one after
another is exactly its semantics.  Against float64 on fresh random partials; C NaN-poisoned where
beta == 0 (C must not be read, every element written); guard words around C and W untouched."""
import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from regtile.codegen import splitk

CXX = shutil.which("g++") or shutil.which("c++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++) to build the kernel text with")

# What the kernel text uses of CUDA, for one thread at a time on the host.
SHIM = r"""
#include <cstddef>
struct float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return float4{a, b, c, d}; }
static inline float4 __ldcs(const float4* p) { return *p; }
struct uint3_ { unsigned x, y, z; };
static uint3_ blockIdx, threadIdx;
#define __global__
#define __launch_bounds__(...)
#define __restrict__ __restrict
"""
GUARD = 16  # floats of NaN before and after each buffer


def _build(split_k: int, tmp_path):
    src = splitk.emit_reduce(split_k)
    name, threads = src.name, src.geometry.block[0]
    run = f"""
extern "C" void run(int blocks, int M, int N, float alpha, const float* W, float beta, float* C, int ldc) {{
    for (unsigned b = 0; b < (unsigned)blocks; ++b)
        for (unsigned t = 0; t < {threads}u; ++t) {{
            blockIdx.x = b; threadIdx.x = t;
            {name}(M, N, alpha, W, beta, C, ldc);
        }}
}}
"""
    cpp = tmp_path / f"{name}.cpp"
    cpp.write_text(SHIM + src.text + run)
    lib = tmp_path / f"{name}.so"
    subprocess.run([CXX, "-O1", "-shared", "-fPIC", "-w", "-o", str(lib), str(cpp)], check=True,
                   capture_output=True, text=True)
    fn = ctypes.CDLL(str(lib)).run
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_float,
                   ctypes.c_void_p, ctypes.c_int]
    return fn, src.geometry


def _guarded(values: np.ndarray, offset: int = 0) -> np.ndarray:
    """`values` inside NaN guard words; `offset` floats more in front (a C or W not 16-byte aligned)."""
    buf = np.full(values.size + 2 * GUARD + offset, np.nan, dtype=np.float32)
    buf[GUARD + offset:GUARD + offset + values.size] = values.ravel()
    return buf


@pytest.mark.parametrize("split_k", [2, 3, 8])
@pytest.mark.parametrize("m, n, ldc, offset", [
    (1, 1, 1, 0), (7, 3, 3, 0), (5, 2, 2, 0), (33, 2, 5, 0), (65, 33, 33, 0), (129, 7, 9, 0),  # per float
    (4, 4, 4, 0), (3, 8, 12, 0), (17, 64, 64, 0),  # float4
    (6, 8, 8, 1),  # N % 4 == 0 but C not 16-byte aligned: per float
])
@pytest.mark.parametrize("alpha, beta", [(1.0, 0.0), (0.5, -1.5)])
def test_reduce_text_on_the_host(tmp_path, split_k, m, n, ldc, offset, alpha, beta):
    run, geo = _build(split_k, tmp_path)
    rng = np.random.default_rng(m * 1000 + n * 10 + split_k)
    W = rng.standard_normal((split_k, m, n)).astype(np.float32)
    C0 = rng.standard_normal((m, ldc)).astype(np.float32)
    if beta == 0.0:
        C0[:, :n] = np.nan  # beta == 0: C is not read, and every element must be written
    wbuf, cbuf = _guarded(W), _guarded(C0, offset)
    c_at = GUARD + offset
    run(geo.grid(m, n)[0], m, n, alpha, wbuf.ctypes.data + 4 * GUARD, beta, cbuf.ctypes.data + 4 * c_at, ldc)
    C = cbuf[c_at:c_at + m * ldc].reshape(m, ldc)
    ref = alpha * W.astype(np.float64).sum(axis=0) + (beta * C0[:, :n].astype(np.float64) if beta else 0.0)
    assert not np.isnan(C[:, :n]).any(), "elements of C not written"
    np.testing.assert_allclose(C[:, :n], ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(C[:, n:], C0[:, n:])  # the padding of each row of C untouched
    assert np.isnan(cbuf[:c_at]).all() and np.isnan(cbuf[c_at + m * ldc:]).all(), "written outside C"
    assert np.isnan(wbuf[:GUARD]).all() and np.isnan(wbuf[GUARD + W.size:]).all()
