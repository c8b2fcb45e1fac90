"""Fitting the shape heuristic's decision table (codegen/heuristic_table.json) from candidates runs, on the CPU:
`python3 -m regtile.tools.shape_sweep --fit RAW.json ...` (tools/shape_sweep.py's CLI; the GPU runs that time the
candidates are there).  A later run's shapes replace an earlier one's (merge_runs); every row is an entry, the model is
fitted on the suite's rows (not the fitting grids': fitting_row) of the runs the table's model_source names, where it
names them (session 40), else of the same runs."""
from __future__ import annotations

import json
import os
from typing import Callable, List, Optional, Sequence

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "data")


def merge_runs(raws: Sequence[dict]) -> dict:
    """Candidates runs as one: a shape timed in a later run replaces its earlier rows (its
    candidates are compared within one run only)."""
    rows = {}
    for raw in raws:
        for r in raw["rows"]:
            if "cublas_us" in r:
                rows[(r["m"], r["n"], r["k"])] = r
    # the devices of the rows kept, in order: the table's H100 runs and session 29's H200 ragged grids
    kept = {id(r) for r in rows.values()}
    devices = list(dict.fromkeys(raw.get("device") for raw in raws if any(id(r) in kept for r in raw["rows"])))
    return {"device": " + ".join(d for d in devices if d) or None, "sm_count": raws[-1].get("sm_count"),
            "rows": list(rows.values())}


FIT_GROUP = "fit"  # the rows of the fitting grids (benchmarks/shapes-fit-*.json): table entries, not the model's fit


def fitting_row(row: dict) -> bool:
    """Is `row` a fitting grid's (group "fit", or "fit-NAME": "fit-ragged", the ragged grids' of session 29)?"""
    return str(row.get("group", "")).split("-")[0] == FIT_GROUP


def model_runs(table: dict) -> List[str]:
    """The names (under docs/data) of the runs whose suite rows a table's model was fitted on: its model_source where
    it names them (session 40: the entries refitted, the model kept), else its source."""
    return [name.strip() for name in (table.get("model_source") or table["source"]).split(",") if name.strip()]


def fit_table(raw: dict, source: str = "", previous: Sequence[dict] = (), sticky: float = 0.0,
              model_raw: Optional[dict] = None, model_source: str = "") -> dict:
    """heuristic_table.json's content from a candidates run: per shape, each correct member's
    time over the fastest one's (members since removed from the family left out).  With
    `sticky` > 0 a shape of `previous` (the table's entries before) keeps its member where that
    member is within `sticky` of the fastest in this run: near-ties between two runs are noise
    (session 8: 42 of 123 entries changed in a refit, and the sweep of the new table ran 0.4%
    slower over those shapes), so only a clear gain moves an entry.  Not where the kept member is
    slower than cuBLAS in this run: there the fastest is taken (session 12: 8191x8193x1025 kept
    wide-128x256-noedge at 1.0235 x sq-128x128-edges' time, both below cuBLAS).  `model_raw` (runs named
    `model_source`): the runs whose suite rows fit the model, where not `raw`'s (session 40: the suite timed again
    moved the model's throughputs by up to 35% and 49 of 165 held-out picks, 1.62% -> 2.46% over the fastest member by
    session 30's held-out candidates, lab/experiments/table_pick_eval.py; the entries were taken, the model kept)."""
    from ..codegen.heuristic_fit import fit_model, timed_members
    before = {(e["m"], e["n"], e["k"]): e["best"] for e in previous}
    entries = []
    for r in raw["rows"]:
        if "cublas_us" not in r:
            continue
        timed = timed_members(r)
        if not timed:
            continue
        fastest = best = min(timed, key=timed.get)
        kept = before.get((r["m"], r["n"], r["k"]))
        if kept in timed and timed[kept] <= (1.0 + sticky) * timed[fastest] and timed[kept] <= r["cublas_us"]:
            best = kept
        entries.append({"m": r["m"], "n": r["n"], "k": r["k"], "best": best,
                        "x_cublas": round(r["cublas_us"] / timed[best], 4),
                        "rel": {nm: round(t / timed[fastest], 4) for nm, t in sorted(timed.items(), key=lambda x: x[1])}})
    # The model is fitted on the suite's rows only: its form prices full SMs, and fitted with the small-problem
    # grid's rows too (session 16) it picked tall-128x64-k16 for held-out 12544x64x147, 1.89x the fastest member
    # (lab/experiments/grid_refit_eval.py).  The grids' shapes are table entries alone.
    model_raw = raw if model_raw is None else model_raw
    tflops, fixed = fit_model([r for r in model_raw["rows"] if not fitting_row(r)], model_raw.get("sm_count") or 132)
    return {"about": "codegen/heuristic.py's decision table: per shape of the suite (benchmarks/shapes.json) and of "
                     "the fitting grids (benchmarks/shapes-fit-*.json), each "
                     "candidate member's time over the fastest one's, measured by "
                     "`python3 -m regtile.tools.shape_sweep --candidates` and fitted by `--fit`; model_tflops: "
                     "the model's per-member throughput fitted on the suite's rows of the same runs (of the runs "
                     "model_source names, where it names them), model_fixed_us: "
                     "the fixed cost a launch of the members fitted with one (heuristic_fit.fit_model)",
            "device": raw.get("device"), "sm_count": raw.get("sm_count"), "source": source,
            **({"sticky": sticky} if sticky else {}), **({"model_source": model_source} if model_source else {}),
            "model_tflops": tflops, "model_fixed_us": fixed, "entries": entries}


