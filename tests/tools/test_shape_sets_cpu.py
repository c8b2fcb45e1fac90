"""The shape sets under benchmarks/: the committed JSON files are what benchmarks/shapes.py writes, and the
fitting grids (the table's extra entries, session 16) share no shape with the suite or the held-out sets, which
judge the heuristic out of sample."""
import importlib.util
import json
import os

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks")
FILES = {"shapes.json": "suite", "shapes-fit-small.json": "fit_small", "shapes-fit-tall.json": "fit_tall",
         "shapes-fit-tiny.json": "fit_tiny", "shapes-fit-flat.json": "fit_flat", "shapes-fit-narrow.json": "fit_narrow"}
HELD_OUT = ["shapes-heldout.json", "shapes-heldout-2.json", "shapes-heldout-3.json", "shapes-heldout-4.json",
            "shapes-heldout-5.json"]


def _module():
    spec = importlib.util.spec_from_file_location("bench_shapes", os.path.join(BENCH, "shapes.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _shapes(name):
    with open(os.path.join(BENCH, name)) as f:
        return {(r["m"], r["n"], r["k"]) for r in json.load(f)}


@pytest.mark.parametrize("name", sorted(FILES))
def test_committed_sets_are_what_shapes_py_writes(name):
    rows = getattr(_module(), FILES[name])()
    assert {(r["m"], r["n"], r["k"]) for r in rows} == _shapes(name)


def test_fitting_grids_stay_apart_from_the_suite_and_the_held_out_sets():
    grids = _shapes("shapes-fit-small.json") | _shapes("shapes-fit-tall.json") | _shapes("shapes-fit-tiny.json")
    grids |= _shapes("shapes-fit-flat.json") | _shapes("shapes-fit-narrow.json")
    assert len(grids) >= 300
    assert not grids & _shapes("shapes.json")
    for name in HELD_OUT:
        assert not grids & _shapes(name), name
