"""regtile.sgemv: y = alpha * op(A) x + beta * y, and the GEMV path of m == 1 / n == 1 GEMMs.

Stages: choose_gemv (codegen/sgemv_config.py) picks the kernel and the split from
(m, n, op, SM count); compile_config builds it; a GemvPlan holds the loaded kernel, its
grids and a workspace per stream.  Plans are cached in memory by (m, n, op, incx, incy,
arch, config): a repeated call does no codegen, no hashing and no disk access, only the
argument packing and one or two cuLaunchKernel.

Device operands run asynchronously on the caller's stream (no synchronisation): the
split workspace belongs to the cached plan and stays allocated while the process runs, so
it is valid until the kernels that use it end; two calls on one stream are ordered by the
stream, calls on different streams get different workspaces.
"""
from __future__ import annotations

import threading
from typing import Dict, Optional, Tuple

import numpy as np

from ..codegen.emit_sgemv import reduce_outputs_per_block
from ..codegen.sgemv_config import SgemvConfig, SgemvTConfig, choose_gemv, splits_for
from . import driver
from .arrays import INT_MAX, Operand, as_operand
from .compiler import check_arch, compile_config
from .errors import InputError

_lock = threading.Lock()
_plans: Dict[tuple, "GemvPlan"] = {}
_device_info: Optional[Tuple[str, int]] = None  # (arch, SM count), read once


def _arch_and_sms() -> Tuple[str, int]:
    global _device_info
    if _device_info is None:
        from ..codegen.hardware import SUPPORTED_ARCHS
        dev = driver.device()
        if dev.arch not in SUPPORTED_ARCHS:
            raise InputError(f"the GPU is {dev.arch}; regtile builds for {', '.join(SUPPORTED_ARCHS)}")
        _device_info = (dev.arch, dev.sm_count)
    return _device_info


