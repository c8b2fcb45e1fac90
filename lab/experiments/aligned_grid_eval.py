"""Offline (no GPU): the decision table with an aligned fitting grid added (session 30: the aligned partners of
session 29's ragged grids, benchmarks/shapes-fit-aligned.json, timed with every member on the H200 at 88eef27),
judged as ragged_table_eval judges the ragged grids: the picks' time over the fastest member's (geometric mean
through the whole choice: table, else model), their speed over cuBLAS and how many are at >= cuBLAS, on
  - the grid, each shape left out of the table in turn (the other shapes stay: out of sample for that shape);
  - candidates runs never fitted (paths given: the held-out sets timed with every member);
  - the suite, each shape left out in turn (model_fit_eval.leave_one_out).

  python3 -m lab.experiments.aligned_grid_eval GRID.json [HELD_OUT.json ...]

Variants: the committed table without the grid's shapes, and the table refitted as `shape_sweep --fit` refits it (the
table's sources, GRID last unless the table already lists it, sticky 0.03; a grid shape the table already holds is left
to the table's own run: tools/shape_sweep's merge would otherwise replace a suite shape's row and take it out of the
model's fit)."""
import math
import os

from lab.experiments import program
from lab.experiments.ragged_table_eval import report


def _load(path):
    from regtile.tools.datafiles import load_json
    return load_json(path)  # docs/data's runs over 300 KB are stored as NAME.gz: load_json reads either


def refitted(grid_path):
    """The table's entries refitted with the grid's rows (tools/table_fit.fit_table over the table's sources)."""
    from regtile.codegen import heuristic as h
    from regtile.tools.table_fit import fit_table, merge_runs, model_runs
    data = h._table_data(h.TABLE_PATH)
    grid_name = os.path.basename(grid_path).removesuffix(".gz")  # the table's sources name foo.json, stored foo.json.gz
    names = [s.strip() for s in data["source"].split(",") if s.strip() != grid_name]
    sources = [_load(os.path.join("docs/data", s)) for s in names]
    grid = _load(grid_path)
    held = {(r["m"], r["n"], r["k"]) for src in sources for r in src["rows"]}  # shapes the other runs time
    grid = dict(grid, rows=[r for r in grid["rows"] if (r["m"], r["n"], r["k"]) not in held])
    model = data.get("model_source")  # the runs the model was fitted on, where not the sources (session 40)
    table = fit_table(merge_runs(sources + [grid]), previous=data["entries"], sticky=data.get("sticky", 0.03),
                      model_raw=merge_runs([_load(os.path.join("docs/data", s)) for s in model_runs(data)])
                      if model else None, model_source=model or "")
    assert table["model_tflops"] == data["model_tflops"], "the grid moved the model: its rows are not fitting rows"
    return tuple(dict(e, log2=(math.log2(e["m"]), math.log2(e["n"]), math.log2(e["k"])),
                      aligned=h.rows_aligned(e["m"], e["n"], e["k"])) for e in table["entries"] if e.get("rel")), grid


def run(argv):
    from regtile.codegen import heuristic as h
    with_grid, grid = refitted(argv[0])
    in_grid = {(r["m"], r["n"], r["k"]) for r in grid["rows"]}
    committed = tuple(e for e in h.load_table() if (e["m"], e["n"], e["k"]) not in in_grid)
    held = [(p, _load(p)["rows"]) for p in argv[1:]]
    saved_load = h.load_table
    for label, table in (("without the grid", committed), ("+ grid", with_grid)):
        try:
            report(h, label, table, grid["rows"], held)
        finally:
            h.load_table = saved_load

main = program(run, "GRID.json [HELD_OUT.json ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
