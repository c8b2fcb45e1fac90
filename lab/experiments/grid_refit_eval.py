"""Offline (no GPU): the decision table refitted with more candidates runs (session 16: the small-problem
fitting grid, benchmarks/shapes-fit-small.json, the long thin one, shapes-fit-tall.json, and the suite's N % 4 != 0
shapes timed again with C staged),
judged as model_fit_eval judges the model's forms: on the held-out candidates runs (never fitted; their
N % 4 != 0 rows replaced by session 16's, timed with C staged), the picks' time over the fastest member's
(geometric mean through the whole choice: table, else model) and the picks at >= cuBLAS; and the suite, each
shape left out of the table in turn.

  python3 -m lab.experiments.grid_refit_eval [extra=RAW.json,RAW2.json] [sticky=0.03]

Each variant: the committed table's sources from before session 16, then the extra runs (a later run's
shapes replace an earlier one's, as `shape_sweep --fit` merges them), fitted by
tools/shape_sweep.fit_table (the entries on every row, the model on the suite's rows alone)."""
import json
import os

from lab.experiments import program, take_option
from lab.experiments.model_fit_eval import SETS, _geo, held_out

S16 = "docs/data/session16/a_4c008c1/"
GRID = "docs/data/shape-candidates-session16-fit-small_4c008c1.json"
SUITE_N4 = "docs/data/shape-candidates-session16-suite-n4_4c008c1.json"
TALL = "docs/data/shape-candidates-session16-fit-tall_f3e7b94.json"
SET_UPDATES = {"held-out 1+2": "docs/data/session16/c_f3e7b94/shape-candidates-heldout12-n4_f3e7b94.json",
               "held-out 3": S16 + "shape-candidates-heldout3-n4_4c008c1.json",
               "held-out 4": S16 + "shape-candidates-heldout4-n4_4c008c1.json"}
VARIANTS = {"suite runs (session 15)": [], "+suite N%4": [SUITE_N4], "+grid": [GRID], "+suite N%4 +grid": [SUITE_N4, GRID],
            "+suite N%4 +grid +tall grid": [SUITE_N4, GRID, TALL]}


def _load(path):
    with open(path) as f:
        return json.load(f)


def table_for(extra, sticky):
    """The table fitted on the committed table's sources from before session 16 plus `extra`."""
    from regtile.codegen import heuristic as h
    from regtile.tools.shape_sweep import fit_table, merge_runs
    data = h._table_data()
    base = [s for s in data["source"].split(", ") if "session16" not in s]
    raws = [_load(os.path.join("docs", "data", s)) for s in base] + [_load(p) for p in extra]
    return fit_table(merge_runs(raws), previous=data["entries"] if sticky else (), sticky=sticky)


def set_rows(label):
    from regtile.tools.shape_sweep import merge_runs
    raws = [_load(SETS[label])] + ([_load(SET_UPDATES[label])] if label in SET_UPDATES else [])
    return merge_runs(raws)["rows"]


def leave_one_out(h, sm_count=132):
    """The committed suite's shapes, each left out of the table in turn: the pick over the fastest (geomean)."""
    suite = {(r["m"], r["n"], r["k"]) for r in _load("benchmarks/shapes.json")}
    table = h.load_table()
    rels = []
    for i, e in enumerate(table):
        q = (e["m"], e["n"], e["k"])
        if q not in suite:
            continue
        names = h.candidate_names(*q)
        pick = h.table_choice(*q, names, table[:i] + table[i + 1:], transfer_sms=sm_count)
        pick = pick if pick is not None else h.model_choice(names, *q, sm_count)
        rels.append(e["rel"].get(pick, 2.0))
    return _geo(rels), len(rels)


def run(argv):
    from regtile.codegen import heuristic as h
    sticky = float(take_option(argv, "sticky") or 0)
    extra = take_option(argv, "extra")
    variants = {"suite runs (session 15)": [], extra: extra.split(",")} if extra else VARIANTS
    sets = {label: set_rows(label) for label in SETS}
    saved = h._table_data
    for label, paths in variants.items():
        data = table_for(paths, sticky)
        h._table_data = lambda path=None, data=data: data
        h.load_table.cache_clear()  # cached on the table's path
        try:
            parts = []
            for name, rows in sets.items():
                geo, at, n, worst = held_out(rows, None)
                parts.append(f"{name} {100 * (geo - 1):.1f}% ({at} of {n} >= cuBLAS)")
            loo, n = leave_one_out(h)
            print(f"{label:18s} {len(data['entries'])} entries: " + ", ".join(parts)
                  + f"; suite left out {100 * (loo - 1):.1f}% ({n})", flush=True)
        finally:
            h._table_data = saved
            h.load_table.cache_clear()


main = program(run, "extra=RAW.json,... sticky=0.03")

if __name__ == "__main__":
    import sys
    sys.exit(main())
