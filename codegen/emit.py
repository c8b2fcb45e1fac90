"""One entry to the backends: a config in, its kernel source out.

Backends: "cuda" (CUDA C, every config; NVRTC compiles it) and "ptx" (SGEMM only,
codegen/emit_ptx.py; nvJitLink compiles it).  Both emit the same kernel parameters and
launch geometry, so the runtime launches either."""
from __future__ import annotations

import dataclasses
from typing import Union

from .config import ConfigError, SgemmConfig
from .emit_cuda import emit_sgemm_cuda
from .emit_fewvec import emit_fewvec_cuda
from .emit_sgemv import emit_sgemv_cuda
from .fewvec_config import FewVecConfig, FewVecNConfig, FewVecTConfig
from .kernel import KernelSource
from .sgemv_config import SgemvConfig, SgemvTConfig

AnyConfig = Union[SgemmConfig, SgemvConfig, SgemvTConfig, FewVecNConfig, FewVecTConfig]


def emit_cuda(cfg: AnyConfig) -> KernelSource:
    if isinstance(cfg, SgemmConfig):
        return emit_sgemm_cuda(cfg)
    if isinstance(cfg, (SgemvConfig, SgemvTConfig)):
        return emit_sgemv_cuda(cfg)
    if isinstance(cfg, FewVecConfig):
        return emit_fewvec_cuda(cfg)
    raise TypeError(f"no emitter for {type(cfg).__name__}")


BACKENDS = ("cuda", "ptx")


def emit(cfg: AnyConfig, backend: str = "cuda") -> KernelSource:
    """The kernel source of `cfg` from `backend` ("cuda" or "ptx"), marked for the SASS
    register-bank pass when the config asks for it."""
    src = _emit(cfg, backend)
    if getattr(cfg, "sass_pass", False):
        src = dataclasses.replace(src, sass_pass=True)
    return src


def _emit(cfg: AnyConfig, backend: str) -> KernelSource:
    if backend in BACKENDS:
        for knob in ("fused_stages", "fused_sum_loads"):
            if getattr(cfg, knob, 0):
                raise ConfigError(f"{knob}={getattr(cfg, knob)}: a knob of the fused split-K kernel (backend "
                                  f"'fusedk'); backend {backend!r} stages with `stages` and sums split-K in its reduce "
                                  f"kernel: leave {knob}=0")
    if backend == "cuda":
        if getattr(cfg, "stream_k", False):
            raise ConfigError("stream_k=True: the CUDA C backend has no work-list kernel; use --backend ptx for "
                              "stream-K, or split_k for the CUDA C backend")
        if getattr(cfg, "edge_split", False):
            raise ConfigError("edge_split=True: the CUDA C backend emits no edge kernel; use --backend ptx for the "
                              "edge split")
        if getattr(cfg, "unaligned_rows", False):
            raise ConfigError("unaligned_rows=True: the CUDA C backend has no unchecked per-float path; use "
                              "--backend ptx, or unaligned_rows=False")
        return emit_cuda(cfg)
    if backend == "fusedk":  # the fused split-K kernel (codegen/emit_fusedk.py)
        from .emit_fusedk import emit_sgemm_fusedk
        return emit_sgemm_fusedk(cfg)
    if backend == "ptx":
        if not isinstance(cfg, SgemmConfig):
            raise ConfigError(f"backend 'ptx' emits SGEMM kernels only; {type(cfg).__name__} needs backend 'cuda'")
        if cfg.split_k > 1:
            raise ConfigError(f"split_k={cfg.split_k}: the PTX backend emits one-pass kernels only (no K range per "
                              f"blockIdx.z, no reduce kernel); use --backend cuda for split-K, or split_k=1")
        from .emit_ptx import emit_sgemm_ptx
        return emit_sgemm_ptx(cfg)
    raise ConfigError(f"backend={backend!r}: must be one of {BACKENDS}")


def kernel_kind(cfg: AnyConfig) -> str:
    return "sgemv" if isinstance(cfg, (SgemvConfig, SgemvTConfig) + FewVecConfig) else "sgemm"
