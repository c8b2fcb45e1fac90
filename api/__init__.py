"""regtile: a generator of register-tiled FP32 GPU kernels.

    from regtile import SgemmConfig, get_preset, emit_sgemm_cuda
    src = emit_sgemm_cuda(get_preset("zorder").config)

Stages (each artifact can be printed or saved): config -> plan -> program -> emit (render)
(regtile.codegen) -> compile (regtile.runtime.compiler) -> optional SASS pass
(regtile.sass) -> load/launch (regtile.runtime).  Errors: regtile.errors, all RegtileError.
"""
from .errors import (ArchError, CompileError, ConfigError, CublasUnavailable, DriverError, InputError, LaunchError,
                     NoGpuError, RegtileError, SassError, SpillError)
# an SgemmConfig is a TileConfig, a Decomposition and BuildOptions (codegen/config.py)
from .codegen.config import BuildOptions, Decomposition, SgemmConfig, TileConfig
from .codegen.emit_cuda import emit_sgemm_cuda
from .codegen.plan import make_plan
from .codegen.presets import PRESETS, get_preset
# every name --preset accepts (SGEMM ladder, then SGEMV); regtile.codegen.presets.preset_names
# is the SGEMM ladder alone
from .codegen.presets import all_preset_names as preset_names
from .codegen.sgemv_config import SgemvConfig
from .runtime.gemm import Gemm, sgemm
from .runtime.gemv import sgemv
from . import runtime  # noqa: F401  (regtile.runtime.* reachable as attributes)


def __getattr__(name):
    # regtile.torch (the custom op, mm, linear) imports torch: only when asked for
    if name == "torch":
        import importlib
        return importlib.import_module(".torch_ops", __name__ + ".runtime")
    raise AttributeError(f"module 'regtile' has no attribute {name!r}")

__version__ = "0.1.0"
__all__ = ["SgemmConfig", "TileConfig", "Decomposition", "BuildOptions", "SgemvConfig", "emit_sgemm_cuda", "make_plan", "PRESETS", "get_preset", "preset_names",
           "Gemm", "sgemm", "sgemv", "__version__",
           # errors (regtile.errors): every one derives from RegtileError
           "RegtileError", "ConfigError", "InputError", "ArchError", "CompileError", "SpillError", "SassError",
           "NoGpuError", "DriverError", "LaunchError", "CublasUnavailable"]
