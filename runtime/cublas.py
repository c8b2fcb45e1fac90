"""cuBLAS SGEMM/SGEMV in true FP32, for benchmarks only (never a dependency).

The library comes from the nvidia-cublas wheel (found by cuda-pathfinder), a CUDA
toolkit, or the system; `Cublas.library` says which file was loaded.  Math mode
is CUBLAS_PEDANTIC_MATH: no TF32, no reduced precision.  Row-major operands are
passed as their column-major transposes (C^T = B^T A^T).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from typing import Optional, Tuple

from .driver import device
from .errors import CublasUnavailable

CUBLAS_OP_N, CUBLAS_OP_T = 0, 1
CUBLAS_PEDANTIC_MATH = 2


def _candidates():
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
        yield load_nvidia_dynamic_lib("cublas").abs_path
    except Exception:
        pass
    name = ctypes.util.find_library("cublas")
    if name:
        yield name
    for pattern in ("/usr/local/cuda/lib64/libcublas.so*",):
        yield from sorted(glob.glob(pattern))
    try:  # torch bundles its own cuBLAS wheel; find it by path, without importing torch
        import importlib.util
        spec = importlib.util.find_spec("nvidia")
        for root in (spec.submodule_search_locations or []) if spec else []:
            yield from sorted(glob.glob(os.path.join(root, "*", "lib", "libcublas.so*")))
    except Exception:
        pass


_library: Optional[Tuple[ctypes.CDLL, str]] = None


def require() -> Tuple[ctypes.CDLL, str]:
    """(library, path) of cuBLAS, loaded once; CublasUnavailable when there is none.
    Touches no GPU, so a benchmark can check for cuBLAS before it starts any GPU work."""
    global _library
    if _library is not None:
        return _library
    errors = []
    for path in _candidates():
        if not path:
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        _library = (lib, getattr(lib, "_name", path))
        return _library
    raise CublasUnavailable("no cuBLAS library found (pip install nvidia-cublas, or a CUDA toolkit); "
                            + "; ".join(errors[:3]))


class Cublas:
    def __init__(self, stream=0):
        self.lib, self.library = require()
        device()  # cuBLAS uses the primary context that the runtime made current
        self.handle = ctypes.c_void_p()
        self._ok(self.lib.cublasCreate_v2(ctypes.byref(self.handle)), "cublasCreate")
        self._ok(self.lib.cublasSetMathMode(self.handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(PEDANTIC)")
        self._ok(self.lib.cublasSetStream_v2(self.handle, ctypes.c_void_p(int(stream))), "cublasSetStream")
        ver = ctypes.c_int()
        self._ok(self.lib.cublasGetVersion_v2(self.handle, ctypes.byref(ver)), "cublasGetVersion")
        v = ver.value
        self.version = f"{v // 10000}.{(v % 10000) // 100}.{v % 100}" if v >= 10000 else str(v)

    @staticmethod
    def _ok(status: int, what: str):
        if status != 0:
            raise CublasUnavailable(f"{what} failed with cuBLAS status {status}")

    def describe(self) -> str:
        return f"cuBLAS {self.version} ({self.library}), pedantic FP32 math"

    def sgemm(self, m, n, k, alpha, a_ptr, lda, b_ptr, ldb, beta, c_ptr, ldc):
        """Row-major C = alpha A B + beta C."""
        fa, fb = ctypes.c_float(alpha), ctypes.c_float(beta)
        self._ok(self.lib.cublasSgemm_v2(
            self.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, ctypes.byref(fa),
            ctypes.c_void_p(b_ptr), ldb, ctypes.c_void_p(a_ptr), lda, ctypes.byref(fb),
            ctypes.c_void_p(c_ptr), ldc), "cublasSgemm")

    def sgemv(self, m, n, alpha, a_ptr, lda, x_ptr, beta, y_ptr):
        """Row-major y = alpha A x + beta y: A row-major is A^T column-major (op T)."""
        fa, fb = ctypes.c_float(alpha), ctypes.c_float(beta)
        self._ok(self.lib.cublasSgemv_v2(
            self.handle, CUBLAS_OP_T, n, m, ctypes.byref(fa), ctypes.c_void_p(a_ptr), lda,
            ctypes.c_void_p(x_ptr), 1, ctypes.byref(fb), ctypes.c_void_p(y_ptr), 1), "cublasSgemv")

    def close(self):
        if getattr(self, "handle", None) and self.lib is not None:
            self.lib.cublasDestroy_v2(self.handle)
            self.handle = None


_shared: Optional[Cublas] = None


def shared(stream=0) -> Cublas:
    global _shared
    if _shared is None:
        _shared = Cublas(stream)
    else:
        Cublas._ok(_shared.lib.cublasSetStream_v2(_shared.handle, ctypes.c_void_p(int(stream))), "cublasSetStream")
    return _shared
