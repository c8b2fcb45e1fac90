"""Every error regtile raises derives from RegtileError, and is defined here (regtile.errors):

    RegtileError
      ConfigError        a config that cannot be generated; the message names the constraint
      InputError         an argument of a public entry point, refused before touching the GPU
      ArchError          an arch regtile does not target
      CompileError       NVRTC or nvJitLink refused a kernel: the log and the source lines it names
        SpillError       ptxas spilled a kernel that validation accepted
      SassError          the SASS stage: nvdisasm, a cubin it cannot read, a rewrite it refuses
      NoGpuError         no CUDA driver or no GPU
      DriverError        a CUDA driver call failed
        LaunchError      a kernel launch or its execution failed
      CublasUnavailable  no cuBLAS to compare with (benchmarks)

Errors about a value (ConfigError, InputError, ArchError) are ValueErrors too, so that
`except ValueError` keeps working.  A few modules refine one of these for their own
detail (sass.fields.UnknownForm, sass.cubin.CubinError, sass.bank_pass.SassPassRefused,
tools.options.UsageError).  This module imports nothing of regtile: codegen, sass and
runtime all import it.  The CLI prints any RegtileError as one line (exit status 2).
"""
from __future__ import annotations

import re
from typing import Tuple


class RegtileError(RuntimeError):
    """Base of every error regtile raises: an environment or an input it refuses."""


class ConfigError(ValueError, RegtileError):
    """A configuration that cannot be generated; the message names the constraint."""


class InputError(ValueError, RegtileError):
    """An argument of a public entry point that we refuse before touching the GPU."""


class ArchError(ValueError, RegtileError):
    """An arch regtile does not target (it names the ones it does)."""


class CompileError(RegtileError):
    """NVRTC or nvJitLink refused a kernel.  Carries the log and the source lines it names."""

    def __init__(self, message: str, log: str = "", source: str = ""):
        self.log = log
        self.source = source
        self.failing_lines = _failing_lines(log, source)
        detail = "\n".join(self.failing_lines)
        super().__init__(f"{message}\n{log.strip()}" + (f"\n--- source lines named by the log ---\n{detail}"
                                                        if detail else ""))


class SpillError(CompileError):
    """ptxas spilled a kernel that validation accepted.  Validation's register rules
    (codegen/config.py, docs/register-rule.md) refuse every spill of the sweep they were
    fitted to, but ptxas sometimes squeezes a kernel to the next occupancy step and spills a
    few bytes where no config-level estimate can tell: such a kernel is refused here, at the
    compile stage, rather than run, timed or tuned as if it were sound."""


class SassError(RegtileError):
    """The SASS stage (regtile.sass) failed or refused: nvdisasm, a cubin, a rewrite."""


class NoGpuError(RegtileError):
    """No CUDA driver or no GPU on this machine."""


class DriverError(RegtileError):
    """A CUDA driver call failed; the message names the call and the CUresult."""


class LaunchError(DriverError):
    """A kernel launch or its execution failed; names the kernel and its config."""


class CublasUnavailable(RegtileError):
    """No cuBLAS library could be loaded (benchmarks only)."""


def _failing_lines(log: str, source: str) -> Tuple[str, ...]:
    if not source:
        return ()
    lines = source.splitlines()
    out = []
    # NVRTC: "name.cu(12): error ..."; ptxas (nvJitLink): "... line 12; error ..."
    named = re.findall(r"\((\d+)\): error", log) + re.findall(r"line (\d+); error", log)
    for m in sorted({int(n) for n in named}):
        if 1 <= m <= len(lines):
            out.append(f"{m:5d}: {lines[m - 1]}")
    return tuple(out)


__all__ = ["RegtileError", "ConfigError", "InputError", "ArchError", "CompileError", "SpillError", "SassError",
           "NoGpuError", "DriverError", "LaunchError", "CublasUnavailable"]
