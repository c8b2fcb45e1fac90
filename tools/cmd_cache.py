"""`regtile cache info|verify|clear`: where the compile cache is and what it holds, a
rebuild of its entries compared byte for byte, and its removal (runtime/cache.py)."""
from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path
from typing import List, Optional

from ..runtime import cache as _cache
from .options import UsageError, command_parser

EPILOG = """examples:
  regtile cache info
  regtile cache info --list --json
  regtile cache verify                       (rebuilds every entry: seconds per kernel)
  regtile cache verify --key 3fa9 --json     (the entries whose key starts with 3fa9)
  regtile cache verify --remove              (and delete those that fail; the next compile rewrites them)
  regtile cache clear
  regtile cache clear --stale                (only entries this install never loads)

The cache is $REGTILE_CACHE_DIR, else $XDG_CACHE_HOME/regtile, else ~/.cache/regtile.
"""


CACHE_DESCRIPTION = """Inspect, verify or clear the on-disk compile cache. Each entry records the inputs
of its key (stage, compiler version, arch, options, kernel names, source hash; for the SASS pass its
version, code digest and bank model) and what a rebuild compiles; an entry whose inputs differ from a
compile's is never served. No GPU needed."""
INFO_DESCRIPTION = """Where the cache is, its size, and its entries by stage; entries this install would
refuse (malformed, or built by another compiler or pass version: 'stale') are counted apart."""
VERIFY_DESCRIPTION = """Rebuild each entry from what it records (NVRTC or nvJitLink in a fresh worker,
or the SASS pass) and compare PTX, cubin and log byte for byte. Exit status 0: every rebuilt entry
matched; 1: a mismatch or a failed rebuild; 2: bad input. Malformed and stale entries are reported, not
rebuilt (they are never served)."""
CLEAR_DESCRIPTION = """Remove every cache entry and leftover temporary file from the cache folder,
without asking (like every regtile command); other files are left alone. Says what was removed."""


def register(sub) -> None:
    p = command_parser(sub, "cache", "the compile cache: info, verify (rebuild and compare), clear",
                       CACHE_DESCRIPTION, EPILOG)
    actions = p.add_subparsers(dest="cache_action", metavar="ACTION", parser_class=type(p))

    info = command_parser(actions, "info", "where the cache is, its size and entries",
                          INFO_DESCRIPTION, EPILOG)
    info.add_argument("--list", action="store_true", help="one line per entry (key, stage, arch, kernel, size, state)")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(handler=run_info)

    verify = command_parser(actions, "verify", "rebuild entries and compare their bytes",
                            VERIFY_DESCRIPTION, EPILOG)
    verify.add_argument("--key", action="append", default=[], metavar="PREFIX",
                        help="only entries whose key starts with PREFIX (hex; repeatable)")
    verify.add_argument("--remove", action="store_true",
                        help="delete the entries that are malformed, mismatched or fail to rebuild")
    verify.add_argument("--json", action="store_true", help="print JSON (one object at the end)")
    verify.set_defaults(handler=run_verify)

    clear = command_parser(actions, "clear", "remove the cache's entries (no confirmation)",
                           CLEAR_DESCRIPTION, EPILOG)
    clear.add_argument("--stale", action="store_true",
                       help="remove only entries this install never loads (malformed, or another compiler or pass "
                            "version)")
    clear.add_argument("--json", action="store_true", help="print JSON")
    clear.set_defaults(handler=run_clear)

    p.set_defaults(handler=lambda args: _no_action(p))


def _no_action(p) -> int:
    p.print_help(sys.stderr)
    return 2


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def _state(stored: Optional[_cache.Stored], why: str) -> str:
    """'ok', 'stale: ...' (never loaded by this install) or 'malformed: ...'."""
    if stored is None:
        return f"malformed: {why}"
    bad = _payload_mismatch(stored)
    if bad:
        return f"malformed: {bad}"
    from ..runtime.compiler import current_inputs_differ
    stale = current_inputs_differ(stored.inputs)
    return f"stale: {stale}" if stale else "ok"


def _payload_mismatch(stored: _cache.Stored) -> str:
    """The rebuild payload must be what the inputs' source hash names."""
    rb = stored.rebuild
    try:
        data = rb["text"].encode() if "text" in rb else base64.b64decode(rb["cubin"], validate=True)
    except (KeyError, AttributeError, TypeError, ValueError):
        return "no rebuild payload"
    if hashlib.sha256(data).hexdigest() != stored.inputs.get("source_sha256"):
        return "its rebuild payload does not match the recorded source hash"
    return ""


