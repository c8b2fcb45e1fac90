"""regtile: a generator of register-tiled FP32 GPU kernels.

    from regtile import SgemmConfig, get_preset, emit_sgemm_cuda
    src = emit_sgemm_cuda(get_preset("zorder").config)

Stages (each artifact can be printed or saved): config -> plan -> emit
(regtile.codegen) -> compile and load/launch (regtile.runtime).
"""
from .codegen.config import ConfigError, SgemmConfig
from .codegen.emit_cuda import emit_sgemm_cuda
from .codegen.plan import make_plan
from .codegen.presets import PRESETS, get_preset, preset_names
from .codegen.sgemv_config import SgemvConfig
from .runtime.errors import InputError, RegtileError
from .runtime.gemm import Gemm, sgemm, sgemv
from . import runtime  # noqa: F401  (regtile.runtime.* reachable as attributes)


def __getattr__(name):
    # regtile.torch (the custom op, mm, linear) imports torch: only when asked for
    if name == "torch":
        import importlib
        return importlib.import_module(".torch_ops", __name__ + ".runtime")
    raise AttributeError(f"module 'regtile' has no attribute {name!r}")

__version__ = "0.1.0"
__all__ = ["ConfigError", "SgemmConfig", "SgemvConfig", "emit_sgemm_cuda", "make_plan", "PRESETS",
           "get_preset", "preset_names", "Gemm", "sgemm", "sgemv", "InputError", "RegtileError", "__version__"]
