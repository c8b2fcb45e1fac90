"""The compile cache under concurrent writers and interrupted writes: no process
ever loads a wrong or partial kernel."""
import hashlib
import multiprocessing as mp
import os

import pytest

from regtile.codegen.emit import emit_cuda
from regtile.codegen.presets import get_preset
from regtile.runtime import cache
from regtile.runtime.compiler import NVRTC_OPTIONS, compile_inputs, compile_source

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


@pytest.mark.slow  # 8 processes importing regtile and compiling: ~25 s on 2 cores
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


# ---- issue 8: corrupted entries under concurrency, and writers killed for real --------
def _reference_digests():
    """sha256 of each kernel's cubin compiled without the cache: what a load must give."""
    return {name: hashlib.sha256(compile_source(emit_cuda(get_preset(name).config), "sm_90",
                                                use_cache=False).cubin).hexdigest() for name in NAMES}


def _entry_path(folder, name):
    src = emit_cuda(get_preset(name).config)
    return folder / f"{cache.key_of(compile_inputs('nvrtc', src.name, 'sm_90', NVRTC_OPTIONS, src.text))}.json"


def _corrupt(path, how):
    raw = path.read_bytes()
    if how == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    elif how == "flip":  # one character of the base64 cubin changed: still JSON, wrong digest
        i = raw.index(b'"cubin": "') + 40
        path.write_bytes(raw[:i] + (b"A" if raw[i:i + 1] != b"A" else b"B") + raw[i + 1:])
    else:  # `how` is another kernel's whole, valid entry: copied under this key
        path.write_bytes(how)


@pytest.mark.slow  # 8 processes importing regtile and compiling: ~25 s on 2 cores
def test_eight_processes_over_corrupted_entries_load_only_whole_right_kernels(tmp_path, monkeypatch):
    folder = tmp_path / "c"
    ref = _reference_digests()
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(folder))
    for name in NAMES:
        compile_source(emit_cuda(get_preset(name).config), "sm_90")
    paths = {name: _entry_path(folder, name) for name in NAMES}
    tile1d_whole = paths["tile1d"].read_bytes()
    _corrupt(paths["tile1d"], "truncate")
    _corrupt(paths["smem"], "flip")
    _corrupt(paths["naive"], tile1d_whole)  # a whole entry, of the wrong key and kernel
    orders = [tuple(NAMES[(i + j) % 3] for j in range(3)) for i in range(8)]
    with mp.get_context("spawn").Pool(8) as pool:
        results = pool.map(_worker, [(str(folder), o) for o in orders])
    for name in NAMES:
        seen = {d for r in results for d in r[name]}
        assert seen == {ref[name]}, f"{name}: a process loaded a kernel other than the reference"
        assert cache.read(paths[name])[0] is not None  # rewritten whole


_KILLED_WRITER = r"""
import os, sys, time
os.environ["REGTILE_CACHE_DIR"] = sys.argv[1]
from regtile.codegen.emit import emit_cuda
from regtile.codegen.presets import get_preset
from regtile.runtime import cache
from regtile.runtime.compiler import compile_source
mode, marker = sys.argv[2], sys.argv[3]
real_fdopen = os.fdopen


def stop():
    open(marker, "w").close()
    time.sleep(120)


class HalfWriter:
    def __init__(self, f):
        self.f = f
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return self.f.__exit__(*a)
    def write(self, data):
        self.f.write(data[: len(data) // 2])
        self.f.flush()
        os.fsync(self.f.fileno())
        stop()
    def __getattr__(self, name):
        return getattr(self.f, name)


if mode == "half":
    cache.os.fdopen = lambda fd, m="r": HalfWriter(real_fdopen(fd, m))
else:
    cache.os.fsync = lambda fd: stop()
compile_source(emit_cuda(get_preset("naive").config), "sm_90")
"""


@pytest.mark.parametrize("mode, prior", [("half", None), ("before_rename", "truncate")])
def test_writer_killed_mid_write_leaves_no_loadable_partial_entry(tmp_path, monkeypatch, mode, prior):
    """A real SIGKILL: half the entry written to its temporary file, or all of it before the
    rename (over an entry already corrupt).  Readers never load the partial or the corrupt
    entry: they recompile the right kernel and store it whole."""
    import signal
    import subprocess
    import sys
    import time
    folder, marker = tmp_path / "c", tmp_path / "stopped"
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(folder))
    src = emit_cuda(get_preset("naive").config)
    good = compile_source(src, "sm_90", use_cache=False)
    entry = _entry_path(folder, "naive")
    if prior:
        compile_source(src, "sm_90")
        _corrupt(entry, prior)
    child = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(folder), mode, str(marker)])
    try:
        deadline = time.time() + 120
        while not marker.exists():
            assert child.poll() is None, "the writer ended before it was stopped"
            assert time.time() < deadline, "the writer never reached its write"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
    (tmp,) = folder.glob("*.tmp")
    assert tmp.stat().st_size > 0  # the partial write is on disk ...
    assert list(folder.glob("*.json")) == ([entry] if prior else [])  # ... never renamed into place
    assert cache.read(entry)[0] is None  # neither it nor the corrupt entry loads
    again = compile_source(src, "sm_90")
    assert not again.from_cache and again.cubin == good.cubin
    hit = compile_source(src, "sm_90")
    assert hit.from_cache and hit.cubin == good.cubin
