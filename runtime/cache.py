"""On-disk compile cache: one file per result, written atomically, checked on every read.

Location: $REGTILE_CACHE_DIR, else $XDG_CACHE_HOME/regtile, else ~/.cache/regtile.

An entry is a JSON object holding
  * `inputs`: everything its result depends on (stage, compiler and version, arch,
    options, kernel names, the sha256 of what was compiled; for the SASS pass its
    version, code digest and bank model).  The key is the sha256 of these inputs
    (and of FORMAT), derived from the inputs by load() and store() alike (key_of); an
    entry whose recorded inputs differ from the reader's is refused, whatever its file name;
  * `rebuild`: what a rebuild compiles (the CUDA C or PTX text, or the cubin the pass
    read), so that `regtile cache verify` can rebuild the entry and compare bytes;
  * the outputs (ptx, cubin, log) and a sha256 over outputs and rebuild payload.
Any entry that is not exactly that (unreadable, not JSON, JSON of another shape or
type, another format, key, inputs or digest) is a miss, never an error: the caller
compiles again and the new entry replaces it.  Writers go through a temporary file in
the same folder and os.replace, so a reader sees a whole old entry or a whole new one,
from any number of processes.  A folder that cannot be written is said once on stderr;
compiles then go on without the cache.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, Optional, Tuple

from ..errors import RegtileError

FORMAT = 2
SUFFIX = ".json"


@dataclass(frozen=True)
class Entry:
    ptx: str
    cubin: bytes
    log: str


@dataclass(frozen=True)
class Stored:
    """An entry as read from disk, with what it records (for `regtile cache`)."""
    key: str
    inputs: dict
    rebuild: dict
    entry: Entry


def cache_dir() -> Path:
    env = os.environ.get("REGTILE_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "regtile"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def key_of(inputs: dict) -> str:
    """The key of a result: sha256 of its inputs, canonically serialised."""
    canon = json.dumps({"format": FORMAT, "inputs": inputs}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / f"{key}{SUFFIX}"


def _digest(entry: Entry, rebuild: dict) -> str:
    h = hashlib.sha256()
    canon = json.dumps(rebuild, sort_keys=True, separators=(",", ":"))
    for part in (entry.ptx.encode(), entry.cubin, entry.log.encode(), canon.encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


class Malformed(RegtileError, ValueError):
    """Why an entry is refused (reported by `regtile cache info/verify`)."""


def _field(d: dict, name: str, kind):
    v = d.get(name)
    if not isinstance(v, kind) or isinstance(v, bool):  # JSON true is no number
        raise Malformed(f"field {name!r} is {type(v).__name__}, not {kind.__name__}")
    return v


def parse(raw: bytes, key: Optional[str] = None) -> Stored:
    """The entry in `raw`, checked for shape, types, format, self-consistency (its key is
    the hash of its recorded inputs) and digest; Malformed says what is wrong."""
    try:
        d = json.loads(raw)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        raise Malformed(f"not JSON ({type(e).__name__})") from None
    if not isinstance(d, dict):
        raise Malformed(f"a JSON {type(d).__name__}, not an object")
    if d.get("format") != FORMAT or isinstance(d.get("format"), bool):
        raise Malformed(f"format {d.get('format')!r}, this regtile reads format {FORMAT}")
    stored_key = _field(d, "key", str)
    inputs, rebuild = _field(d, "inputs", dict), _field(d, "rebuild", dict)
    if key is not None and stored_key != key:
        raise Malformed("written for another key")
    if key_of(inputs) != stored_key:
        raise Malformed("its recorded inputs do not hash to its key")
    try:
        cubin = base64.b64decode(_field(d, "cubin", str), validate=True)
    except ValueError:
        raise Malformed("cubin is not base64") from None
    entry = Entry(ptx=_field(d, "ptx", str), cubin=cubin, log=_field(d, "log", str))
    if _digest(entry, rebuild) != _field(d, "sha256", str):
        raise Malformed("its content does not match its sha256")
    return Stored(stored_key, inputs, rebuild, entry)


def load(inputs: dict) -> Optional[Entry]:
    """The entry for `inputs` (under their key_of), or None: missing, malformed in any way,
    or recording other inputs than these."""
    key = key_of(inputs)
    try:
        raw = _path(key).read_bytes()
    except OSError:
        return None
    try:
        stored = parse(raw, key)
    except Malformed:
        return None
    if stored.inputs != inputs:
        return None
    return stored.entry


_warned_unwritable = False


def _warn_unwritable(folder: Path, err: OSError) -> None:
    global _warned_unwritable
    if _warned_unwritable:
        return
    _warned_unwritable = True
    reason = err.strerror or type(err).__name__
    print(f"regtile: warning: the compile cache {folder} cannot be written ({reason}); compiling without "
          f"it (set REGTILE_CACHE_DIR to a writable folder)", file=sys.stderr)


def store(inputs: dict, entry: Entry, rebuild: dict) -> None:
    """Write the entry for `inputs` (under their key_of) atomically.  A cache that cannot be
    written is skipped (said once on stderr)."""
    key = key_of(inputs)
    folder = cache_dir()
    payload = json.dumps({
        "format": FORMAT, "key": key, "inputs": inputs, "rebuild": rebuild, "sha256": _digest(entry, rebuild),
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
    except OSError as e:
        _warn_unwritable(folder, e)


# ---- the folder as a whole (`regtile cache info|verify|clear`) ------------------------------
def _files(folder: Optional[Path], keep) -> Iterator[Path]:
    folder = folder or cache_dir()
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if keep(name):
            yield folder / name


def entry_files(folder: Optional[Path] = None) -> Iterator[Path]:
    return _files(folder, lambda name: name.endswith(SUFFIX) and not name.startswith("."))


def temporary_files(folder: Optional[Path] = None) -> Iterator[Path]:
    """Leftovers of writers stopped between their write and their rename."""
    return _files(folder, lambda name: name.startswith(".") and name.endswith(".tmp"))


def read(path: Path) -> Tuple[Optional[Stored], str]:
    """(entry, "") or (None, why it would be refused)."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        return None, f"unreadable ({e.strerror})"
    try:
        return parse(raw, path.name[: -len(SUFFIX)]), ""
    except Malformed as e:
        return None, str(e)


def clear(folder: Optional[Path] = None) -> Dict[str, int]:
    """Remove every entry and temporary file regtile wrote there (nothing else)."""
    removed = {"entries": 0, "temporary": 0, "bytes": 0}
    for kind, paths in (("entries", list(entry_files(folder))), ("temporary", list(temporary_files(folder)))):
        for p in paths:
            try:
                size = p.stat().st_size
                p.unlink()
            except FileNotFoundError:
                continue  # another process removed or replaced it first
            removed[kind] += 1
            removed["bytes"] += size
    return removed
