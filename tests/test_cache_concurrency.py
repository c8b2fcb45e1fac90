"""The compile cache under concurrent writers and interrupted writes: no process
ever loads a wrong or partial kernel."""
import hashlib
import multiprocessing as mp
import os

import pytest

from regtile.codegen.emit import emit_cuda
from regtile.codegen.presets import get_preset
from regtile.runtime import cache
from regtile.runtime.compiler import compile_source

NAMES = ("tile1d", "smem", "naive")


def _worker(args):
    folder, order = args
    os.environ["REGTILE_CACHE_DIR"] = folder
    out = {}
    for _ in range(2):  # the second pass loads what the others wrote
        for name in order:
            src = emit_cuda(get_preset(name).config)
            art = compile_source(src, "sm_90")
            # a loaded kernel must be the kernel of this source: its symbol is in the
            # cubin and the PTX, and the resources parse
            assert src.name.encode() in art.cubin and f".entry {src.name}" in art.ptx
            out.setdefault(name, set()).add(hashlib.sha256(art.cubin).hexdigest())
    return {k: sorted(v) for k, v in out.items()}


def test_eight_processes_compile_overlapping_configs(tmp_path):
    folder = str(tmp_path / "c")
    orders = [tuple(NAMES[(i + j) % 3] for j in range(3)) for i in range(8)]
    with mp.get_context("spawn").Pool(8) as pool:
        results = pool.map(_worker, [(folder, o) for o in orders])
    for name in NAMES:
        digests = {d for r in results for d in r[name]}
        assert len(digests) == 1, f"{name}: processes saw different cubins {digests}"
    files = os.listdir(folder)
    assert sorted(f for f in files if f.endswith(".json")).__len__() == 3
    assert not [f for f in files if f.endswith(".tmp")]


def test_interrupted_write_leaves_nothing_partial(tmp_path, monkeypatch):
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path))
    src = emit_cuda(get_preset("naive").config)
    real_replace = os.replace

    def interrupted(a, b):
        raise KeyboardInterrupt  # the process is stopped between the write and the rename

    monkeypatch.setattr(cache.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        compile_source(src, "sm_90")
    assert list(tmp_path.iterdir()) == []  # neither an entry nor a temporary file
    monkeypatch.setattr(cache.os, "replace", real_replace)
    art = compile_source(src, "sm_90")
    assert not art.from_cache
    assert compile_source(src, "sm_90").from_cache


def test_stray_temporary_file_is_never_loaded(tmp_path, monkeypatch):
    """A writer killed before its rename leaves `.<key>.*.tmp`; readers ignore it."""
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path))
    src = emit_cuda(get_preset("naive").config)
    good = compile_source(src, "sm_90")
    (entry,) = tmp_path.glob("*.json")
    (tmp_path / f".{entry.stem[:16]}.x.tmp").write_bytes(entry.read_bytes()[:100])
    entry.unlink()
    again = compile_source(src, "sm_90")
    assert not again.from_cache and again.cubin == good.cubin
