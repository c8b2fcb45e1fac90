"""Output paths of the commands, checked before any work: a command that cannot write
its result refuses at once (one line, exit 2) instead of failing after the work, and
creates nothing."""
from __future__ import annotations

import os
from pathlib import Path

from .options import UsageError


def _nearest_existing(path: Path) -> Path:
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def check_writable_dir(what: str, folder) -> None:
    """`folder` exists as a writable folder, or can be created under one."""
    folder = Path(folder)
    probe = _nearest_existing(folder)
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise UsageError(f"{what} {folder}: {probe} is not a writable folder; choose another location")


def check_writable_file(flag: str, path) -> None:
    """`path` can be written: its folder exists and is writable, and it is not a folder."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a folder; give a file name")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: the folder {parent} does not exist; create it or choose another {flag}")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {path}: not writable; choose another {flag}")
