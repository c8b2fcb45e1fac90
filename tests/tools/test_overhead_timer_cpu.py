"""benchmarks/overhead.py's interleaved timer without a GPU (a stand-in torch): each variant's
packed launches go through its own launcher while it is timed, and the process's launcher is back
afterwards (the launcher comparison of docs/overhead.md rests on this)."""
import importlib.util
import sys
import types
from pathlib import Path

from regtile.runtime import driver


def test_each_variant_runs_with_its_launcher(monkeypatch):
    spec = importlib.util.spec_from_file_location(
        "overhead_bench", Path(__file__).resolve().parents[2] / "benchmarks" / "overhead.py")
    overhead = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(overhead)
    fake_torch = types.SimpleNamespace(cuda=types.SimpleNamespace(synchronize=lambda: None))
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    default, ctypes_l, bindings_l = object(), object(), object()
    monkeypatch.setattr(driver, "_raw_launch", default)
    seen = {"plain": set(), "ctypes": set(), "bindings": set()}
    variants = {name: (lambda name=name: seen[name].add(driver._raw_launch)) for name in seen}
    out = overhead._time_variants(variants, calls=8, rounds=3, launchers={"ctypes": ctypes_l, "bindings": bindings_l})
    assert seen == {"plain": {default}, "ctypes": {default, ctypes_l}, "bindings": {default, bindings_l}}
    assert driver._raw_launch is default
    assert set(out) == set(seen) and all(len(v["async_rounds"]) == 3 for v in out.values())