# ---- mode 2: what regtile.sgemm launches, per shape ------------------------------------------


def _names(paths: Sequence[str]) -> str:
    """The runs by file name as the table lists them (docs/data's readers take foo.json for foo.json.gz too)."""
    return ", ".join(os.path.basename(path).removesuffix(".gz") for path in paths)


def write_table(path: str, table: dict) -> None:
    """The table as the repository keeps it: its fields indented, an entry a line."""
    with open(path, "w") as f:
        f.write(json.dumps({k: v for k, v in table.items() if k != "entries"}, indent=1)[:-2])
        f.write(',\n "entries": [\n' + ",\n".join(json.dumps(e) for e in table["entries"]) + "\n ]\n}\n")


def refit(fit: Sequence[str], table_path: Optional[str], sticky: float, model_from: Optional[Sequence[str]],
          refit_model: bool, error: Callable[[str], None]) -> int:
    """`--fit`: the table at `table_path` (default: the committed one) rewritten from the runs `fit` (paths; a
    docs/data run may be stored as RAW.json.gz), sticky to its entries with `sticky`; its model from `model_from`, else
    from the runs its model_source names (read from docs/data), else - or with `refit_model` - from `fit`.  `error`:
    the CLI's (argparse) for a bad combination."""
    from ..codegen.heuristic import TABLE_PATH
    from .datafiles import load_json
    path = table_path or TABLE_PATH
    if model_from and refit_model:
        error("--model-from and --refit-model: give one (the model from those runs, or from --fit's)")
    if sticky and not os.path.exists(path):
        error(f"--sticky {sticky}: keeps the members of the table it rewrites, and {path} does not exist")
    before = load_json(path) if os.path.exists(path) else {}
    if model_from is None and before.get("model_source") and not refit_model:
        model_from = [os.path.join(DATA, name) for name in model_runs(before)]
        print(f"the model from the table's model_source ({len(model_from)} runs; --refit-model refits it)")
    model_raw = merge_runs([load_json(p) for p in model_from]) if model_from else None
    table = fit_table(merge_runs([load_json(p) for p in fit]), source=_names(fit),
                      previous=before.get("entries", ()) if sticky else (), sticky=sticky,
                      model_raw=model_raw, model_source=_names(model_from) if model_from else "")
    write_table(path, table)
    print(f"{len(table['entries'])} entries -> {path}")
    return 0
