"""Compile cache: miss then hit, one file per kernel, corrupt entries recompiled, never loaded."""
import json

import pytest

from regtile.codegen.emit_cuda import emit_sgemm_cuda
from regtile.codegen.presets import get_preset
from regtile.runtime import cache
from regtile.runtime.compiler import compile_source


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


def _entries(d):
    return sorted(p for p in d.iterdir() if p.suffix == ".json")


def test_miss_then_hit(cache_dir):
    src = emit_sgemm_cuda(get_preset("tile1d").config)
    first = compile_source(src, "sm_90")
    assert not first.from_cache
    assert len(_entries(cache_dir)) == 1
    second = compile_source(src, "sm_90")
    assert second.from_cache and second.cubin == first.cubin and second.ptx == first.ptx
    assert second.resources == first.resources
    # another arch is another entry
    third = compile_source(src, "sm_80")
    assert not third.from_cache and len(_entries(cache_dir)) == 2
    assert not any(p.name.endswith(".tmp") for p in cache_dir.iterdir())


@pytest.mark.parametrize("damage", ["truncate", "flip_cubin", "garbage", "wrong_key"])
def test_corrupt_entry_is_recompiled_not_loaded(cache_dir, damage):
    src = emit_sgemm_cuda(get_preset("tile1d").config)
    good = compile_source(src, "sm_90")
    (path,) = _entries(cache_dir)
    raw = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not json")
    else:
        d = json.loads(raw)
        if damage == "flip_cubin":
            cub = bytearray(good.cubin)
            cub[len(cub) // 2] ^= 0xFF
            import base64
            d["cubin"] = base64.b64encode(bytes(cub)).decode()
        else:
            d["key"] = "0" * 64
        path.write_text(json.dumps(d))
    again = compile_source(src, "sm_90")
    assert not again.from_cache
    assert again.cubin == good.cubin
    assert compile_source(src, "sm_90").from_cache  # rewritten whole


def test_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(blocker / "sub"))
    art = compile_source(emit_sgemm_cuda(get_preset("naive").config), "sm_90")
    assert art.resources.registers > 0


def test_key_depends_on_every_input():
    base = cache.cache_key("src", "sm_90", ("-O3",), "nvrtc 13.0")
    assert base != cache.cache_key("src2", "sm_90", ("-O3",), "nvrtc 13.0")
    assert base != cache.cache_key("src", "sm_80", ("-O3",), "nvrtc 13.0")
    assert base != cache.cache_key("src", "sm_90", ("-O2",), "nvrtc 13.0")
    assert base != cache.cache_key("src", "sm_90", ("-O3",), "nvrtc 13.1")
