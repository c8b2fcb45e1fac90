"""Public entry point regtile.sgemm (regtile.sgemv lives in runtime/gemv.py, re-exported here).

Every argument is checked (dtype, shape, strides, alignment, sizes) before the GPU
is touched; a refused call raises InputError and leaves the caller's buffers as
they were.  Host (numpy) operands are copied to the device and back; device
operands (__cuda_array_interface__ / DLPack) are used in place.
"""
from __future__ import annotations

import dataclasses
import numbers
from typing import Dict, Optional


from ..codegen.config import SgemmConfig
from ..codegen.presets import get_preset
from . import driver
from .arrays import REAL, fast_key, remember
from .compiler import check_arch
from .errors import InputError
from .choice import _arch_of_device, forget_tuned
from .plans import GemmPlan, PlanCache, plan_cache
from .problem import Problem, current_torch_stream, kernel_problem, resolve, stream_handle

DEFAULT_SGEMM_PRESET = "zorder"


def _scalar(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name}={value!r}: expected a real number")
    return float(value)


def clear_caches() -> None:
    """Forget the cached plans and the tuning database read (after `regtile tune` in-process)."""
    plan_cache.clear()
    forget_tuned()
    _fast_plans.clear()


def check_sgemm_args(A, B, C, alpha, beta, transa: bool = False, transb: bool = False) -> Problem:
    """The checked problem (runtime/problem.py) or InputError; touches no GPU."""
    _scalar(alpha, "alpha")
    return resolve(A, B, C, transa, transb, _scalar(beta, "beta"))


def sgemm(A, B, C=None, alpha: float = 1.0, beta: float = 0.0, config: Optional[SgemmConfig] = None,
          arch: Optional[str] = None, stream=None, backend: Optional[str] = None,
          transa: bool = False, transb: bool = False):
    """C = alpha op(A) op(B) + beta C in FP32 with a generated kernel, op(X) = X^T when
    trans<x> (BLAS's transa/transb).  The kernel: `config` (built by `backend`, default
    CUDA C), else, for m == 1 or n == 1, the SGEMV family's kernel
    (runtime/gemv.gemv_route; a batch of them as one batched launch where codegen/batch_choice.batched_gemv
    takes it), else the fastest one `regtile tune` stored for the shape,
    else runtime/choice.default_sgemm_kernel's choice for the shape, layouts and batch; it is compiled and
    planned once per shape and layout (runtime/plans.py), later calls only launch.

    Operands: 2-D (rows, cols) or 3-D (batch, rows, cols; a batch of 1 or a batch stride
    of 0 broadcasts), float32, row-major or column-major views (transposes, Fortran order)
    used in place; a column-major C too.  Device arrays (torch tensors, parameters
    included, cupy, __cuda_array_interface__, DLPack): the GEMM is enqueued on `stream`
    (default: torch's current stream for torch tensors, else the legacy stream 0) and the
    call returns C without synchronising.  Host (numpy) arrays: copied to the device and
    back, C (allocated when None) returned.  m, n or batch 0: nothing is done; k == 0:
    C = beta C."""
    fast = fast_key(A, B, C, transa, transb, config, backend, arch)
    if fast is not None:
        hit = _fast_plans.get(fast)
        if hit is not None and type(alpha) in REAL and type(beta) in REAL:
            return _fast_launch(hit, A, B, C, alpha, beta, stream)
    if config is not None and not isinstance(config, SgemmConfig):
        raise InputError(f"config: expected an SgemmConfig, got {type(config).__name__}")
    if backend not in (None, "cuda", "ptx"):
        raise InputError(f"backend={backend!r}: must be 'cuda' or 'ptx'")
    alpha = _scalar(alpha, "alpha")
    p = resolve(A, B, C, transa, transb, _scalar(beta, "beta"))
    if p.on_device and p.c is None:
        raise InputError("device operands: pass C (the output buffer) as well")
    if arch:
        arch = check_arch(arch)  # a bad arch is refused before any GPU lookup
    if not p.on_device:
        return host_sgemm(p, alpha, beta, transa, transb, config, backend, arch)
    if p.empty or (p.k == 0 and beta == 1.0):
        return C
    kernel_problem(p, transa, transb)
    plan = run_device(p, alpha, beta, stream_handle(stream, p.a), config, backend, arch)
    if fast is not None and plan is not None:
        remember(_fast_plans, fast, (plan, p.swapped, p.a.torch_device))
    return C