def _describe(path: Path, stored: Optional[_cache.Stored], why: str) -> dict:
    """One entry's row, from what _cache.read(path) returned."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    inputs = stored.inputs if stored else {}
    return {"key": path.stem, "stage": inputs.get("stage"), "arch": inputs.get("arch"),
            "kernel": inputs.get("name") or ",".join(inputs.get("kernels", []) or []) or None,
            "bytes": size, "state": _state(stored, why), "path": str(path)}


def _folder_facts(folder: Path) -> dict:
    import os
    exists = folder.is_dir()
    return {"folder": str(folder), "exists": exists,
            "writable": exists and os.access(folder, os.W_OK | os.X_OK),
            "source": ("REGTILE_CACHE_DIR" if os.environ.get("REGTILE_CACHE_DIR") else
                       "XDG_CACHE_HOME" if os.environ.get("XDG_CACHE_HOME") else "default (~/.cache/regtile)")}


def run_info(args) -> int:
    folder = _cache.cache_dir()
    entries = [_describe(p, *_cache.read(p)) for p in _cache.entry_files(folder)]
    temps = list(_cache.temporary_files(folder))
    by_stage, by_state = {}, {"ok": 0, "stale": 0, "malformed": 0}
    for e in entries:
        by_stage[e["stage"] or "unknown"] = by_stage.get(e["stage"] or "unknown", 0) + 1
        by_state[e["state"].split(":")[0]] += 1
    out = {**_folder_facts(folder), "entries": len(entries), "bytes": sum(e["bytes"] for e in entries),
           "by_stage": by_stage, "by_state": by_state, "temporary_files": len(temps), "format": _cache.FORMAT}
    if args.list:
        out["list"] = entries
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    where = out["folder"] + ("" if out["exists"] else " (does not exist yet)") + \
        ("" if out["writable"] or not out["exists"] else " (not writable: compiles run without a cache)")
    print(f"cache: {where}  [{out['source']}]")
    print(f"entries: {out['entries']} ({_size(out['bytes'])}): "
          + (", ".join(f"{n} {s}" for s, n in sorted(by_stage.items())) or "none"))
    print(f"state: {by_state['ok']} ok, {by_state['stale']} stale (another compiler or pass version; never "
          f"loaded), {by_state['malformed']} malformed (refused; rewritten by the next compile)")
    if temps:
        print(f"temporary files left by interrupted writers: {len(temps)} (`regtile cache clear` removes them)")
    for e in out.get("list", []):
        print(f"  {e['key'][:16]}  {e['stage'] or '?':<9} {e['arch'] or '?':<6} {_size(e['bytes']):>10}  "
              f"{e['kernel'] or '?'}  [{e['state']}]")
    return 0


def _verify_one(path: Path) -> dict:
    stored, why = _cache.read(path)
    row = _describe(path, stored, why)  # read and parsed once: verify's rebuild uses the same entry
    if not row["state"].startswith("ok"):
        return row
    from ..runtime.compiler import CompileError, rebuild_entry
    try:
        new = rebuild_entry(stored.inputs, stored.rebuild)
    except CompileError as e:  # SassPassRefused is one
        row["state"] = f"rebuild failed: {str(e).strip().splitlines()[0]}"
        return row
    old = stored.entry
    differ = [f for f in ("ptx", "cubin", "log") if getattr(old, f) != getattr(new, f)]
    row["state"] = "matches its rebuild" if not differ else "MISMATCH"
    if differ:
        row["differs"] = differ
        row["cubin_sha256"] = {"cached": hashlib.sha256(old.cubin).hexdigest(),
                               "rebuilt": hashlib.sha256(new.cubin).hexdigest()}
    return row


def _selected(prefixes: List[str]) -> List[Path]:
    for pre in prefixes:
        if not pre or any(c not in "0123456789abcdef" for c in pre.lower()):
            raise UsageError(f"--key {pre!r}: a key prefix is hexadecimal (see `regtile cache info --list`)")
    paths = list(_cache.entry_files())
    if prefixes:
        paths = [p for p in paths if any(p.stem.startswith(pre.lower()) for pre in prefixes)]
        if not paths:
            raise UsageError(f"no cache entry's key starts with {', '.join(prefixes)} in {_cache.cache_dir()}")
    return paths


def run_verify(args) -> int:
    paths = _selected(args.key)
    rows = []
    for path in paths:
        row = _verify_one(path)
        failed = row["state"] == "MISMATCH" or row["state"].startswith(("rebuild failed", "malformed"))
        if args.remove and failed:
            path.unlink(missing_ok=True)
            row["removed"] = True
        rows.append(row)
        if not args.json:
            extra = f" ({', '.join(row['differs'])} differ)" if row.get("differs") else ""
            print(f"{row['key'][:16]}  {row['stage'] or '?':<9} {row['kernel'] or '?'}: {row['state']}{extra}"
                  + ("; removed" if row.get("removed") else ""), flush=True)
    summary = {"folder": str(_cache.cache_dir()), "checked": len(rows),
               "matched": sum(r["state"] == "matches its rebuild" for r in rows),
               "mismatched": sum(r["state"] == "MISMATCH" for r in rows),
               "rebuild_failed": sum(r["state"].startswith("rebuild failed") for r in rows),
               "stale": sum(r["state"].startswith("stale") for r in rows),
               "malformed": sum(r["state"].startswith("malformed") for r in rows),
               "removed": sum(bool(r.get("removed")) for r in rows)}
    if args.json:
        print(json.dumps({**summary, "entries": rows}, indent=2))
    else:
        print(f"{summary['checked']} entries: {summary['matched']} match their rebuild, {summary['mismatched']} "
              f"mismatched, {summary['rebuild_failed']} failed to rebuild, {summary['stale']} stale, "
              f"{summary['malformed']} malformed" + (f"; {summary['removed']} removed" if args.remove else ""))
    return 1 if summary["mismatched"] or summary["rebuild_failed"] else 0


def run_clear(args) -> int:
    folder = _cache.cache_dir()
    if args.stale:
        removed = {"entries": 0, "temporary": 0, "bytes": 0}
        for path in _cache.entry_files(folder):
            row = _describe(path, *_cache.read(path))
            if row["state"] != "ok":
                path.unlink(missing_ok=True)
                removed["entries"] += 1
                removed["bytes"] += row["bytes"]
    else:
        removed = _cache.clear(folder)
    if args.json:
        print(json.dumps({"folder": str(folder), "removed": removed, "stale_only": args.stale}, indent=2))
    else:
        what = "stale or malformed entries" if args.stale else "entries"
        print(f"removed {removed['entries']} {what} and {removed['temporary']} temporary files "
              f"({_size(removed['bytes'])}) from {folder}")
    return 0
