"""Errors of the run stage.  The CLI prints any RegtileError as one line (exit 2)."""
from __future__ import annotations


class RegtileError(RuntimeError):
    """Base of the runtime's errors: an environment or an input we refuse."""


class NoGpuError(RegtileError):
    """No CUDA driver or no GPU on this machine."""


class DriverError(RegtileError):
    """A CUDA driver call failed; the message names the call and the CUresult."""


class LaunchError(DriverError):
    """A kernel launch or its execution failed; names the kernel and its config."""


class InputError(ValueError, RegtileError):
    """An argument of a public entry point that we refuse before touching the GPU."""


class CublasUnavailable(RegtileError):
    """No cuBLAS library could be loaded (benchmarks only)."""
