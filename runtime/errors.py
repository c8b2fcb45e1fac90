"""The run stage's errors, defined in regtile.errors (one hierarchy under RegtileError) and
importable from here as before."""
from __future__ import annotations

from ..errors import CublasUnavailable, DriverError, InputError, LaunchError, NoGpuError, RegtileError

__all__ = ["RegtileError", "NoGpuError", "DriverError", "LaunchError", "InputError", "CublasUnavailable"]
