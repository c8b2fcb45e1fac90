"""Autotuning results on disk: one file per (device, config), shared by all shapes.

Layout: <cache dir>/tuning/<device slug>/<config digest>.json, each holding the
config and its timings by shape "MxNxK".  Adding configs never touches the others'
files; re-timing a config at a shape replaces that one measurement.  Writes are
atomic (temporary file + rename), reads skip anything that does not parse.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

from ..codegen.config import ConfigError, SgemmConfig
from .cache import cache_dir


def _slug(device: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", device).strip("_") or "device"


def config_digest(cfg: SgemmConfig, backend: str = "cuda") -> str:
    """One file per config and backend (the CUDA C backend keeps the plain digest)."""
    key = cfg.to_dict() if backend == "cuda" else {"config": cfg.to_dict(), "backend": backend}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


def shape_key(m: int, n: int, k: int) -> str:
    return f"{m}x{n}x{k}"


def _folder(device: str) -> Path:
    return cache_dir() / "tuning" / _slug(device)


def _read(path: Path) -> Optional[dict]:
    try:
        d = json.loads(path.read_text())
        SgemmConfig.from_dict(d["config"])
        if not isinstance(d.get("shapes"), dict):
            return None
        return d
    except (OSError, ValueError, KeyError, TypeError, ConfigError):
        return None


def record(device: str, cfg: SgemmConfig, m: int, n: int, k: int, result: dict, backend: str = "cuda") -> None:
    """Store one measurement: result holds ms, tflops, rel_err, registers, ..."""
    folder = _folder(device)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{config_digest(cfg, backend)}.json"
    d = _read(path) or {"device": device, "config": cfg.to_dict(), "backend": backend, "shapes": {}}
    d["shapes"][shape_key(m, n, k)] = result
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(d, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def entries(device: str, backend: Optional[str] = None) -> Iterator[Tuple[SgemmConfig, Dict[str, dict]]]:
    """(config, shapes) of every stored file of this device (of one backend if given)."""
    folder = _folder(device)
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.json")):
        d = _read(path)
        if d is not None and (backend is None or d.get("backend", "cuda") == backend):
            yield SgemmConfig.from_dict(d["config"]), d["shapes"]


def measured(device: str, cfg: SgemmConfig, m: int, n: int, k: int, backend: str = "cuda") -> Optional[dict]:
    d = _read(_folder(device) / f"{config_digest(cfg, backend)}.json")
    return None if d is None else d["shapes"].get(shape_key(m, n, k))


def best(device: str, m: int, n: int, k: int, backend: str = "cuda") -> Optional[Tuple[SgemmConfig, dict]]:
    """The fastest correct config of a backend measured at exactly this shape, if any."""
    key = shape_key(m, n, k)
    found: List[Tuple[float, SgemmConfig, dict]] = []
    for cfg, shapes in entries(device, backend):
        r = shapes.get(key)
        if r and r.get("ok") and r.get("ms"):
            found.append((r["ms"], cfg, r))
    if not found:
        return None
    found.sort(key=lambda t: t[0])
    return found[0][1], found[0][2]
