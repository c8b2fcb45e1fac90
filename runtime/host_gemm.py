"""regtile.sgemm on numpy operands: each array is uploaded as its bytes lie (a transposed
view or a Fortran-order array stays column-major, the kernel reads it so), the device
problem runs through the same plans as device operands, and C comes back; synchronises."""
from __future__ import annotations

import numpy as np

from . import driver
from .problem import Problem, kernel_problem, resolve


def _as_uploaded(arr: np.ndarray) -> np.ndarray:
    """`arr` itself when its bytes are one dense block (C or Fortran order), else a C-order copy."""
    if arr.flags.c_contiguous or arr.flags.f_contiguous:
        return arr
    return np.ascontiguousarray(arr)


class _DeviceView:
    """A device copy of a host array: the host array's shape and strides over device memory."""

    def __init__(self, arr: np.ndarray, ptr: int):
        self.__cuda_array_interface__ = {"shape": arr.shape, "typestr": "<f4", "data": (ptr, False),
                                         "strides": arr.strides, "version": 3}


def run_host(p: Problem, alpha: float, beta: float, transa: bool, transb: bool, launch) -> np.ndarray:
    """C (p.c's array, or a new one) = alpha op(A) op(B) + beta C; `launch(q, stream)`
    enqueues a device Problem."""
    shape = (p.batch, p.m, p.n) if p.batched else (p.m, p.n)
    out = p.c.host if p.c is not None else np.empty(shape, dtype=np.float32)
    if p.empty:
        return out
    if p.k == 0:  # C = beta C; beta 0 writes zeros (C is not read, as BLAS)
        if beta == 0.0:
            out[...] = 0.0
        elif beta != 1.0:
            out *= np.float32(beta)
        return out
    ups = [_as_uploaded(p.a.host), _as_uploaded(p.b.host), _as_uploaded(out)]
    bufs = []
    try:
        for i, arr in enumerate(ups):
            buf = driver.DeviceBuffer(max(arr.nbytes, 4))
            bufs.append(buf)
            if i < 2 or beta != 0.0:
                buf.upload(np.ravel(arr, order="K"))  # the bytes as they lie: no reordering
        views = [_DeviceView(arr, buf.ptr) for arr, buf in zip(ups, bufs)]
        q = kernel_problem(resolve(*views, transa=transa, transb=transb, beta=beta), transa, transb)
        launch(q, 0)
        driver.synchronize("regtile.sgemm on host operands")
        bufs[2].download(np.ravel(ups[2], order="K"))  # a view: C or Fortran order, written in place
    finally:
        for buf in bufs:
            buf.close()
    if ups[2] is not out:
        out[...] = ups[2]
    return out
