"""Offline (no GPU): does refitting the heuristic's table with one held-out set help the other?

Session 14's device runs said no twice (docs/shapes.md, "Held-out shapes"); this replays it on the candidates
runs, where every member was timed on every held-out shape, so that ways of fitting can be compared without
the GPU.  For each direction (fit with held-out 1, judge on held-out 2; and the reverse): the table as
committed, and the refit (the committed table's sources, then the fitting set's candidates, sticky 0.03 as
the recipes refit) in each variant below, judged by how far its picks on the other set are from the fastest
member there (geometric mean) and how many reach cuBLAS.  Only shapes the family runs count (not the GEMV or
few-vector routes).

Variants of the refit:
  refit        tools/shape_sweep.fit_table as it is (every entry's fastest member; the model refit)
  keep-model   the same entries, the committed table's model (throughputs and fixed costs) kept
(Choosing a new entry's `best` otherwise changes nothing here: a shape off the table is scored on its
neighbours' ratios, `rel`, and `best` counts only for a shape of the table itself.)

  python3 -m lab.experiments.refit_eval [CANDIDATES.json]
"""
import json
import math
import os

from lab.experiments import program

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
    """(geomean of the picks' time over the fastest member's, picks at >= cuBLAS, shapes) on rows, with the
    model's fit `model` = (model_tflops, model_fixed_us) in place of the committed table's."""
    from lab.experiments.table_transfer_eval import family_rows
    saved = h.model_tflops, h.model_fixed_us
    h.model_tflops, h.model_fixed_us = (lambda: model[0]), (lambda: model[1])
    try:
        over, at = [], 0
        for r, timed in family_rows(rows):
            m, n, k = r["m"], r["n"], r["k"]
            names = h.candidate_names(m, n, k, sm_count)
            pick = h.table_choice(m, n, k, names, table, transfer_sms=sm_count) or h.model_choice(names, m, n, k,
                                                                                               sm_count)
            over.append(timed[pick] / min(timed.values()))
            at += r["cublas_us"] >= timed[pick]
        return math.exp(sum(map(math.log, over)) / len(over)), at, len(over)
    finally:
        h.model_tflops, h.model_fixed_us = saved


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.tools.datafiles import load_json
    from regtile.tools.shape_sweep import fit_table, merge_runs
    data = h._table_data()
    committed, model0 = data["entries"], (data["model_tflops"], data.get("model_fixed_us", {}))
    raws = [load_json(os.path.join("docs/data", name)) for name in data["source"].split(", ")]
    h1, h2 = _sets(argv[0] if argv else DEFAULT)
    for fit_name, fit_rows, judge_name, judge_rows in (("held-out 1", h1, "held-out 2", h2),
                                                        ("held-out 2", h2, "held-out 1", h1)):
        table = fit_table(merge_runs(raws + [{"rows": fit_rows, "sm_count": 132}]), previous=committed, sticky=0.03)
        variants = {"committed": (committed, model0),
                    "refit": (table["entries"], (table["model_tflops"], table["model_fixed_us"])),
                    "keep-model": (table["entries"], model0)}
        print(f"fitted with {fit_name}, judged on {judge_name}:")
        for name, (entries, model) in variants.items():
            geo, at, count = _judge(h, judge_rows, entries, model)
            print(f"  {name:22s} picks {100 * (geo - 1):.1f}% over the fastest, {at} of {count} at >= cuBLAS")


main = program(run, "a candidates JSON with both held-out sets")


if __name__ == "__main__":
    import sys
    sys.exit(main())
