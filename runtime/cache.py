"""On-disk compile cache: one file per kernel, written atomically, verified on read.

Location: $REGTILE_CACHE_DIR, else $XDG_CACHE_HOME/regtile, else ~/.cache/regtile.
Key: sha256 of the source text, arch, compiler options and compiler version (and
this file's format version).  Each entry carries the key it was written for and a
sha256 of its payload; an entry that fails to parse or to verify is treated as a
miss (and overwritten by the recompile), never loaded.  Writers go through a
temporary file in the same folder and os.replace, so a reader sees a whole old
entry or a whole new one, from any number of processes.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

FORMAT = 1


@dataclass(frozen=True)
class Entry:
    ptx: str
    cubin: bytes
    log: str


def cache_dir() -> Path:
    env = os.environ.get("REGTILE_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "regtile"


def cache_key(text: str, arch: str, options: Sequence[str], compiler: str) -> str:
    h = hashlib.sha256()
    for part in (f"format {FORMAT}", compiler, arch, "\0".join(options), text):
        h.update(part.encode())
        h.update(b"\1")
    return h.hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / f"{key}.json"


def _digest(ptx: str, cubin: bytes, log: str) -> str:
    h = hashlib.sha256()
    for part in (ptx.encode(), cubin, log.encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def load(key: str) -> Optional[Entry]:
    try:
        raw = _path(key).read_bytes()
        d = json.loads(raw)
        if d.get("format") != FORMAT or d.get("key") != key:
            return None
        entry = Entry(ptx=d["ptx"], cubin=base64.b64decode(d["cubin"], validate=True), log=d["log"])
        if _digest(entry.ptx, entry.cubin, entry.log) != d["sha256"]:
            return None
        return entry
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(key: str, entry: Entry) -> None:
    """Write atomically; a cache that cannot be written is skipped, not an error."""
    folder = cache_dir()
    payload = json.dumps({
        "format": FORMAT, "key": key, "sha256": _digest(entry.ptx, entry.cubin, entry.log),
        "ptx": entry.ptx, "cubin": base64.b64encode(entry.cubin).decode(), "log": entry.log,
    }).encode()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, _path(key))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        pass
