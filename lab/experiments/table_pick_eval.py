"""Offline (no GPU): several decision tables' picks judged on a candidates run where every member was timed (session
40: the table's suite rows refitted, with the model kept or refitted, against the table before).

For each table file (codegen/heuristic_table.json's form; a git revision's copy, or a device run's refit): its entries
and its model (model_tflops, model_fixed_us) in place of the committed ones, the pick per row among the members the
row timed (lab/experiments.timed_choice, packed row-major as choose_member makes it), judged by its time over the
row's fastest member (geometric mean) and the picks at >= cuBLAS.  Rows regtile.sgemm routes to a GEMV or few-vector
kernel are left out (table_transfer_eval.family_rows).  The first table is the reference: the rows whose pick differs
from its pick are listed.

  python3 -m lab.experiments.table_pick_eval CANDIDATES.json TABLE.json[.gz] [TABLE.json[.gz] ...]

Session 40 (docs/data/session40/table_pick_eval.log): session 30's held-out candidates (every member on the 195
held-out shapes, H200) judging the table before session 40 (git show a258874:codegen/heuristic_table.json), the
committed one and g_b13d5fe's refit with its model refitted on the new suite run.
"""
import math

from lab.experiments import program, timed_choice


def _load(path):
    import gzip
    import json
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def picks(h, rows, data, sm_count=132):
    """{(m, n, k): (pick, its time over the fastest, whether it is at >= cuBLAS)} with table `data`'s entries and
    model in place of the committed ones."""
    from lab.experiments.table_transfer_eval import family_rows
    entries = tuple(dict(e, log2=(math.log2(e["m"]), math.log2(e["n"]), math.log2(e["k"])),
                         aligned=h.rows_aligned(e["m"], e["n"], e["k"])) for e in data["entries"] if e.get("rel"))
    saved = h.model_tflops, h.model_fixed_us
    h.model_tflops, h.model_fixed_us = (lambda: data["model_tflops"]), (lambda: data.get("model_fixed_us", {}))
    try:
        out = {}
        for r, timed in family_rows(rows):
            pick = timed_choice(h, r, timed, sm_count, entries)[0]
            out[(r["m"], r["n"], r["k"])] = (pick, timed[pick] / min(timed.values()), r["cublas_us"] >= timed[pick])
        return out
    finally:
        h.model_tflops, h.model_fixed_us = saved


def run(argv):
    from regtile.codegen import heuristic as h
    if len(argv) < 2:
        raise SystemExit("usage: table_pick_eval CANDIDATES.json TABLE.json [TABLE.json ...]")
    rows = _load(argv[0])["rows"]
    ref = None
    for path in argv[1:]:
        got = picks(h, rows, _load(path))
        geo = math.exp(sum(math.log(v[1]) for v in got.values()) / len(got))
        print(f"{path}: {len(got)} shapes, picks {100 * (geo - 1):.2f}% over the fastest member, "
              f"{sum(v[2] for v in got.values())} at >= cuBLAS")
        if ref is None:
            ref = got
            continue
        moved = [s for s in got if got[s][0] != ref[s][0]]
        print(f"  {len(moved)} picks differ from {argv[1]}'s:")
        for s in moved:
            print(f"    {s[0]}x{s[1]}x{s[2]}: {ref[s][0]} {ref[s][1]:.3f} -> {got[s][0]} {got[s][1]:.3f}")


main = program(run, "CANDIDATES.json TABLE.json [TABLE.json ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
