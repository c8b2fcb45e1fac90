"""`regtile cache info|verify|clear`: JSON and text output, exit codes, and verify finding
an entry whose content does not match a rebuild."""
import dataclasses
import json

import pytest

from regtile.codegen.emit import emit
from regtile.codegen.presets import get_preset
from regtile.runtime import cache
from regtile.runtime.compiler import compile_source
from regtile.tools.cli import main


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


def _json(capsys, argv, status=0):
    assert main(argv) == status
    return json.loads(capsys.readouterr().out)


def _naive_entry(cache_dir):
    compile_source(emit(get_preset("naive").config, "cuda"), "sm_90")
    (path,) = cache_dir.glob("*.json")
    return path


def _restore(path, **changes):
    """Rewrite an entry self-consistently (right key and digest) with other outputs or inputs."""
    stored, _ = cache.read(path)
    inputs = {**stored.inputs, **changes.pop("inputs", {})}
    entry = dataclasses.replace(stored.entry, **changes)
    path.unlink()
    cache.store(inputs, entry, stored.rebuild)
    return cache.cache_dir() / f"{cache.key_of(inputs)}.json"


def test_info_on_a_cache_that_does_not_exist_yet(cache_dir, capsys):
    out = _json(capsys, ["cache", "info", "--json"])
    assert out["folder"] == str(cache_dir) and not out["exists"] and out["entries"] == 0
    assert out["source"] == "REGTILE_CACHE_DIR"
    assert main(["cache", "info"]) == 0
    assert "does not exist yet" in capsys.readouterr().out


def test_info_counts_entries_by_stage_and_state(cache_dir, capsys):
    _naive_entry(cache_dir)
    (cache_dir / ("f" * 64 + ".json")).write_text("[]")  # malformed: refused on load
    (cache_dir / ".abc.x.tmp").write_text("partial")
    (cache_dir / "notes.txt").write_text("not ours")
    out = _json(capsys, ["cache", "info", "--list", "--json"])
    assert out["entries"] == 2 and out["by_stage"] == {"nvrtc": 1, "unknown": 1}
    assert out["by_state"] == {"ok": 1, "stale": 0, "malformed": 1} and out["temporary_files"] == 1
    assert out["bytes"] > 1000 and out["writable"]
    states = sorted(e["state"].split(":")[0] for e in out["list"])
    assert states == ["malformed", "ok"]
    assert main(["cache", "info", "--list"]) == 0
    text = capsys.readouterr().out
    assert "1 ok" in text and "1 malformed" in text and "regtile_sgemm" in text


def test_verify_matches_a_good_entry(cache_dir, capsys):
    _naive_entry(cache_dir)
    out = _json(capsys, ["cache", "verify", "--json"])
    assert (out["checked"], out["matched"], out["mismatched"]) == (1, 1, 0)


def test_verify_finds_an_entry_that_does_not_match_its_rebuild(cache_dir, capsys):
    """A whole, self-consistent entry (right key, inputs and digest) whose cubin is another
    build's: what issue 22's odd 128-register kernel looked like.  verify says MISMATCH
    (exit 1) and --remove deletes it; the next compile writes the right one."""
    path = _naive_entry(cache_dir)
    other = compile_source(emit(get_preset("smem").config, "cuda"), "sm_90", use_cache=False)
    path = _restore(path, cubin=other.cubin)
    assert cache.read(path)[0] is not None  # a load would serve it: only a rebuild tells
    out = _json(capsys, ["cache", "verify", "--json"], status=1)
    (row,) = out["entries"]
    assert row["state"] == "MISMATCH" and row["differs"] == ["cubin"] and out["mismatched"] == 1
    assert row["cubin_sha256"]["cached"] != row["cubin_sha256"]["rebuilt"]
    assert main(["cache", "verify", "--remove"]) == 1
    text = capsys.readouterr().out
    assert "MISMATCH (cubin differ); removed" in text and "1 removed" in text
    assert not path.exists()


def test_verify_reports_stale_entries_without_rebuilding_them(cache_dir, capsys):
    path = _restore(_naive_entry(cache_dir), inputs={"compiler": "nvrtc 12.9"})
    out = _json(capsys, ["cache", "verify", "--json"])
    (row,) = out["entries"]
    assert row["state"].startswith("stale: built by nvrtc 12.9") and out["stale"] == 1 and out["matched"] == 0


def test_verify_reports_an_entry_whose_payload_is_not_its_source(cache_dir, capsys):
    path = _naive_entry(cache_dir)
    stored, _ = cache.read(path)
    cache.store(stored.inputs, stored.entry, {"text": "// another source"})
    out = _json(capsys, ["cache", "verify", "--json"])
    assert out["entries"][0]["state"].startswith("malformed: its rebuild payload") and out["malformed"] == 1


def test_verify_key_selection_and_bad_keys(cache_dir, capsys):
    path = _naive_entry(cache_dir)
    out = _json(capsys, ["cache", "verify", "--key", path.stem[:6], "--json"])
    assert out["checked"] == 1
    for bad in (["--key", "xyz"], ["--key", "0" * 3 if not path.stem.startswith("000") else "fff"]):
        assert main(["cache", "verify", *bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("regtile: error:")


def test_clear_removes_entries_and_temporary_files_only(cache_dir, capsys):
    _naive_entry(cache_dir)
    (cache_dir / ".abc.x.tmp").write_text("partial")
    (cache_dir / "notes.txt").write_text("not ours")
    out = _json(capsys, ["cache", "clear", "--json"])
    assert out["removed"]["entries"] == 1 and out["removed"]["temporary"] == 1 and out["removed"]["bytes"] > 0
    assert sorted(p.name for p in cache_dir.iterdir()) == ["notes.txt"]
    assert main(["cache", "clear"]) == 0
    assert "removed 0 entries and 0 temporary files" in capsys.readouterr().out


def test_clear_stale_keeps_what_this_install_loads(cache_dir, capsys):
    good = _naive_entry(cache_dir)
    other = compile_source(emit(get_preset("smem").config, "cuda"), "sm_90")
    stale = next(p for p in cache_dir.glob("*.json") if p != good)
    stale = _restore(stale, inputs={"compiler": "nvrtc 12.9"})
    (cache_dir / ("e" * 64 + ".json")).write_text("null")
    out = _json(capsys, ["cache", "clear", "--stale", "--json"])
    assert out["removed"]["entries"] == 2 and out["stale_only"]
    assert [p.name for p in cache_dir.glob("*.json")] == [good.name]
    assert compile_source(emit(get_preset("naive").config, "cuda"), "sm_90").from_cache


def test_cache_without_an_action_prints_help_and_exits_2(capsys):
    assert main(["cache"]) == 2
    assert "info" in capsys.readouterr().err
    assert main(["cache", "bogus"]) == 2


@pytest.mark.slow  # the pass, twice (compile and rebuild): ~4 s
def test_verify_rebuilds_a_sass_pass_entry(cache_dir, capsys):
    cfg = dataclasses.replace(get_preset("naive").config, sass_pass=True)
    compile_source(emit(cfg, "ptx"), "sm_90")
    out = _json(capsys, ["cache", "verify", "--json"])
    assert sorted(e["stage"] for e in out["entries"]) == ["nvjitlink", "sass-pass"]
    assert out["matched"] == 2, out