# ---- the cached call: torch tensors whose metadata was seen before -----------------------
_fast_plans: Dict[tuple, tuple] = {}


def _fast_launch(hit, A, B, C, alpha, beta, stream):
    plan, swapped, dev = hit
    s = current_torch_stream(dev) if stream is None else stream_handle(stream)
    if swapped:
        plan.launch(B.data_ptr(), A.data_ptr(), C.data_ptr(), float(alpha), float(beta), s)
    else:
        plan.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), float(alpha), float(beta), s)
    return C


def _plan_for(p: Problem, config, backend, arch, cache=None, stream: int = 0) -> GemmPlan:
    """The cached plan of the kernel-level problem.  The process-wide cache keys on the
    kernel choice too; a Gemm object's own cache has one choice (and skips hashing it)."""
    batch = p.batch if p.batch > 1 else 0
    if cache is None:
        cache, choice = plan_cache, (config, backend, arch)
    else:
        choice = None
    key = (p.kernel_m, p.kernel_n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc, batch, p.strides, choice)
    plan = cache.get(key)
    if plan is None:
        with driver.outside_capture(stream):  # a first call inside a capture: load the module outside the graph
            plan = GemmPlan(p.kernel_m, p.kernel_n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc,
                            batch, p.strides, config=config, backend=backend, arch=arch)
        cache.put(key, plan)
    return plan