class _Packed:
    """kernelParams for one kernel, built once: one 8-byte slot an argument and the array of
    their addresses; a launch writes the values into the slots (no per-call allocation: the
    generic LoadedKernel.pack costs tens of microseconds of Python a launch)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.types = [ctype for _, ctype in kernel.source.params]
        self.slots = np.zeros(len(self.types), dtype=np.uint64)
        self.i32, self.f32 = self.slots.view(np.int32), self.slots.view(np.float32)
        self.params = np.array([self.slots.ctypes.data + 8 * k for k in range(len(self.types))], dtype=np.uint64)
        self.params_ptr = self.params.ctypes.data
        g = kernel.source.geometry
        self.block, self.smem = g.block, g.dynamic_smem_bytes

    def set(self, *values) -> None:
        for k, (ctype, v) in enumerate(zip(self.types, values)):
            if "*" in ctype:
                self.slots[k] = v
            elif ctype == "float":
                self.f32[2 * k + 1] = 0
                self.f32[2 * k] = v
            else:
                self.slots[k] = 0
                self.i32[2 * k] = v

    def launch(self, grid, stream: int) -> None:
        cu = driver._cu()
        bx, by, bz = self.block
        driver.check(cu.cuLaunchKernel(self.kernel.function, grid[0], grid[1], grid[2], bx, by, bz, self.smem,
                                       stream, self.params_ptr, 0),
                     f"cuLaunchKernel of {self.kernel.describe_launch(grid)}", driver.LaunchError)


class GemvPlan:
    """One GEMV shape on one kernel: y (count = M for op N, N for op T) from A (M x N,
    row-major).  gridDim.y = splits: 1 writes y directly; more write partial sums to the
    workspace, which the module's reduce kernel sums in split order (deterministic)."""

    def __init__(self, kernel, m: int, n: int, op: str, splits: int):
        self.kernel, self.m, self.n, self.op, self.splits = kernel, m, n, op, max(1, int(splits))
        cfg_geo = kernel.source.geometry
        if op == "N":
            self.grid = (-(-m // cfg_geo.tile_m), self.splits, 1)
            self.count = m
        else:
            self.grid = (-(-n // cfg_geo.tile_n), self.splits, 1)
            self.count = n
        if self.grid[0] > INT_MAX or self.grid[1] > 65535:
            raise InputError(f"{m}x{n} op {op}: grid {self.grid} exceeds the launch limits")
        self.reduce_grid = (-(-self.count // reduce_outputs_per_block(self.splits)), 1, 1)
        self._ws: Dict[int, driver.DeviceBuffer] = {}
        self._args_lock = threading.Lock()
        self._main = _Packed(kernel)
        self._red = _Packed(kernel.reduce)

    def workspace(self, stream: int) -> int:
        """The split partials' buffer of `stream` (0 when there is no split)."""
        if self.splits == 1:
            return 0
        buf = self._ws.get(stream)
        if buf is None:
            buf = self._ws.setdefault(stream, driver.DeviceBuffer(4 * self.splits * self.count))
        return buf.ptr

    def launch(self, alpha: float, a: int, lda: int, x: int, incx: int, beta: float, y: int, incy: int,
               stream: int = 0) -> None:
        w = self.workspace(stream)
        with self._args_lock:  # the driver copies kernelParams at launch: the slots are free after
            self._main.set(self.m, self.n, alpha, a, lda, x, incx, beta, y, incy, w)
            self._main.launch(self.grid, stream)
            if self.splits > 1:
                self._red.set(self.count, self.splits, alpha, w, beta, y, incy)
                self._red.launch(self.reduce_grid, stream)

    def describe(self) -> str:
        return (f"{self.kernel.source.name} op {self.op} {self.m}x{self.n}, grid {self.grid}"
                + (f", {self.splits} splits + reduce" if self.splits > 1 else ""))


def plan_for(m: int, n: int, op: str = "N", incx: int = 1, incy: int = 1, config=None,
             arch: Optional[str] = None, splits: Optional[int] = None) -> GemvPlan:
    """The cached plan for A (m x n, row-major) and op; built (codegen, compile, load) once."""
    dev_arch, sms = _arch_and_sms() if arch is None else (arch, None)
    key = (m, n, op, incx, incy, dev_arch, config, splits)
    plan = _plans.get(key)
    if plan is not None:
        return plan
    if sms is None:
        sms = _arch_and_sms()[1]
    cfg = config if config is not None else choose_gemv(m, n, op, sms)[0]
    kernel = driver.load(compile_config(cfg, dev_arch))
    if splits is None:
        splits = splits_for(cfg, m, n, sms, kernel.blocks_per_sm)
    with _lock:
        plan = _plans.setdefault(key, GemvPlan(kernel, m, n, op, splits))
    return plan


def launcher_for(kernel, m: int, n: int, cfg=None) -> GemvPlan:
    """A plan around an already loaded kernel (bench, sanitize, `regtile run`): op from the
    kernel's family, the split the shape rule gives `cfg` (none without it)."""
    op = "T" if kernel.source.name.startswith("regtile_sgemv_t") else "N"
    splits = splits_for(cfg, m, n, _arch_and_sms()[1], kernel.blocks_per_sm) if cfg is not None else 1
    return GemvPlan(kernel, m, n, op, splits)


# ---- arguments ----------------------------------------------------------------------
def _scalar(value, name: str) -> float:
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name}={value!r}: expected a real number")
    return float(value)


def _inc(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) == 0:
        raise InputError(f"{name}={value!r}: expected a non-zero integer stride (BLAS inc)")
    if abs(int(value)) > INT_MAX:
        raise InputError(f"{name}={value}: must fit in a 32-bit int")
    return int(value)


class _Transposed:
    """A column-major device array seen as the row-major array of its transpose."""

    def __init__(self, obj):
        cai = dict(obj.__cuda_array_interface__)
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        if strides is None or len(shape) != 2:
            raise InputError("A: not a column-major matrix")
        cai["shape"], cai["strides"] = shape[::-1], tuple(strides)[::-1]
        self.__cuda_array_interface__ = cai
        self.base = obj


def _matrix(A) -> Tuple[Operand, bool]:
    """(operand, flipped): a row-major A as it is; a column-major one (contiguous columns) as
    the row-major operand of A^T, flipped=True (the caller then swaps op)."""
    try:
        return as_operand(A, "A"), False
    except InputError as e:
        if "column stride" not in str(e):
            raise
    if isinstance(A, np.ndarray):
        t = A.T
    elif hasattr(A, "__cuda_array_interface__"):
        t = _Transposed(A)
    else:
        raise InputError("A: column-major DLPack matrices are not supported; pass a row-major array or "
                         "one with __cuda_array_interface__")
    try:
        return as_operand(t, "A"), True
    except InputError as e:
        raise InputError(f"{e} (A is neither row- nor column-major)") from None


def _vector(v, name: str, count: int, inc: int) -> Operand:
    op = as_operand(v, name, ndim=1)
    need = 1 + (count - 1) * abs(inc)
    if op.rows < need:
        what = f"{count} elements" if abs(inc) == 1 else f"{count} elements at stride {inc}: {need}"
        raise InputError(f"{name} has {op.rows} elements, needs {what}" if abs(inc) != 1 else
                         f"{name} has {op.rows} elements, expected {count}")
    if abs(inc) == 1 and op.rows != count:
        raise InputError(f"{name} has {op.rows} elements, expected {count}")
    return op


def check_sgemv_args(A, x, y, alpha, beta, trans: bool = False, incx: int = 1, incy: int = 1):
    """(a, xv, yv, alpha, beta, m, n, op, incx, incy) or InputError; touches no GPU.  m x n is
    the row-major matrix the kernel reads and op its orientation (a column-major A flips it)."""
    alpha, beta = _scalar(alpha, "alpha"), _scalar(beta, "beta")
    incx, incy = _inc(incx, "incx"), _inc(incy, "incy")
    if not isinstance(trans, (bool, np.bool_)):
        raise InputError(f"trans={trans!r}: expected True or False")
    a, flipped = _matrix(A)
    op = "T" if bool(trans) != flipped else "N"
    m, n = a.rows, a.cols
    xlen, ylen = (n, m) if op == "N" else (m, n)
    rows, cols = (m, n) if not flipped else (n, m)  # as the caller sees A
    try:
        xv = _vector(x, "x", xlen, incx)
    except InputError as e:
        if "expected" in str(e):
            raise InputError(f"shapes do not match: A is {rows}x{cols}{' (transposed)' if trans else ''}, "
                             f"x has {as_operand(x, 'x', ndim=1).rows} elements (needs {xlen})") from None
        raise
    yv = None
    if y is None:
        if beta != 0.0:
            raise InputError(f"beta={beta} needs y: pass the y to accumulate into")
        if abs(incy) != 1:
            raise InputError(f"incy={incy} needs y: pass the y to write")
    else:
        yv = _vector(y, "y", ylen, incy)
        if yv.host is not None and not yv.host.flags.writeable:
            raise InputError("y is a read-only numpy array")
    places = {o.on_device for o in (a, xv, yv) if o is not None}
    if len(places) > 1:
        names = ", ".join(f"{o.name} ({'device' if o.on_device else 'host'})" for o in (a, xv, yv) if o is not None)
        raise InputError(f"operands mix host and device arrays: {names}; pass all numpy or all device arrays")
    return a, xv, yv, alpha, beta, m, n, op, incx, incy


def _first(ptr: int, count: int, inc: int) -> int:
    """BLAS negative strides: logical element 0 is the last in memory."""
    return ptr if inc > 0 else ptr + 4 * (count - 1) * (-inc)


def sgemv(A, x, y=None, alpha: float = 1.0, beta: float = 0.0, config=None, arch: Optional[str] = None,
          stream=0, trans: bool = False, incx: int = 1, incy: int = 1):
    """y = alpha * op(A) x + beta * y in FP32 (op(A) = A^T when trans), with a shape-chosen
    generated kernel.  A: row-major, or column-major (handled as the transpose of a row-major
    matrix).  incx / incy: BLAS strides into x and y (negative: backwards from the end).
    beta == 0 ignores y's contents.  Device operands: asynchronous on `stream`, y written in
    place and returned.  Host operands: returns a numpy array (y itself when given)."""
    a, xv, yv, alpha, beta, m, n, op, incx, incy = check_sgemv_args(A, x, y, alpha, beta, trans, incx, incy)
    if config is not None and not isinstance(config, (SgemvConfig, SgemvTConfig)):
        raise InputError(f"config: expected an SgemvConfig, got {type(config).__name__}")
    if config is not None and isinstance(config, SgemvTConfig) != (op == "T"):
        raise InputError(f"config: a {type(config).__name__} does not compute op {op} "
                         f"(SgemvConfig: y = A x on row-major A; SgemvTConfig: y = A^T x)")
    if a.on_device and yv is None:
        raise InputError("device operands: pass y (the output buffer) as well")
    if arch:
        check_arch(arch)  # a bad arch is refused before any GPU lookup
    xlen, ylen = (n, m) if op == "N" else (m, n)
    plan = plan_for(m, n, op, incx, incy, config, arch or None)
    if a.on_device:
        plan.launch(alpha, a.ptr, a.ld, _first(xv.ptr, xlen, incx), incx, beta,
                    _first(yv.ptr, ylen, incy), incy, int(stream))
        return y
    return _host_gemv(plan, a, xv, yv, alpha, beta, xlen, ylen, incx, incy)


def _gather(host: np.ndarray, count: int, inc: int) -> np.ndarray:
    idx = np.arange(count) * abs(inc)
    return host[idx if inc > 0 else idx[::-1]]


def _host_gemv(plan, a, xv, yv, alpha, beta, xlen, ylen, incx, incy):
    ha = a.host if a.host.flags.c_contiguous else np.ascontiguousarray(a.host)
    hx = np.ascontiguousarray(_gather(xv.host, xlen, incx))
    hy = np.ascontiguousarray(_gather(yv.host, ylen, incy)) if yv is not None else np.empty(ylen, np.float32)
    with driver.to_device(ha) as da, driver.to_device(hx) as dx, driver.DeviceBuffer(hy.nbytes) as dy:
        if beta != 0.0:
            dy.upload(hy)
        plan.launch(alpha, da.ptr, ha.shape[1], dx.ptr, 1, beta, dy.ptr, 1)
        driver.synchronize(plan.describe())
        dy.download(hy)
    if yv is None:
        return hy
    out = yv.host
    idx = np.arange(ylen) * abs(incy)
    out[idx if incy > 0 else idx[::-1]] = hy
    return out


# ---- the GEMV path of sgemm ---------------------------------------------------------
def gemv_for_gemm(m: int, n: int, k: int, a: int, lda: int, trans_a: bool, b: int, ldb: int, trans_b: bool,
                  c: int, ldc: int, alpha: float, beta: float, stream: int = 0) -> bool:
    """Row-major C (m x n) = alpha * op(A) op(B) + beta * C on device pointers, when it is a
    GEMV (m == 1 or n == 1); returns False (nothing launched) otherwise.  A is m x k (k x m
    stored when trans_a), B is k x n (n x k stored when trans_b), leading dimensions in
    elements.  Asynchronous on `stream`.

    m == 1: c[j] = sum_p x[p] op(B)[p, j] with x the row of A: y = B^T x (op T on B, k x n) or,
    trans_b, y = B x (op N on the stored n x k B).  n == 1: c[i * ldc] = sum_p op(A)[i, p] x[p],
    x the column of op(B): y = A x (op N, A m x k) or, trans_a, y = A^T x (op T, A stored k x m)."""
    if k < 1 or not (m == 1 or n == 1):
        return False
    if m == 1:  # x: the row of op(A); the matrix: B
        x, incx = a, (lda if trans_a and k > 1 else 1)
        mat, rows, cols, ld, op = (b, n, k, ldb, "N") if trans_b else (b, k, n, ldb, "T")
        y, incy = c, 1
    else:  # x: the column of op(B); the matrix: A
        x, incx = b, (1 if trans_b or k == 1 else ldb)
        mat, rows, cols, ld, op = (a, k, m, lda, "T") if trans_a else (a, m, k, lda, "N")
        y, incy = c, (ldc if m > 1 else 1)
    if rows == 1:
        ld = -(-cols // 4) * 4  # a single row's leading dimension is never used: keep float4 loads
    plan = plan_for(rows, cols, op, int(incx), int(incy))
    plan.launch(float(alpha), int(mat), int(ld), int(x), int(incx), float(beta), int(y), int(incy), int(stream))
    return True
