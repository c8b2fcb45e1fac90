"""Public entry point regtile.sgemm (regtile.sgemv lives in runtime/gemv.py, re-exported here).

Every argument is checked (dtype, shape, strides, alignment, sizes) before the GPU
is touched; a refused call raises InputError and leaves the caller's buffers as
they were.  Host (numpy) operands are copied to the device and back; device
operands (__cuda_array_interface__ / DLPack) are used in place.
"""
from __future__ import annotations

import numbers
from typing import Optional, Tuple

import numpy as np

from ..codegen.config import SgemmConfig
from ..codegen.presets import get_preset
from . import driver
from .arrays import Operand, as_operand
from .compiler import check_arch, compile_config
from .errors import InputError
from .sgemm_launch import SgemmLaunch, shared_workspace, workspace_bytes

DEFAULT_SGEMM_PRESET = "zorder"


def _scalar(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name}={value!r}: expected a real number")
    return float(value)


def _same_place(ops) -> bool:
    places = {op.on_device for op in ops if op is not None}
    if len(places) > 1:
        names = ", ".join(f"{op.name} ({'device' if op.on_device else 'host'})" for op in ops if op is not None)
        raise InputError(f"operands mix host and device arrays: {names}; pass all numpy or all device arrays")
    return places.pop()


def _arch_of_device() -> str:
    from ..codegen.hardware import SUPPORTED_ARCHS
    arch = driver.device().arch
    if arch not in SUPPORTED_ARCHS:
        raise InputError(f"the GPU is {arch}; regtile builds for {', '.join(SUPPORTED_ARCHS)}")
    return arch


def default_sgemm_kernel(m: int, n: int, arch: str, sms: int, k: int = 4096) -> Tuple[SgemmConfig, str]:
    """(config, backend) when nothing is tuned for the shape: the shape heuristic's family member
    (codegen/heuristic.py: a decision table fitted on the H100 sweep, a model elsewhere; sm_80..89
    keep the zorder preset through CUDA C).  `k` defaults for callers that know only M x N."""
    from ..codegen.heuristic import choose_kernel
    return choose_kernel(m, n, k, arch, sms)


def choose_sgemm_kernel(m: int, n: int, k: int, arch: str) -> Tuple[SgemmConfig, str]:
    """The fastest config `regtile tune` stored for this shape and device on either backend,
    else default_sgemm_kernel."""
    from .tuning_db import best
    dev = driver.device()
    found = []
    for backend in ("cuda", "ptx"):
        try:
            hit = best(dev.name, m, n, k, backend)
        except Exception:  # an unreadable tuning store is no reason to refuse the GEMM
            hit = None
        if hit:
            found.append((hit[1]["ms"], hit[0], backend))
    if found:
        _, cfg, backend = min(found, key=lambda t: t[0])
        return cfg, backend
    return default_sgemm_kernel(m, n, arch, dev.sm_count, k)


def choose_sgemm_config(m: int, n: int, k: int) -> SgemmConfig:
    """The config part of choose_sgemm_kernel (kept for callers that build with CUDA C)."""
    return choose_sgemm_kernel(m, n, k, _arch_of_device())[0]


def check_sgemm_args(A, B, C, alpha, beta):
    """(a, b, c, alpha, beta, m, n, k) or InputError; touches no GPU."""
    alpha, beta = _scalar(alpha, "alpha"), _scalar(beta, "beta")
    a, b = as_operand(A, "A"), as_operand(B, "B")
    m, k = a.rows, a.cols
    if b.rows != k:
        raise InputError(f"shapes do not match: A is {m}x{k}, B is {b.rows}x{b.cols} (B needs {k} rows)")
    n = b.cols
    c = None
    if C is None:
        if beta != 0.0:
            raise InputError(f"beta={beta} needs C: pass the C to accumulate into")
    else:
        c = as_operand(C, "C")
        if (c.rows, c.cols) != (m, n):
            raise InputError(f"C is {c.rows}x{c.cols}, expected {m}x{n} (A {m}x{k} @ B {k}x{n})")
        if c.host is not None and not c.host.flags.writeable:
            raise InputError("C is a read-only numpy array")
    _same_place((a, b, c))
    return a, b, c, alpha, beta, m, n, k


def sgemm(A, B, C=None, alpha: float = 1.0, beta: float = 0.0, config: Optional[SgemmConfig] = None,
          arch: Optional[str] = None, stream=0, backend: Optional[str] = None):
    """C = alpha * A @ B + beta * C in FP32 with a generated kernel: `config` (built by
    `backend`, default CUDA C), else the fastest one `regtile tune` stored for this shape,
    else default_sgemm_kernel's choice.

    Host operands: returns a numpy array (C itself when given, written in place).
    Device operands: writes C in place (allocate it when beta == 0 and C is None is
    not supported for device inputs: pass C) and returns it."""
    a, b, c, alpha, beta, m, n, k = check_sgemm_args(A, B, C, alpha, beta)
    if config is not None and not isinstance(config, SgemmConfig):
        raise InputError(f"config: expected an SgemmConfig, got {type(config).__name__}")
    if a.on_device and c is None:
        raise InputError("device operands: pass C (the output buffer) as well")
    if backend not in (None, "cuda", "ptx"):
        raise InputError(f"backend={backend!r}: must be 'cuda' or 'ptx'")
    arch = check_arch(arch) if arch else _arch_of_device()  # a bad arch is refused before any GPU lookup
    if config is not None:
        cfg, backend = config, backend or "cuda"
    else:
        cfg, chosen = choose_sgemm_kernel(m, n, k, arch)
        backend = backend or chosen
    kernel = driver.load(compile_config(cfg, arch, backend=backend))
    if a.on_device:
        # split-K: the partials go to a workspace shared by calls, held until the sync below
        with shared_workspace.get(workspace_bytes(kernel, m, n, k)) as ws:
            launch = SgemmLaunch(kernel, m, n, k, alpha, a.ptr, a.ld, b.ptr, b.ld, beta, c.ptr, c.ld, ws)
            launch(int(stream))
            driver.check(driver._cu().cuStreamSynchronize(stream),
                         f"cuStreamSynchronize after {launch.describe()}", driver.LaunchError)
        return C
    return _host_gemm(kernel, a, b, c, alpha, beta, m, n, k)


def _dense(op: Operand) -> np.ndarray:
    """The host matrix as a dense (rows x ld) float32 buffer to upload."""
    arr = op.host
    if arr.flags.c_contiguous:
        return arr
    return np.ascontiguousarray(arr)


def _host_gemm(kernel, a, b, c, alpha, beta, m, n, k):
    ha, hb = _dense(a), _dense(b)
    out = c.host if c is not None else np.empty((m, n), dtype=np.float32)
    hc = np.ascontiguousarray(out) if c is not None else out
    with driver.to_device(ha) as da, driver.to_device(hb) as db, driver.DeviceBuffer(hc.nbytes) as dc, \
            shared_workspace.get(workspace_bytes(kernel, m, n, k)) as ws:
        if beta != 0.0:
            dc.upload(hc)
        launch = SgemmLaunch(kernel, m, n, k, alpha, da.ptr, ha.shape[1], db.ptr, hb.shape[1], beta, dc.ptr, n, ws)
        launch()
        driver.synchronize(launch.describe())
        dc.download(hc)
    if hc is not out:
        out[...] = hc
    return out


# sgemv moved to runtime/gemv.py; imported back for callers of regtile.runtime.gemm.sgemv.
from .gemv import check_sgemv_args, sgemv  # noqa: E402,F401
