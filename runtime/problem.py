"""From sgemm's operands to the kernel's problem: shapes, layouts, batches, streams.

Pure metadata (runtime/arrays.py reads it without touching the GPU), so every check
runs, and fails, before any launch, also on machines without a GPU.

The kernel computes a row-major C (m x n, ldc) = alpha op(A) op(B) + beta C with
op(A), op(B) generated for N or T (SgemmConfig.trans_a/trans_b).  A column-major C is
the row-major C^T = op(B)^T op(A)^T: A and B swap, their flags flip, m and n swap, and
nothing is copied.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Optional, Tuple

from .arrays import Matrix, as_matrix
from .errors import InputError


@dataclass
class Problem:
    """What regtile.sgemm was asked for, as the caller sees it (`m`, `n`, `k` of
    op(A) op(B)), and as the kernel runs it (the `kernel_*` fields)."""
    a: Matrix
    b: Matrix
    c: Optional[Matrix]
    m: int
    n: int
    k: int
    batch: int  # 0: 2-D operands; else the number of GEMMs
    on_device: bool
    # the kernel's problem (after a column-major C's swap)
    kernel_m: int = 0
    kernel_n: int = 0
    trans_a: bool = False
    trans_b: bool = False
    lda: int = 0
    ldb: int = 0
    ldc: int = 0
    strides: Tuple[int, int, int] = (0, 0, 0)
    swapped: bool = False

    batched: bool = False  # some operand is 3-D

    @property
    def empty(self) -> bool:
        """m, n or the batch is 0: nothing to compute or write."""
        return self.m == 0 or self.n == 0 or (self.batched and self.batch == 0)

    def torch_device_mismatch(self) -> bool:
        return any(x is not None and x.torch_device not in (None, 0) for x in (self.a, self.b, self.c))

    def pointers(self) -> Tuple[int, int, int]:
        """(A, B, C) device pointers in the kernel's order."""
        if self.swapped:
            return self.b.ptr, self.a.ptr, self.c.ptr
        return self.a.ptr, self.b.ptr, self.c.ptr


def resolve(A, B, C=None, transa: bool = False, transb: bool = False, beta: float = 0.0) -> Problem:
    """Check sgemm's operands and work out the kernel's problem; InputError names what is wrong."""
    a, b = as_matrix(A, "A"), as_matrix(B, "B")
    c = as_matrix(C, "C") if C is not None else None
    places = {x.on_device for x in (a, b, c) if x is not None}
    if len(places) > 1:
        names = ", ".join(f"{x.name} ({'device' if x.on_device else 'host'})" for x in (a, b, c) if x is not None)
        raise InputError(f"operands mix host and device arrays: {names}; pass all numpy or all device arrays")
    on_device = places.pop()
    m, k = (a.cols, a.rows) if transa else (a.rows, a.cols)
    kb, n = (b.cols, b.rows) if transb else (b.rows, b.cols)
    if kb != k:
        ta, tb = ("^T" if transa else ""), ("^T" if transb else "")
        raise InputError(f"shapes do not match: op(A) = A{ta} is {m}x{k}, op(B) = B{tb} is {kb}x{n} "
                         f"(needs {k} rows)")
    batched = any(x is not None and x.ndim == 3 for x in (a, b, c))
    batch = 0
    if batched:
        sizes = {x.name: _batch_of(x) for x in (a, b, c) if x is not None}
        c_batch = sizes.get("C", None)
        others = {v for v in sizes.values() if v != 1}  # 1 broadcasts, 0 is an empty batch
        batch = c_batch if c_batch is not None else (max(others) if others else 1)
        for name, size in sizes.items():
            if size not in (1, batch):
                raise InputError(f"batch sizes do not match: {', '.join(f'{k}: {v}' for k, v in sizes.items())} "
                                 f"(each 1, broadcast, or the same)")
        if c is not None and c_batch != batch:
            raise InputError(f"C has batch {c_batch}, the product has {batch}")
        if c is not None and batch > 1 and c.bstride == 0:
            raise InputError("C: batch stride 0 (a broadcast output); every batch entry needs its own C")
    if c is None:
        if beta != 0.0:
            raise InputError(f"beta={beta} needs C: pass the C to accumulate into")
    else:
        if (c.rows, c.cols) != (m, n):
            raise InputError(f"C is {c.rows}x{c.cols}, expected {m}x{n} (op(A) {m}x{k} @ op(B) {k}x{n})")
        if c.host is not None and not c.host.flags.writeable:
            raise InputError("C is a read-only numpy array")
        if c.on_device and c.colmajor is False and c.rows > 1 and c.ld < c.cols:
            raise InputError("C: rows overlap")
    return Problem(a, b, c, m, n, k, batch, on_device, batched=batched)


def _batch_of(x: Matrix) -> int:
    return x.batch if x.ndim == 3 else 1


def kernel_problem(p: Problem, transa: bool, transb: bool) -> Problem:
    """Fill the kernel fields of `p` (C given): trans flags, leading dimensions, batch strides,
    and the swap for a column-major C."""
    a, b, c = p.a, p.b, p.c
    ta, tb = a.colmajor ^ bool(transa), b.colmajor ^ bool(transb)
    sa = a.bstride if p.batch > 1 and _batch_of(a) > 1 else 0
    sb = b.bstride if p.batch > 1 and _batch_of(b) > 1 else 0
    sc = c.bstride if p.batch > 1 else 0
    p.ldc = c.ld
    if c.colmajor:  # C^T = op(B)^T op(A)^T, C^T row-major
        p.swapped = True
        p.kernel_m, p.kernel_n = p.n, p.m
        p.trans_a, p.trans_b = not tb, not ta
        p.lda, p.ldb = b.ld, a.ld
        p.strides = (sb, sa, sc)
    else:
        p.kernel_m, p.kernel_n = p.m, p.n
        p.trans_a, p.trans_b = ta, tb
        p.lda, p.ldb = a.ld, b.ld
        p.strides = (sa, sb, sc)
    if p.batch <= 1:
        p.strides = (0, 0, 0)
    return p


# ---- streams ------------------------------------------------------------------------
_torch_raw_stream = None


def current_torch_stream(device_index: int) -> int:
    """torch's current stream on the device, as a CUstream handle (torch's own C accessor:
    torch.cuda.current_stream() builds a Python object per call)."""
    global _torch_raw_stream
    if _torch_raw_stream is None:
        torch = sys.modules["torch"]
        get = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _torch_raw_stream = get if get is not None else \
            (lambda i: torch.cuda.current_stream(i).cuda_stream)
    return _torch_raw_stream(device_index)


def stream_handle(stream, p_or_matrix=None) -> int:
    """A CUstream handle as an int from: None (the caller's current torch stream when the
    operands are torch tensors, else the legacy default stream 0), an int, a
    torch.cuda.Stream (.cuda_stream), a cupy stream (.ptr), an object with __cuda_stream__,
    regtile's driver.Stream or a cuda.bindings CUstream (int())."""
    if stream is None:
        dev = getattr(p_or_matrix, "torch_device", None)
        return current_torch_stream(dev) if dev is not None else 0
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    for attr in ("cuda_stream", "ptr"):
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return int(proto()[1])
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise InputError(f"stream={stream!r}: expected a CUstream handle (int), a torch.cuda.Stream, "
                         f"a cupy stream or an object with __cuda_stream__") from None