class Gemm:
    """An explicit plan, in the spirit of nvmath-python's plan/execute and cuBLASLt:

        plan = regtile.Gemm(m, n, k)            # op(A) m x k, op(B) k x n
        plan(A, B, C, alpha=1.0, beta=0.0, stream=None)   # enqueue, returns C

    `transa`/`transb` as in sgemm, `batch` > 0 for 3-D operands.  Without a `config`, the
    kernel is chosen as regtile.sgemm chooses it (the layouts and the batch included: an
    m == 1 or n == 1 GEMM runs the GEMV family) per operand layout (leading dimensions,
    row/column-major), compiled and planned on first use; each plan is kept as long as this
    object lives (a CUDA graph that captured a call stays valid while the object does).
    describe() names what runs."""

    def __init__(self, m: int, n: int, k: int, transa: bool = False, transb: bool = False, batch: int = 0,
                 config: Optional[SgemmConfig] = None, backend: Optional[str] = None, arch: Optional[str] = None):
        for name, v in (("m", m), ("n", n), ("k", k), ("batch", batch)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
                raise InputError(f"{name}={v!r}: expected an int >= 0")
        if config is not None and not isinstance(config, SgemmConfig):
            raise InputError(f"config: expected an SgemmConfig, got {type(config).__name__}")
        if backend not in (None, "cuda", "ptx"):
            raise InputError(f"backend={backend!r}: must be 'cuda' or 'ptx'")
        self.shape, self.transa, self.transb, self.batch = (int(m), int(n), int(k)), bool(transa), bool(transb), batch
        self.arch = check_arch(arch) if arch else _arch_of_device()
        self.config, self.backend = config, backend
        self._plans = PlanCache(size=64)
        self._fast: Dict[tuple, tuple] = {}

    def __call__(self, A, B, C, alpha: float = 1.0, beta: float = 0.0, stream=None):
        fast = fast_key(A, B, C, self.transa, self.transb, None, None, None)
        if fast is not None:
            hit = self._fast.get(fast)
            if hit is not None and type(alpha) in REAL and type(beta) in REAL:
                return _fast_launch(hit, A, B, C, alpha, beta, stream)
        alpha, beta = _scalar(alpha, "alpha"), _scalar(beta, "beta")
        p = resolve(A, B, C, self.transa, self.transb, beta)
        if (p.m, p.n, p.k) != self.shape or (p.batch if p.batched else 0) != self.batch:
            raise InputError(f"operands make a {p.m}x{p.n}x{p.k} (batch {p.batch}) GEMM; this plan is "
                             f"{'x'.join(map(str, self.shape))} (batch {self.batch})")
        if not p.on_device:
            from .host_gemm import run_host
            return run_host(p, alpha, beta, self.transa, self.transb,
                            lambda q, s: run_device(q, alpha, beta, s, self.config, self.backend, self.arch,
                                                    self._plans))
        if p.c is None:
            raise InputError("device operands: pass C (the output buffer) as well")
        if p.empty or (p.k == 0 and beta == 1.0):
            return C
        kernel_problem(p, self.transa, self.transb)
        plan = run_device(p, alpha, beta, stream_handle(stream, p.a), self.config, self.backend, self.arch,
                          self._plans)
        if fast is not None and plan is not None:
            remember(self._fast, fast, (plan, p.swapped, p.a.torch_device))
        return C

    def plans(self):
        """The plans made so far (one per operand layout met)."""
        return self._plans.values()

    def describe(self) -> str:
        m, n, k = self.shape
        head = f"regtile.Gemm {m}x{n}x{k}" + (f" x{self.batch}" if self.batch else "")
        made = self.plans()
        if made:
            return head + ": " + "; ".join(p.describe() for p in made)
        what = f"{self.config} ({self.backend or 'cuda'})" if self.config is not None else "chosen on first call"
        return f"{head}: {what}"


def run_device(p: Problem, alpha: float, beta: float, stream: int, config=None, backend=None, arch=None,
               cache=None) -> None:
    """Enqueue the (kernel-level, non-empty) problem `p` on `stream`; its plan (None for k == 0)."""
    if p.torch_device_mismatch():
        raise InputError("operands on a CUDA device other than 0: regtile runs on device 0")
    if p.k == 0:  # C = beta C: a kernel on k = 1 with zero operands and alpha 0 (graph-capturable,
        # stream-ordered); the zorder CUDA C preset unless a config was given: every size is tested on it
        if config is None:
            config, backend = get_preset(DEFAULT_SGEMM_PRESET).config, "cuda"
        zeros = _zeros(max(p.kernel_m, p.kernel_n))
        z = dataclasses.replace(p, k=1, trans_a=False, trans_b=False, lda=1, ldb=max(p.kernel_n, 1),
                                strides=(0, 0, p.strides[2]))
        _plan_for(z, config, backend, arch, cache, stream).launch(zeros, zeros, p.c.ptr, 0.0, beta, stream)
        return None
    a, b, c = p.pointers()
    plan = _plan_for(p, config, backend, arch, cache, stream)
    plan.launch(a, b, c, alpha, beta, stream)
    return plan


_zero_buf: Optional[driver.DeviceBuffer] = None


def _zeros(count: int) -> int:
    """A device buffer of at least `count` zero floats (k == 0's operands), kept."""
    global _zero_buf
    if _zero_buf is None or _zero_buf.nbytes < 4 * count:
        _zero_buf = driver.zeros_u32(max(count, 1024))
    return _zero_buf.ptr


def host_sgemm(p: Problem, alpha, beta, transa, transb, config, backend, arch):
    """numpy operands: uploaded as their bytes are (a transposed or Fortran-order array is
    a column-major operand), C downloaded back; synchronises."""
    from .host_gemm import run_host
    return run_host(p, alpha, beta, transa, transb, lambda q, s: run_device(q, alpha, beta, s, config, backend, arch))


# sgemv moved to runtime/gemv.py; imported back for callers of regtile.runtime.gemm.sgemv.
from .gemv import sgemv  # noqa: E402,F401
