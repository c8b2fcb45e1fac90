"""Compile cache: miss then hit; every malformed entry is a miss and gets rewritten; an
entry recording other inputs than the compile's is refused; the key covers every input
(the SASS pass's version and bank model included); an unwritable folder is said once;
a missing compiler library is a clean error naming the package."""
import base64
import json

import pytest

from regtile.codegen.emit_cuda import emit_sgemm_cuda
from regtile.codegen.presets import get_preset
from regtile.runtime import cache, compiler, sass_stage
from regtile.runtime.compiler import CompileError, CompilerMissing, compile_source


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


def _entries(d):
    return sorted(p for p in d.iterdir() if p.suffix == ".json")


@pytest.fixture(scope="module")
def naive_src():
    return emit_sgemm_cuda(get_preset("naive").config)


@pytest.fixture(scope="module")
def good_entry(tmp_path_factory, naive_src):
    """(key, inputs, file bytes) of the naive kernel's entry, compiled once for the module."""
    folder = tmp_path_factory.mktemp("good")
    mp = pytest.MonkeyPatch()
    mp.setenv("REGTILE_CACHE_DIR", str(folder))
    try:
        compile_source(naive_src, "sm_90")
    finally:
        mp.undo()
    (path,) = _entries(folder)
    return path.stem, json.loads(path.read_bytes())["inputs"], path.read_bytes()


def _place(cache_dir, good_entry):
    key, inputs, raw = good_entry
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"{key}.json"
    path.write_bytes(raw)
    return path


def test_miss_then_hit(cache_dir):
    src = emit_sgemm_cuda(get_preset("tile1d").config)
    first = compile_source(src, "sm_90")
    assert not first.from_cache
    assert len(_entries(cache_dir)) == 1
    second = compile_source(src, "sm_90")
    assert second.from_cache and second.cubin == first.cubin and second.ptx == first.ptx
    assert second.resources == first.resources and second.log == first.log
    # another arch is another entry
    third = compile_source(src, "sm_80")
    assert not third.from_cache and len(_entries(cache_dir)) == 2
    assert not any(p.name.endswith(".tmp") for p in cache_dir.iterdir())


def test_an_entry_records_the_inputs_of_its_key(naive_src, good_entry):
    key, _, raw = good_entry
    d = json.loads(raw)
    inputs = d["inputs"]
    assert inputs == {"stage": "nvrtc", "compiler": compiler.nvrtc_version(), "arch": "sm_90",
                      "options": list(compiler.NVRTC_OPTIONS), "name": naive_src.name,
                      "source_sha256": cache.sha256_text(naive_src.text)}
    assert key == d["key"] == cache.key_of(inputs)
    assert d["rebuild"] == {"text": naive_src.text}  # what `regtile cache verify` recompiles


