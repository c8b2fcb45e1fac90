"""Offline (no GPU): the decision table with the ragged fitting grid (benchmarks/shapes-fit-ragged.json, 268 shapes
whose packed rows are not 16-byte aligned; session 29) and table_choice's rows' class (heuristic.rows_aligned), judged
as grid_refit_eval judges a refit: the picks' time over the fastest member's (geometric mean through the whole
choice: table, else model), their speed over cuBLAS and how many are at >= cuBLAS, on
  - the ragged grid, each shape left out of the table in turn (the other 267 stay: out of sample for that shape);
  - candidates runs never fitted (paths given: e.g. the held-out sets' unaligned shapes timed with every member);
  - the suite, each shape left out in turn (model_fit_eval.leave_one_out).

  python3 -m lab.experiments.ragged_table_eval GRID.json[,GRID2.json] [HELD_OUT.json ...]

Variants: the committed table (without the grids) with and without the class, and the table with the grids' entries
added (fit_table of the GRID runs; the committed entries and model as they are) with an entry of the other class
CLASS_DISTANCES further (0: no class; inf: the other class only where fewer than MIN_NEIGHBOURS of the query's own
are near)."""
import math

CLASS_DISTANCES = (0.0, 0.25, 0.5, float("inf"))

from lab.experiments import program
from lab.experiments.model_fit_eval import _geo, leave_one_out


def _load(path):
    from regtile.tools.datafiles import load_json
    return load_json(path)  # docs/data's runs over 300 KB are stored as NAME.gz: load_json reads either


def judged(h, rows, table=None, loo=False, sm_count=132):
    """(over the fastest member, x cuBLAS, picks >= cuBLAS, shapes, worst three) of the picks on candidates `rows`;
    loo: each row's shape left out of `table` while it is judged."""
    from lab.experiments.table_transfer_eval import family_rows
    over, x, at, worst = [], [], 0, []
    for r, timed in family_rows(rows):
        m, n, k = r["m"], r["n"], r["k"]
        if loo:
            h.load_table = lambda path=None, t=tuple(e for e in table if (e["m"], e["n"], e["k"]) != (m, n, k)): t
        pick = h.choose_member(m, n, k, sm_count)
        if pick not in timed:
            continue
        best = min(timed.values())
        over.append(timed[pick] / best)
        x.append(r["cublas_us"] / timed[pick])
        at += r["cublas_us"] >= timed[pick]
        worst.append((timed[pick] / best, f"{m}x{n}x{k} {pick} over {min(timed, key=timed.get)}"))
    return _geo(over), _geo(x), at, len(over), [f"{w} {v:.2f}" for v, w in sorted(worst, reverse=True)[:3]]


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.tools.table_fit import fit_table
    grids = [_load(p) for p in argv[0].split(",")]
    held = [(p, _load(p)["rows"]) for p in argv[1:]]
    grid = {"rows": [r for g in grids for r in g["rows"]]}
    in_grid = {(r["m"], r["n"], r["k"]) for r in grid["rows"]}
    committed = tuple(e for e in h.load_table() if (e["m"], e["n"], e["k"]) not in in_grid)  # the table without them
    added = fit_table(grid)["entries"]
    with_grid = committed + tuple(dict(e, log2=(math.log2(e["m"]), math.log2(e["n"]), math.log2(e["k"])),
                                       aligned=h.rows_aligned(e["m"], e["n"], e["k"])) for e in added)
    saved_load, saved_class, saved_sees = h.load_table, h.CLASS_DISTANCE, h.ALIGNED_SEES_UNALIGNED
    for label, table, extra, sees in (("committed, no class", committed, 0.0, True),
                                      ("committed, class", committed, saved_class, saved_sees),
                                      *((f"+ ragged grids, class distance {c}{'' if s else ', aligned queries own class'}",
                                         with_grid, c, s) for s in (True, False) for c in CLASS_DISTANCES)):
        h.CLASS_DISTANCE, h.ALIGNED_SEES_UNALIGNED = extra, sees
        try:
            report(h, label, table, grid["rows"], held)
        finally:
            h.load_table, h.CLASS_DISTANCE, h.ALIGNED_SEES_UNALIGNED = saved_load, saved_class, saved_sees


def report(h, label, table, grid_rows, held):
    """Print the judgement of `table` (h.load_table set to it here): the grid's rows each left out, each held-out run
    ((path, rows)), the suite each left out (model_fit_eval.leave_one_out)."""
    h.load_table = lambda path=None, t=table: t
    parts = []
    g, x, at, cnt, worst = judged(h, grid_rows, table, loo=True)
    parts.append(f"grid left out {100 * (g - 1):.1f}% x{x:.3f} ({at} of {cnt} >= 1.0; worst {'; '.join(worst)})")
    h.load_table = lambda path=None, t=table: t
    for path, rows in held:
        g, x, at, cnt, worst = judged(h, rows)
        parts.append(f"{path.split('/')[-1]} {100 * (g - 1):.1f}% x{x:.3f} ({at} of {cnt}; worst {'; '.join(worst)})")
    loo, by_model, _ = leave_one_out(None)
    parts.append(f"suite left out {100 * (loo - 1):.1f}% ({by_model} by the model)")
    print(f"{label} ({len(table)} entries):\n  " + "\n  ".join(parts), flush=True)


main = program(run, "GRID.json [HELD_OUT.json ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
