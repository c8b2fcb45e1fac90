"""regtile.sgemv: y = alpha * op(A) x + beta * y, and the GEMV path of m == 1 / n == 1 GEMMs.

Stages: choose_gemv (codegen/sgemv_config.py) picks the kernel and the split from (m, n, op, SM
count); compile_config builds it; a GemvPlan holds the loaded kernel, its grids and a workspace
per stream. Plans are cached in memory by (m, n, op, incx, incy, arch, config, splits, batch, strides), for the
life of the process (not evicted, unlike GemmPlan's and FewVecPlan's LRUs: a split plan's workspace may be in a
captured graph); batched plans (no workspace; decode makes one a context length) in an LRU of their own,
_batched_plans: a repeated call does
no codegen, no hashing and no disk access; its launches are packed once per (stream, incx, incy)
(driver.PackedLaunch) and a call rewrites six fields and calls cuLaunchKernel once or twice. On
torch tensors whose metadata was seen before, regtile.sgemv skips the checks too (one dict
lookup; docs/overhead.md: 9.9 us a call against 44 us before, torch.mv 9.0 us). regtile.sgemm
plans its m == 1 / n == 1 GEMMs through gemv_route (runtime/plans.GemmPlan).

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
from ..codegen.hardware import MAX_GRID_YZ, arch_number
from ..codegen.sgemv_config import CLUSTER_MIN_ARCH, SgemvConfig, SgemvTConfig, choose_gemv, splits_for
from . import driver
from .arrays import INT_MAX, REAL, Operand, as_operand, fast_key, remember
from .compiler import check_arch, compile_config
from .errors import InputError
from .packed_plan import PackedPlan
from .plan_store import PlanCache
from .problem import current_torch_stream, stream_handle

_lock = threading.Lock()
_plans: Dict[tuple, "GemvPlan"] = {}
_batched_plans = PlanCache()  # batched GEMV plans: no workspace, so evicting one frees nothing a graph uses
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


# the per-call fields of the GEMV kernels' packed arguments (driver.PackedLaunch): the values
# tuple of GemvPlan.launch's packed call is (A, lda, x, y, alpha, beta)
_DYNAMIC = {"A": 0, "lda": 1, "x": 2, "y": 3, "alpha": 4, "beta": 5}


class GemvPlan(PackedPlan):
    """One GEMV shape on one kernel: y (count = M for op N, N for op T) from A (M x N,
    row-major).  gridDim.y = splits: 1 writes y directly; more write partial sums to the
    workspace, which the module's reduce kernel sums in split order (deterministic).

    Per (stream, incx, incy) the launches are packed once (driver.PackedLaunch, as GemmPlan's):
    a call rewrites six fields and calls cuLaunchKernel once or twice."""

    def __init__(self, kernel, m: int, n: int, op: str, splits: int, config=None, batch: int = 0,
                 strides: Tuple[int, int, int] = (0, 0, 0)):
        super().__init__()
        self.kernel, self.m, self.n, self.op, self.splits = kernel, m, n, op, max(1, int(splits))
        self.config = config
        # a batched kernel (sgemv_config.BATCHED_DOC): gridDim.z = batch, one split; strides (elements) of the
        # matrix, x and y between entries
        self.batch, self.strides = int(batch), tuple(int(s) for s in strides)
        if bool(self.batch) != bool(getattr(config, "batched", False)):
            raise InputError(f"{config.describe() if config is not None else 'the kernel'}: "
                             + ("a batch needs a batched GEMV kernel" if self.batch else
                                "a batched GEMV kernel needs a batch (batch >= 1)"))
        if self.batch and self.splits != 1:
            raise InputError(f"a batched GEMV runs one split a matrix, got {self.splits} splits")
        cfg_geo = kernel.source.geometry
        if op == "N":
            self.grid = (-(-m // cfg_geo.tile_m), self.splits, max(self.batch, 1))
            self.count = m
        else:
            self.grid = (-(-n // cfg_geo.tile_n), self.splits, max(self.batch, 1))
            self.count = n
        if self.grid[0] > INT_MAX or self.grid[1] > MAX_GRID_YZ or self.grid[2] > MAX_GRID_YZ:
            raise InputError(f"{m}x{n} op {op}" + (f" x{self.batch}" if self.batch else "")
                             + f": grid {self.grid} exceeds the launch limits (y and z at most {MAX_GRID_YZ})")
        self.reduce_grid = (-(-self.count // reduce_outputs_per_block(self.splits)), 1, 1)
        # one launch (config.fused_reduce): the kernel's last block a column sums the partials;
        # its counters (grid[0] unsigneds) follow the partials in the workspace
        self.fused = self.splits > 1 and bool(getattr(config, "fused_reduce", False))
        # a cluster launch (config.cluster, sm_90): the splits meet in distributed shared memory,
        # no workspace, no reduce; the kernel's __cluster_dims__ need gridDim.y == cluster
        self.cluster = int(getattr(config, "cluster", 0) or 0)
        if self.cluster and self.splits != self.cluster:
            raise InputError(f"{config.describe()}: needs {self.cluster} splits (one cluster a strip), "
                             f"got {self.splits}")

    def _new_workspace(self) -> Optional[driver.DeviceBuffer]:
        if self.splits == 1 or self.cluster:
            return None
        words = self.splits * self.count
        # the fused reduce's arrival counters (one a block column) after the partials, zeroed
        return driver.zeros_u32(words + self.grid[0]) if self.fused else driver.DeviceBuffer(4 * words)

    def workspace(self, stream: int) -> int:
        """The split partials' buffer of `stream` (0 when there is no split)."""
        buf = self.workspace_buffer(stream)
        return buf.ptr if buf is not None else 0

    def _launches(self, key: tuple, w: int) -> list:
        """The packed launches of (stream, incx, incy): the main kernel, then the reduce."""
        _, incx, incy = key
        args = (self.m, self.n, 0.0, 0, 0, 0, incx, 0.0, 0, incy, w) + (self.strides if self.batch else ())
        launches = [driver.PackedLaunch(self.kernel, self.grid, args, _DYNAMIC)]
        if self.splits > 1 and not self.fused and not self.cluster:
            launches.append(driver.PackedLaunch(self.kernel.reduce, self.reduce_grid,
                                                (self.count, self.splits, 0.0, w, 0.0, 0, incy), _DYNAMIC))
        return launches

    def launch(self, alpha: float, a: int, lda: int, x: int, incx: int, beta: float, y: int, incy: int,
               stream: int = 0) -> None:
        key = (stream, incx, incy)
        packed = self._packed.get(key) or self._pack_once(key)
        values = (a, lda, x, y, alpha, beta)
        with self._args_lock:  # the driver copies kernelParams at launch: the buffers are free after
            for launch in packed:
                launch(values, stream)

    def describe(self) -> str:
        return (f"{self.kernel.source.name} op {self.op} {self.m}x{self.n}"
                + (f" x{self.batch} (strides {', '.join(map(str, self.strides))})" if self.batch else "")
                + f", grid {self.grid}"
                + (f", {self.splits} splits" + (" (one launch)" if self.fused else
                                                 " (one cluster launch)" if self.cluster else " + reduce")
                   if self.splits > 1 else ""))


def plan_for(m: int, n: int, op: str = "N", incx: int = 1, incy: int = 1, config=None,
             arch: Optional[str] = None, splits: Optional[int] = None, batch: int = 0,
             strides: Tuple[int, int, int] = (0, 0, 0)) -> GemvPlan:
    """The cached plan for A (m x n, row-major) and op; built (codegen, compile, load) once.  batch > 0: `batch`
    GEMVs whose A, x and y lie `strides` elements apart, in one launch of a batched kernel (BATCHED_DOC), its
    config codegen/batch_choice.batched_gemv's unless given."""
    dev_arch, sms = _arch_and_sms() if arch is None else (arch, None)
    key = (m, n, op, incx, incy, dev_arch, config, splits, batch, strides)
    cache = _batched_plans if batch else _plans
    plan = cache.get(key)
    if plan is not None:
        return plan
    if sms is None:
        sms = _arch_and_sms()[1]
    if config is not None:
        cfg = config
    elif batch:
        from ..codegen.batch_choice import batched_gemv
        cfg = batched_gemv(m, n, op, batch, sms)
        if cfg is None:
            raise InputError(f"{m}x{n} op {op} x{batch}: no batched GEMV kernel is chosen for this shape")
    else:
        cfg = choose_gemv(m, n, op, sms)[0]
    if getattr(cfg, "cluster", 0) and arch_number(dev_arch) < CLUSTER_MIN_ARCH:
        raise InputError(f"{cfg.describe()}: thread-block clusters need sm_{CLUSTER_MIN_ARCH}, this is {dev_arch}")
    kernel = driver.load(compile_config(cfg, dev_arch))
    if splits is None:
        splits = 1 if batch else splits_for(cfg, m, n, sms, kernel.blocks_per_sm)
    if batch:
        return _batched_plans.put(key, GemvPlan(kernel, m, n, op, splits, cfg, batch, strides))
    with _lock:
        plan = _plans.setdefault(key, GemvPlan(kernel, m, n, op, splits, cfg, batch, strides))
    return plan


def launcher_for(kernel, m: int, n: int, cfg) -> GemvPlan:
    """A plan around an already loaded kernel of `cfg` (bench, sanitize, `regtile run`): op from
    the config's family (SgemvTConfig: T); one split, or a cluster kernel's compiled cluster."""
    op = "T" if isinstance(cfg, SgemvTConfig) else "N"
    return GemvPlan(kernel, m, n, op, kernel.source.geometry.cluster or 1, cfg)


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
    if abs(inc) == 1:
        if op.rows != count:
            raise InputError(f"{name} has {op.rows} elements, expected {count}")
        return op
    need = 1 + (count - 1) * abs(inc)
    if op.rows < need:
        raise InputError(f"{name} has {op.rows} elements, needs {count} elements at stride {inc}: {need}")
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


# torch operands seen before: their metadata -> (plan, lda, x offset, incx, y offset, incy, device)
_fast: Dict[tuple, tuple] = {}


def sgemv(A, x, y=None, alpha: float = 1.0, beta: float = 0.0, config=None, arch: Optional[str] = None,
          stream=None, trans: bool = False, incx: int = 1, incy: int = 1):
    """y = alpha * op(A) x + beta * y in FP32 (op(A) = A^T when trans), with a shape-chosen
    generated kernel.  A: row-major, or column-major (handled as the transpose of a row-major
    matrix).  incx / incy: BLAS strides into x and y (negative: backwards from the end).
    beta == 0 ignores y's contents.  Device operands: asynchronous on `stream` (default:
    torch's current stream for torch tensors, else the legacy stream 0), y written in place
    and returned.  Host operands: returns a numpy array (y itself when given).

    A repeated call on torch tensors of the same metadata (dtype, shape, strides, device)
    skips the checks: one dict lookup, then the cached plan's packed launch (as sgemm's)."""
    fast = fast_key(A, x, y, trans, incx, incy, config, arch)
    if fast is not None:
        hit = _fast.get(fast)
        if hit is not None and type(alpha) in REAL and type(beta) in REAL:
            plan, lda, xoff, ix, yoff, iy, dev = hit
            s = current_torch_stream(dev) if stream is None else stream_handle(stream)
            plan.launch(float(alpha), A.data_ptr(), lda, x.data_ptr() + xoff, ix, float(beta), y.data_ptr() + yoff,
                        iy, s)
            return y
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
    if not a.on_device:
        return _host_gemv(plan, a, xv, yv, alpha, beta, xlen, ylen, incx, incy)
    dev = A.get_device() if fast is not None else None
    s = (current_torch_stream(dev) if dev is not None else 0) if stream is None else stream_handle(stream)
    xp, yp = _first(xv.ptr, xlen, incx), _first(yv.ptr, ylen, incy)
    plan.launch(alpha, a.ptr, a.ld, xp, incx, beta, yp, incy, s)
    if fast is not None and dev is not None and dev >= 0:
        remember(_fast, fast, (plan, a.ld, xp - xv.ptr, incx, yp - yv.ptr, incy, dev))
    return y


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
class GemvRoute:
    """A row-major C (m x n) = alpha op(A) op(B) + beta C with m == 1 or n == 1, as the GEMV
    of a cached GemvPlan: which of A and B is the matrix and which the vector, their leading
    dimension and strides, worked out once (a GemmPlan's launches when sgemm routes there)."""
    __slots__ = ("plan", "mat_is_a", "ld", "incx", "incy")

    def __init__(self, plan: GemvPlan, mat_is_a: bool, ld: int, incx: int, incy: int):
        self.plan, self.mat_is_a, self.ld, self.incx, self.incy = plan, mat_is_a, ld, incx, incy

    @property
    def config(self):
        return self.plan.config

    def launch(self, a: int, b: int, c: int, alpha: float, beta: float, stream: int = 0) -> None:
        mat, x = (a, b) if self.mat_is_a else (b, a)
        self.plan.launch(alpha, mat, self.ld, x, self.incx, beta, c, self.incy, stream)


def gemv_matrix(m: int, n: int, k: int, trans_a: bool, trans_b: bool) -> Tuple[int, int, str]:
    """(rows, cols, op) of the row-major matrix the GEMV of an m == 1 (the matrix B) or n == 1 (the matrix A) GEMM
    reads: B stored n x k is op N over its rows, k x n op T; A stored k x m op T, m x k op N (gemv_route)."""
    if m == 1:
        return (n, k, "N") if trans_b else (k, n, "T")
    return (k, m, "T") if trans_a else (m, k, "N")


def gemv_route(m: int, n: int, k: int, trans_a: bool, lda: int, trans_b: bool, ldb: int, ldc: int,
               arch: Optional[str] = None, batch: int = 0,
               strides: Tuple[int, int, int] = (0, 0, 0), config=None) -> Optional[GemvRoute]:
    """The GEMV that computes row-major C (m x n) = alpha op(A) op(B) + beta C when m == 1 or
    n == 1 (k >= 1), its plan built (codegen, compile, load) once; None otherwise.  A is m x k
    (k x m stored when trans_a), B is k x n (n x k stored when trans_b), leading dimensions in
    elements.

    m == 1: c[j] = sum_p x[p] op(B)[p, j] with x the row of A: y = B^T x (op T on B, k x n) or,
    trans_b, y = B x (op N on the stored n x k B).  n == 1: c[i * ldc] = sum_p op(A)[i, p] x[p],
    x the column of op(B): y = A x (op N, A m x k) or, trans_a, y = A^T x (op T, A stored k x m).

    batch > 0: `batch` such GEMMs, A, B and C `strides` elements apart (0 broadcasts), as one batched GEMV where
    codegen/batch_choice.batched_gemv takes the shape (else None: the batched GEMM members run it).  `config`: the
    GEMV kernel's config instead of the rule's (lab A/Bs; batched where batch > 0)."""
    if k < 1 or not (m == 1 or n == 1):
        return None
    rows, cols, op = gemv_matrix(m, n, k, trans_a, trans_b)
    if m == 1:  # x: the row of op(A); the matrix: B
        incx = lda if trans_a and k > 1 else 1
        ld, incy, mat_is_a = ldb, 1, False
    else:  # x: the column of op(B); the matrix: A
        incx = 1 if trans_b or k == 1 else ldb
        ld, incy, mat_is_a = lda, (ldc if m > 1 else 1), True
    if rows == 1:
        ld = -(-cols // 4) * 4  # a single row's leading dimension is never used: keep float4 loads
    if batch:
        from ..codegen.batch_choice import batched_gemv
        config = config or batched_gemv(rows, cols, op, batch, _arch_and_sms()[1])
        if config is None:
            return None
        sa, sb, sc = strides
        strides = (sa, sb, sc) if mat_is_a else (sb, sa, sc)  # the matrix's, x's, y's
    plan = plan_for(rows, cols, op, int(incx), int(incy), config=config, arch=arch, batch=batch,
                    strides=tuple(map(int, strides)))
    return GemvRoute(plan, mat_is_a, int(ld), int(incx), int(incy))


def gemv_for_gemm(m: int, n: int, k: int, a: int, lda: int, trans_a: bool, b: int, ldb: int, trans_b: bool,
                  c: int, ldc: int, alpha: float, beta: float, stream: int = 0) -> bool:
    """Row-major C (m x n) = alpha * op(A) op(B) + beta * C on device pointers, when it is a
    GEMV (m == 1 or n == 1; gemv_route); returns False (nothing launched) otherwise.
    Asynchronous on `stream`.  regtile.sgemm takes this route through its cached plans
    (runtime/plans.GemmPlan)."""
    route = gemv_route(m, n, k, trans_a, lda, trans_b, ldb, ldc)
    if route is None:
        return False
    route.launch(int(a), int(b), int(c), float(alpha), float(beta), int(stream))
    return True