def _damaged(raw: bytes, how: str) -> bytes:
    d = json.loads(raw)
    if how == "truncate":
        return raw[: len(raw) // 2]
    if how == "garbage":
        return b"\x00\xff not json"
    if how == "not-utf8":
        return b'{"format": 2, "key": "\xff\xfe"}'
    if how in ("null", "list", "string", "number", "true"):
        return {"null": b"null", "list": b"[1, 2]", "string": b'"entry"', "number": b"42", "true": b"true"}[how]
    if how == "nested-deep":
        return b"[" * 100000 + b"]" * 100000
    if how == "flip-cubin":
        cub = bytearray(base64.b64decode(d["cubin"]))
        cub[len(cub) // 2] ^= 0xFF
        d["cubin"] = base64.b64encode(bytes(cub)).decode()
    elif how == "cubin-not-base64":
        d["cubin"] = "not base64 !!"
    elif how == "wrong-key":
        d["key"] = "0" * 64
    elif how == "old-format":
        d["format"] = 1
    elif how == "format-true":
        d["format"] = True
    elif how.startswith("type:"):  # a field of the wrong JSON type
        field, value = how[5:].split("=")
        d[field] = json.loads(value)
    elif how.startswith("drop:"):
        del d[how[5:]]
    return json.dumps(d).encode()


MALFORMED = ["truncate", "garbage", "not-utf8", "null", "list", "string", "number", "true", "nested-deep",
             "flip-cubin", "cubin-not-base64", "wrong-key", "old-format", "format-true",
             "type:cubin=123", "type:ptx=[1]", "type:log=null", "type:inputs=\"x\"", "type:rebuild=[]",
             "type:sha256=false", "type:key=7", "drop:ptx", "drop:inputs", "drop:sha256"]


@pytest.mark.parametrize("how", MALFORMED)
def test_every_malformed_entry_is_a_miss(cache_dir, good_entry, how):
    path = _place(cache_dir, good_entry)
    _, inputs, _ = good_entry
    assert cache.load(inputs) is not None
    path.write_bytes(_damaged(path.read_bytes(), how))
    assert cache.load(inputs) is None  # never an exception, never a wrong entry
    stored, why = cache.read(path)
    assert stored is None and why


@pytest.mark.parametrize("how", ["truncate", "null", "list", "type:cubin=123", "flip-cubin", "wrong-key"])
def test_a_malformed_entry_is_recompiled_and_rewritten(cache_dir, naive_src, good_entry, how):
    path = _place(cache_dir, good_entry)
    good = cache.read(path)[0].entry
    path.write_bytes(_damaged(path.read_bytes(), how))
    again = compile_source(naive_src, "sm_90")
    assert not again.from_cache and again.cubin == good.cubin
    assert cache.read(path)[0] is not None  # rewritten whole
    assert compile_source(naive_src, "sm_90").from_cache


def _rewrite_inputs(path, change):
    """A self-consistent entry (key = hash of its inputs, digest right) that records other
    inputs, written under the original file name: what a stale or foreign entry looks like."""
    d = json.loads(path.read_bytes())
    change(d["inputs"])
    d["key"] = cache.key_of(d["inputs"])
    path.write_text(json.dumps(d))


@pytest.mark.parametrize("field, value", [("options", ["-std=c++17"]), ("compiler", "nvrtc 12.9"),
                                          ("arch", "sm_80"), ("source_sha256", "0" * 64), ("name", "other")])
def test_an_entry_recording_other_inputs_is_refused(cache_dir, good_entry, field, value):
    path = _place(cache_dir, good_entry)
    _, inputs, _ = good_entry
    _rewrite_inputs(path, lambda i: i.__setitem__(field, value))
    assert cache.read(path)[0] is None  # written under a name that is not its key
    assert cache.load(inputs) is None
    # the same entry under its own (new) name is whole, but no compile of this source asks for it
    d = json.loads(path.read_bytes())
    moved = path.with_name(f"{d['key']}.json")
    path.rename(moved)
    assert cache.read(moved)[0] is not None and cache.load(inputs) is None


def test_a_refused_entry_is_recompiled_and_replaced(cache_dir, naive_src, good_entry):
    path = _place(cache_dir, good_entry)
    good = cache.read(path)[0].entry
    _rewrite_inputs(path, lambda i: i.__setitem__("compiler", "nvrtc 12.9"))
    again = compile_source(naive_src, "sm_90")
    assert not again.from_cache and again.cubin == good.cubin
    assert compile_source(naive_src, "sm_90").from_cache


def test_recorded_inputs_are_compared_even_when_keys_collide(tmp_path, monkeypatch):
    """load() compares the recorded inputs with the caller's, not only the key: with every
    key made equal, an entry for other inputs is still refused."""
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "key_of", lambda inputs: "ab" * 32)
    a, b = {"stage": "nvrtc", "options": ["-O3"]}, {"stage": "nvrtc", "options": ["-O2"]}
    cache.store(a, cache.Entry("ptx", b"\x7fELF", "log"), {"text": "x"})
    assert cache.load(a) == cache.Entry("ptx", b"\x7fELF", "log")
    assert cache.load(b) is None


def test_key_depends_on_every_input():
    base = {"stage": "nvrtc", "compiler": "nvrtc 13.0", "arch": "sm_90", "options": ["-O3"], "name": "k",
            "source_sha256": "a" * 64}
    keys = {cache.key_of(base)}
    for field, value in [("stage", "nvjitlink"), ("compiler", "nvrtc 13.1"), ("arch", "sm_80"),
                         ("options", ["-O2"]), ("options", ["-O3", "-v"]), ("name", "k2"), ("source_sha256", "b" * 64)]:
        keys.add(cache.key_of({**base, field: value}))
    assert len(keys) == 8


def test_the_sass_pass_version_and_bank_models_are_in_its_key(monkeypatch):
    from regtile.runtime import reg_banks, sass_pass
    base = sass_stage.sass_pass_inputs("sm_90", ("k",), "c" * 64)
    assert base["pass_version"] == sass_pass.PASS_VERSION and base["planning_model"] == sass_pass.PASS_BANK_MODEL
    assert base["bank_model"]["banks"] == 2
    keys = {cache.key_of(base)}
    monkeypatch.setattr(sass_pass, "PASS_VERSION", sass_pass.PASS_VERSION + "-next")
    keys.add(cache.key_of(sass_stage.sass_pass_inputs("sm_90", ("k",), "c" * 64)))
    monkeypatch.setattr(sass_pass, "PASS_BANK_MODEL", "4 banks")
    keys.add(cache.key_of(sass_stage.sass_pass_inputs("sm_90", ("k",), "c" * 64)))
    monkeypatch.setitem(reg_banks.CALIBRATION, "sm_90", {**reg_banks.CALIBRATION["sm_90"], "penalty_cycles": 3.0})
    keys.add(cache.key_of(sass_stage.sass_pass_inputs("sm_90", ("k",), "c" * 64)))
    keys.add(cache.key_of(sass_stage.sass_pass_inputs("sm_90", ("k", "ranges"), "c" * 64)))
    keys.add(cache.key_of(sass_stage.sass_pass_inputs("sm_90", ("k",), "d" * 64)))
    assert len(keys) == 6


def test_load_and_store_find_an_entry_by_the_key_of_its_inputs(tmp_path, monkeypatch):
    """One key function: store writes <key_of(inputs)>.json, load reads that file, so an entry
    can never be stored under a key that load would not ask for."""
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path))
    inputs, entry = {"stage": "nvrtc", "options": ["-O3"]}, cache.Entry("ptx", b"\x7fELF", "log")
    cache.store(inputs, entry, {"text": "x"})
    assert [p.name for p in cache.entry_files()] == [f"{cache.key_of(inputs)}.json"]
    assert cache.load(dict(reversed(list(inputs.items())))) == entry  # the key is canonical


