"""The shape sets under benchmarks/: the committed JSON files are what benchmarks/shapes.py writes, and the
fitting grids (the table's extra entries, sessions 16-17, 29 and 30) share no shape with the suite or the held-out sets,
which judge the heuristic out of sample; the skinny probe (session 30, timed, not in the table) keeps apart from all."""
import importlib.util
import json
import os

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks")
HELD_OUT = ["shapes-heldout.json", "shapes-heldout-2.json", "shapes-heldout-3.json", "shapes-heldout-4.json",
            "shapes-heldout-5.json"]


def _module():
    spec = importlib.util.spec_from_file_location("bench_shapes", os.path.join(BENCH, "shapes.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SHAPES = _module()
GRID_FILES = {f"shapes-fit-{name}.json": name
              for name in list(SHAPES.FIT_GRIDS) + ["ragged", "ragged-mid", "ragged-big", "aligned", "n16"]}


def _grid_rows(name):
    if name == "n16":
        return SHAPES.n16_grid()
    if name == "aligned":
        return SHAPES.aligned_grid()
    if name == "ragged-big":
        return SHAPES.ragged_big_grid()
    if name.startswith("ragged"):
        return SHAPES.ragged_grid(SHAPES.FIT_RAGGED_MID_BASE if name == "ragged-mid" else SHAPES.FIT_RAGGED_BASE)
    return SHAPES.fit_grid(name)


def _shapes(name):
    with open(os.path.join(BENCH, name)) as f:
        return {(r["m"], r["n"], r["k"]) for r in json.load(f)}


@pytest.mark.parametrize("name", ["shapes.json"] + sorted(GRID_FILES))
def test_committed_sets_are_what_shapes_py_writes(name):
    rows = SHAPES.suite() if name == "shapes.json" else _grid_rows(GRID_FILES[name])
    assert {(r["m"], r["n"], r["k"]) for r in rows} == _shapes(name)


def test_every_committed_grid_is_one_shapes_py_writes():
    assert {f for f in os.listdir(BENCH) if f.startswith("shapes-fit-")} == set(GRID_FILES)


def test_fitting_grids_stay_apart_from_the_suite_and_the_held_out_sets():
    grids = set().union(*(_shapes(name) for name in GRID_FILES))
    assert len(grids) >= 300
    assert not grids & _shapes("shapes.json")
    for name in HELD_OUT:
        assert not grids & _shapes(name), name


@pytest.mark.parametrize("name", ["ragged", "ragged-mid", "ragged-big"])
def test_the_ragged_grids_are_ragged_and_away_from_the_held_out_sets(name):
    """Every point has unaligned rows in row-major (N and K not multiples of 4) and lies at least 0.5 (log2, L1)
    from every held-out shape, so that the held-out ragged losses stay out of sample."""
    rows = _grid_rows(name)
    assert len(rows) >= 200 or name == "ragged-big" and len(rows) >= 150
    assert all(r["n"] % 4 and r["k"] % 4 and r["m"] % 4 for r in rows)
    held = set().union(*(_shapes(name) for name in HELD_OUT))
    assert min(SHAPES._log2_distance((r["m"], r["n"], r["k"]), held) for r in rows) >= 0.5


def test_the_aligned_partners_are_the_ragged_points_before_their_moves():
    """benchmarks/shapes-pair-aligned.json (session 29): for each point of the first and the big ragged grid, the
    aligned shape it was moved from (M + 1, N & ~3, K & ~3), every one aligned, none a held-out shape."""
    pairs = _shapes("shapes-pair-aligned.json")
    ragged = SHAPES.ragged_grid() + SHAPES.ragged_big_grid()
    assert pairs == {(r["m"] + 1, r["n"] & ~3, r["k"] & ~3) for r in ragged}
    assert pairs == {(r["m"], r["n"], r["k"]) for r in SHAPES.aligned_partners(ragged)}
    assert all(m % 4 == 0 and n % 4 == 0 and k % 4 == 0 for m, n, k in pairs)
    for name in HELD_OUT:
        assert not pairs & _shapes(name), name


def test_the_aligned_grid_is_the_partners_apart_from_the_suite_and_the_held_out_sets():
    """benchmarks/shapes-fit-aligned.json (session 30): the aligned partners at least 0.5 (log2, L1) from every suite
    and held-out shape, so that both judge the table out of sample; group "fit-aligned", a fitting grid's (its rows stay
    out of the model's fit: tools/table_fit.fitting_row)."""
    from regtile.tools.table_fit import fitting_row
    rows = SHAPES.aligned_grid()
    grid = {(r["m"], r["n"], r["k"]) for r in rows}
    assert len(grid) == len(rows) >= 400 and grid < _shapes("shapes-pair-aligned.json")
    assert all(fitting_row(r) for r in rows)
    for name in ["shapes.json"] + HELD_OUT:
        others = sorted(_shapes(name))
        assert min(SHAPES._log2_distance(s, others) for s in grid) >= 0.5, name


def test_the_skinny_probe_is_thin_and_apart_from_every_other_set():
    """benchmarks/shapes-skinny-probe.json (session 30, timed, not a table source): M or N of 20-48 (the few-vector and
    GEMV routes take 1-16), aligned rows, at least 0.5 (log2, L1) from every suite, held-out and fitting grid shape."""
    from regtile.tools.shape_sweep import gemv_routed
    rows = SHAPES.skinny_grid()
    grid = {(r["m"], r["n"], r["k"]) for r in rows}
    assert len(grid) == len(rows) >= 300 and grid == _shapes("shapes-skinny-probe.json")
    assert all(20 <= min(m, n) <= 48 and max(m, n) >= 1024 and n % 4 == 0 and k % 4 == 0 for m, n, k in grid)
    assert not any(gemv_routed(*s) for s in grid)
    # (the sets it was drawn apart from: the n = 16 grid came after it, session 34, and lies 0.32 from its n = 20 rows)
    for name in ["shapes.json"] + HELD_OUT + sorted(set(GRID_FILES) - {"shapes-fit-n16.json"}):
        shapes = sorted(_shapes(name))
        assert min(SHAPES._log2_distance(s, shapes) for s in grid) >= 0.5, name


def test_batched_sets_stay_apart_and_are_well_formed():
    """The batched suite and its two held-out sets (sessions 45-46): no (layout, batch, m, n, k) in two of them (a
    held-out set judges the batch rule out of sample); every entry names its workload and a layout."""
    sets = {}
    for name in ("shapes-batched.json", "shapes-batched-heldout.json", "shapes-batched-heldout-2.json"):
        with open(os.path.join(BENCH, name)) as f:
            rows = json.load(f)
        keys = {(r["layout"], r["batch"], r["m"], r["n"], r["k"]) for r in rows}
        assert len(keys) == len(rows), name
        assert all(r["layout"] in ("NN", "NT", "TN", "TT") and r["what"] and r["group"] and
                   min(r["batch"], r["m"], r["n"], r["k"]) >= 1 for r in rows), name
        sets[name] = keys
    names = list(sets)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not sets[a] & sets[b], (a, b)
