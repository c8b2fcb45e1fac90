"""Offline (no GPU): does refitting the heuristic's table with one held-out set help the other?

Session 14's device runs said no twice (docs/shapes.md, "Held-out shapes"); this replays it on the candidates
runs, where every member was timed on every held-out shape, so that ways of fitting can be compared without
the GPU.  For each direction (fit with held-out 1, judge on held-out 2; and the reverse): the table as
committed, and the refit (the committed table's sources, then the fitting set's candidates, sticky 0.03 as
the recipes refit) in each variant below, judged by how far its picks on the other set are from the fastest
member there (geometric mean) and how many reach cuBLAS.  Only shapes the family runs count (not the GEMV or
few-vector routes).  The runs timed the family of b74cc20: a pick is made among the members its row timed (as
tests/codegen/test_heuristic.py judges held-out picks), and each line counts the rows where the choice among every
candidate took a member added since.

Variants of the refit:
  refit        tools/table_fit.fit_table as it is (every entry's fastest member; the model refit)
  keep-model   the same entries, the committed table's model (throughputs and fixed costs) kept
(Choosing a new entry's `best` otherwise changes nothing here: a shape off the table is scored on its
neighbours' ratios, `rel`, and `best` counts only for a shape of the table itself.)

  python3 -m lab.experiments.refit_eval [CANDIDATES.json]
"""
import json
import math
import os

from lab.experiments import program, timed_choice

DEFAULT = "docs/data/heldout-session14/i_b74cc20/shape-candidates-session14-heldout12_b74cc20.json"


def _sets(path):
    """The candidates rows of held-out 1 and held-out 2 (benchmarks/shapes-heldout*.json)."""
    from regtile.tools.datafiles import load_json
    rows = load_json(path)["rows"]
    out = []
    for name in ("benchmarks/shapes-heldout.json", "benchmarks/shapes-heldout-2.json"):
        with open(name) as f:
            shapes = {(r["m"], r["n"], r["k"]) for r in json.load(f)}
        out.append([r for r in rows if (r["m"], r["n"], r["k"]) in shapes])
    return out


def _judge(h, rows, table, model, sm_count=132):
    """(geomean of the picks' time over the fastest member's, picks at >= cuBLAS, shapes, rows whose pick among
    every candidate was a member the run did not time) on rows, with the model's fit `model` = (model_tflops,
    model_fixed_us) in place of the committed table's; the picks among the members the row timed (timed_choice)."""
    from lab.experiments.table_transfer_eval import family_rows
    saved = h.model_tflops, h.model_fixed_us
    h.model_tflops, h.model_fixed_us = (lambda: model[0]), (lambda: model[1])
    try:
        over, at, untimed = [], 0, 0
        for r, timed in family_rows(rows):
            # members added since the run (the BK 32 ones, fused-128x16) have no time here: not judged
            pick, _, outside = timed_choice(h, r, timed, sm_count, table)
            untimed += outside
            over.append(timed[pick] / min(timed.values()))
            at += r["cublas_us"] >= timed[pick]
        return math.exp(sum(map(math.log, over)) / len(over)), at, len(over), untimed
    finally:
        h.model_tflops, h.model_fixed_us = saved


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.tools.datafiles import load_json
    from regtile.tools.table_fit import fit_table, merge_runs, model_runs
    data = h._table_data()
    committed, model0 = data["entries"], (data["model_tflops"], data.get("model_fixed_us", {}))
    raws = [load_json(os.path.join("docs/data", name)) for name in data["source"].split(", ")]
    model_raws = [load_json(os.path.join("docs/data", name)) for name in model_runs(data)]  # the model's runs
    h1, h2 = _sets(argv[0] if argv else DEFAULT)
    for fit_name, fit_rows, judge_name, judge_rows in (("held-out 1", h1, "held-out 2", h2),
                                                        ("held-out 2", h2, "held-out 1", h1)):
        fit = {"rows": fit_rows, "sm_count": 132}
        table = fit_table(merge_runs(raws + [fit]), previous=committed, sticky=0.03,
                          model_raw=merge_runs(model_raws + [fit]))
        variants = {"committed": (committed, model0),
                    "refit": (table["entries"], (table["model_tflops"], table["model_fixed_us"])),
                    "keep-model": (table["entries"], model0)}
        print(f"fitted with {fit_name}, judged on {judge_name}:")
        for name, (entries, model) in variants.items():
            geo, at, count, untimed = _judge(h, judge_rows, entries, model)
            print(f"  {name:22s} picks {100 * (geo - 1):.1f}% over the fastest, {at} of {count} at >= cuBLAS"
                  f" ({untimed} rows picked a member the run did not time: judged among those it timed)")


main = program(run, "a candidates JSON with both held-out sets")


if __name__ == "__main__":
    import sys
    sys.exit(main())