def test_unwritable_cache_is_skipped_and_said_once(tmp_path, monkeypatch, capsys, naive_src):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(blocker / "sub"))
    monkeypatch.setattr(cache, "_warned_unwritable", False)
    art = compile_source(naive_src, "sm_90")
    assert art.resources.registers > 0 and not art.from_cache
    compile_source(emit_sgemm_cuda(get_preset("smem").config), "sm_90")
    err = capsys.readouterr().err
    assert err.count("cannot be written") == 1, err
    assert str(blocker / "sub") in err and "REGTILE_CACHE_DIR" in err


def _raise_not_found(*a, **k):
    from cuda.pathfinder import DynamicLibNotFoundError
    raise DynamicLibNotFoundError("Failure finding libnvrtc.so: candidates tried: []")


@pytest.mark.parametrize("tool, fn, lib, package", [
    ("nvrtc", "nvrtcVersion", "libnvrtc", "nvidia-cuda-nvrtc==13.0.*"),
    ("nvjitlink", "version", "libnvJitLink", "nvidia-nvjitlink==13.0.*")])
def test_a_missing_compiler_library_is_a_clean_error(monkeypatch, naive_src, tool, fn, lib, package):
    import cuda.bindings.nvjitlink
    import cuda.bindings.nvrtc
    from regtile.codegen.emit import emit
    monkeypatch.setattr(getattr(cuda.bindings, tool), fn, _raise_not_found)
    compiler._library_files.cache_clear()
    src = naive_src if tool == "nvrtc" else emit(get_preset("naive").config, "ptx")
    with pytest.raises(CompilerMissing) as e:
        compile_source(src, "sm_90", use_cache=False)
    assert lib in str(e.value) and f"pip install '{package}'" in str(e.value)
    assert isinstance(e.value, CompileError)  # the CLI prints it as one line, exit status 2
    compiler._library_files.cache_clear()


def test_a_compiler_library_the_worker_cannot_load_is_a_clean_error(monkeypatch, naive_src, tmp_path):
    monkeypatch.setattr(compiler, "_library_files", lambda tool: (str(tmp_path / "libnvrtc.so.13"),))
    with pytest.raises(CompilerMissing, match="pip install 'nvidia-cuda-nvrtc"):
        compile_source(naive_src, "sm_90", use_cache=False)


def test_the_cli_reports_a_missing_library_in_one_line(monkeypatch, capsys, tmp_path):
    import cuda.bindings.nvrtc
    from regtile.tools.cli import main
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setattr(cuda.bindings.nvrtc, "nvrtcVersion", _raise_not_found)
    compiler._library_files.cache_clear()
    assert main(["gen", "--preset", "naive", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("regtile: error: libnvrtc not found") and "pip install" in err[0]
    compiler._library_files.cache_clear()
