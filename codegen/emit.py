"""One entry to the backends: a config in, its kernel source out.

Backends: "cuda" (CUDA C, every config; NVRTC compiles it), "ptx" (SGEMM only,
codegen/emit_ptx.py; nvJitLink compiles it) and "fusedk" (the fused split-K SGEMM,
codegen/emit_fusedk.py: its own template, one launch).  All emit the SGEMM kernel parameters
and launch geometry the runtime expects, so it launches any of them."""
from __future__ import annotations

import dataclasses
from typing import Union

from .config import ConfigError, SgemmConfig
from .emit_cuda import emit_sgemm_cuda
from .emit_fewvec import emit_fewvec_cuda
from .emit_sgemv import emit_sgemv_cuda
from .fewvec_config import FewVecConfig, FewVecNConfig, FewVecTConfig
from .kernel import KernelSource
from .repack import PackConfig
from .sgemv_config import SgemvConfig, SgemvTConfig

AnyConfig = Union[SgemmConfig, SgemvConfig, SgemvTConfig, FewVecNConfig, FewVecTConfig, PackConfig]


def emit_cuda(cfg: AnyConfig) -> KernelSource:
    if isinstance(cfg, SgemmConfig):
        return emit_sgemm_cuda(cfg)
    if isinstance(cfg, (SgemvConfig, SgemvTConfig)):
        return emit_sgemv_cuda(cfg)
    if isinstance(cfg, FewVecConfig):
        return emit_fewvec_cuda(cfg)
    if isinstance(cfg, PackConfig):
        from .emit_pack import emit_pack_cuda
        return emit_pack_cuda(cfg)
    raise TypeError(f"no emitter for {type(cfg).__name__}")


BACKENDS = ("cuda", "ptx", "fusedk")
SGEMM_ONLY = ("ptx", "fusedk")  # the backends that emit SGEMM kernels only (cuda emits every config)

# The config fields that only some backends emit: (field, its values when off, the backends that
# accept it on, what it asks for).  A backend not listed would ignore the field or emit something
# else, so emit refuses the config; checked in the table's order (the first field on wins).
BACKEND_FIELDS = (
    ("stream_k", (False,), ("ptx",), "stream-K's work-list kernel"),
    ("edge_split", (False,), ("ptx",), "the edge strips' kernel"),
    ("unaligned_rows", (False,), ("ptx",), "the unaligned rows' unchecked per-float copies"),
    ("unaligned_vectors", (False,), ("ptx",), "the unaligned rows' unchecked vector floats"),
    ("edge_clamp", (False,), ("ptx",), "the edge tiles' clamped sources"),
    ("last_col", (False,), ("ptx",), "C's last column fused into the last tile column"),
    ("c_staged", (False,), ("ptx",), "C's unaligned rows stored through shared memory"),
    ("max_registers", (0,), ("ptx",), "a register cap on every entry (.maxnreg)"),
    ("hoist_head", (False,), ("ptx",), "the two-stage loop's head at the previous k-tile's end"),
    ("lean_copies", (False,), ("fusedk",), "the fused kernel's loop of lean copies"),
    ("split_k", (1,), ("cuda", "fusedk"), "K ranges over blockIdx.z summed by a reduce step (the PTX backend "
                                        "emits one-pass kernels)"),
    ("stages", (0, 1, 2), ("ptx",), "the cp.async ring (stages 3 or 4)"),
    ("batched", (False,), ("cuda", "ptx"), "a batch over blockIdx.z"),
)


def check_backend(cfg: AnyConfig, backend: str) -> None:
    """Refuse, naming the field, a config that `backend` does not emit as asked."""
    if backend not in BACKENDS:
        raise ConfigError(f"backend={backend!r}: must be one of {BACKENDS}")
    if backend in SGEMM_ONLY and not isinstance(cfg, SgemmConfig):
        raise ConfigError(f"backend {backend!r} emits SGEMM kernels only; {type(cfg).__name__} needs backend 'cuda'")
    for field, offs, accepting, what in BACKEND_FIELDS:
        value = getattr(cfg, field, offs[0])
        if value not in offs and backend not in accepting:
            raise ConfigError(f"{field}={value!r}: backend {backend!r} does not emit {what}; backends that accept "
                              f"{field}: {', '.join(map(repr, accepting))} (use --backend {' or '.join(accepting)}, "
                              f"or {field}={offs[-1]!r})")


def emit(cfg: AnyConfig, backend: str = "cuda") -> KernelSource:
    """The kernel source of `cfg` from `backend` (BACKENDS), marked for the SASS register-bank
    pass when the config asks for it."""
    src = _emit(cfg, backend)
    if getattr(cfg, "sass_pass", False):
        src = dataclasses.replace(src, sass_pass=True)
    return src


def _emit(cfg: AnyConfig, backend: str) -> KernelSource:
    check_backend(cfg, backend)
    if backend == "cuda":
        return emit_cuda(cfg)
    if backend == "fusedk":  # the fused split-K kernel (codegen/emit_fusedk.py)
        from .emit_fusedk import emit_sgemm_fusedk
        return emit_sgemm_fusedk(cfg)
    from .emit_ptx import emit_sgemm_ptx
    return emit_sgemm_ptx(cfg)


def describe(cfg: AnyConfig, backend: str = "cuda") -> str:
    """The config in words as `backend` emits it: the fused split-K kernel has its own (emit_fusedk.describe), every
    other backend the config's."""
    if backend == "fusedk":
        from .emit_fusedk import describe as describe_fusedk
        return describe_fusedk(cfg)
    return cfg.describe()


def kernel_kind(cfg: AnyConfig) -> str:
    return "sgemv" if isinstance(cfg, (SgemvConfig, SgemvTConfig) + FewVecConfig) else "sgemm"
