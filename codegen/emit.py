"""One entry to the CUDA C backends: a config in, its kernel source out."""
from __future__ import annotations

from typing import Union

from .config import SgemmConfig
from .emit_cuda import emit_sgemm_cuda
from .emit_sgemv import emit_sgemv_cuda
from .kernel import KernelSource
from .sgemv_config import SgemvConfig

AnyConfig = Union[SgemmConfig, SgemvConfig]


def emit_cuda(cfg: AnyConfig) -> KernelSource:
    if isinstance(cfg, SgemmConfig):
        return emit_sgemm_cuda(cfg)
    if isinstance(cfg, SgemvConfig):
        return emit_sgemv_cuda(cfg)
    raise TypeError(f"no emitter for {type(cfg).__name__}")


def kernel_kind(cfg: AnyConfig) -> str:
    return "sgemv" if isinstance(cfg, SgemvConfig) else "sgemm"
