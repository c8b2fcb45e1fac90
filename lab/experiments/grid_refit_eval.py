"""Offline (no GPU): the decision table refitted with more candidates runs (session 16), judged as model_fit_eval
judges the model's forms: on the held-out candidates runs (never fitted; every member of the family at 176430a or
later timed, the BK 32 members included), the picks' time over the fastest member's (geometric mean through the
whole choice: table, else model) against the fastest of the whole family, the picks' speed over cuBLAS's and the
picks at >= cuBLAS; and the suite, each shape left out of the table in turn.  A pick is made among the members its
row (or the left-out entry) timed, as tests/codegen/test_heuristic.py judges held-out picks; a line under each
variant counts the rows where the choice among every candidate took a member added since (fused-128x16).

  python3 -m lab.experiments.grid_refit_eval [min_neighbours=1] [floor=0] [transfer=0|fixup]

min_neighbours: heuristic.MIN_NEIGHBOURS for every variant (2 as committed; 1, the rule until session 16); floor:
heuristic.KTILE_FLOOR_US (0.3 us as committed; 0, the model until session 16's last commit); transfer=0: the
neighbours' ratios as measured, not carried to the shape by the model (table_choice's transfer_sms 0); transfer=fixup:
carried with stream-K's fix-up (heuristic.TRANSFER_FIXUP, as until session 17).

Variants, each fitted by tools/table_fit.fit_table (the entries on every row, the model on the suite's rows
alone; sticky 0.03 to the committed table, as the committed table was refitted) from the runs named, a later
run's shapes replacing an earlier one's as `shape_sweep --fit` merges them:
  session 15            the suite's runs until session 15 (the table's sources at 94dc5bc), session 15's family
  + grids               + the suite's N % 4 != 0 shapes again with C staged (4c008c1), the small-problem grid
                        (benchmarks/shapes-fit-small.json, 4c008c1) and the long thin one (shapes-fit-tall.json,
                        f3e7b94); session 15's family
  + BK 32 members       the suite and both grids timed again with the three BK 32 members (176430a): the
                        committed table
  same, without them    that table with the BK 32 members left out of the choice
  + K midpoints         + the small grid at K = 3 x 2^j (ac2bc3c) (and without BK 32)
  + tiny grid           + the tiny-output long-K grid (shapes-fit-tiny.json: b311e1b, 20236da)
  + flat grid           + the flat grid (shapes-fit-flat.json: M and N 1024-16384, K 16-256; 6892722)
  + narrow grid         + the narrow grid (shapes-fit-narrow.json: M 2048-65536, N 24-256, K 16-384; 74d710c,
                        session 17)
  + its M midpoints     + the narrow grid's M = 3 x 2^j (04981df)
Held-out 5 (ac2bc3c) was written and timed before the midpoints' fit and judged only here.
"""
import re

from lab.experiments import program, take_option, timed_choice
from lab.experiments.model_fit_eval import _geo, leave_one_out

D = "docs/data/"
GRIDS = [D + "shape-candidates-session16-suite-n4_4c008c1.json", D + "shape-candidates-session16-fit-small_4c008c1.json",
         D + "shape-candidates-session16-fit-tall_f3e7b94.json"]
K32_RUNS = [D + f"shape-candidates-session16-{s}_176430a.json" for s in ("suite", "fit-small", "fit-tall")]
K32 = ("sq-64x64-4x8-k32", "wide-32x64-k32", "tall-64x32-k32")
MID = [D + "shape-candidates-session16-fit-small-mid_ac2bc3c.json"]
TINY = [D + "shape-candidates-session16-fit-tiny_b311e1b.json", D + "shape-candidates-session16-fit-tiny2_20236da.json"]
FLAT = [D + "shape-candidates-session16-fit-flat_6892722.json"]
NARROW = [D + "shape-candidates-session17-fit-narrow_74d710c.json"]
NARROW_MID = [D + "shape-candidates-session17-fit-narrow-mid_04981df.json"]
def variants():
    """{label: (the runs the table is fitted on, the members left out of the choice)}: the module docstring's."""
    s15 = session15_sources()
    return {"session 15": (s15, K32), "+ grids": (s15 + GRIDS, K32), "+ BK 32 members": (s15 + K32_RUNS, ()),
            "same, without them": (s15 + K32_RUNS, K32), "+ K midpoints": (s15 + K32_RUNS + MID, ()),
            "same, without BK 32": (s15 + K32_RUNS + MID, K32), "+ tiny grid": (s15 + K32_RUNS + MID + TINY, ()),
            "+ flat grid": (s15 + K32_RUNS + MID + TINY + FLAT, ()),
            "+ narrow grid": (s15 + K32_RUNS + MID + TINY + FLAT + NARROW, ()),
            "+ its M midpoints": (s15 + K32_RUNS + MID + TINY + FLAT + NARROW + NARROW_MID, ())}


HELD_OUT = {"held-out 1+2": "docs/data/session16/f_176430a/shape-candidates-session16-heldout12_176430a.json",
            "held-out 3": "docs/data/session16/f_176430a/shape-candidates-session16-heldout3_176430a.json",
            "held-out 4": "docs/data/session16/f_176430a/shape-candidates-session16-heldout4_176430a.json",
            "held-out 5": "docs/data/session16/h_ac2bc3c/shape-candidates-session16-heldout5_ac2bc3c.json"}


def _load(path):
    from regtile.tools.datafiles import load_json
    return load_json(path)  # docs/data's runs over 300 KB are stored as NAME.gz: load_json reads either


def session15_sources():
    """The committed table's candidates runs from before session 16 (its `source` list, the runs of session 16 and
    later left out: 16 and 17's are the variants' own, and the table has taken later sessions' since, 25-34 by now)."""
    from regtile.codegen import heuristic as h
    return [D + s for s in h._table_data()["source"].split(", ") if _session(s) < 16]


def _session(run: str) -> int:
    """The session a candidates run's file name says (shape-candidates-sessionN-...), 0 for the earlier rounds'."""
    found = re.search(r"-session(\d+)", run)
    return int(found.group(1)) if found else 0


def table_for(paths):
    """The table fitted on `paths` (sticky 0.03 to the committed table)."""
    from regtile.codegen import heuristic as h
    from regtile.tools.table_fit import fit_table, merge_runs
    return fit_table(merge_runs([_load(p) for p in paths]), previous=h._table_data()["entries"], sticky=0.03)


def judged(h, rows, sm_count=132):
    """(the picks' time over the fastest member's of the whole family, picks at >= cuBLAS, shapes, the picks'
    geometric-mean speed over cuBLAS, rows whose pick among every candidate was a member the run did not time) on
    candidates rows: every variant against the same fastest member, each pick among the members its row timed
    (timed_choice)."""
    from lab.experiments.table_transfer_eval import family_rows
    over, at, x, untimed = [], 0, [], 0
    for r, timed in family_rows(rows):
        # members added since the run (fused-128x16) have no time here: not judged
        pick, _, outside = timed_choice(h, r, timed, sm_count)
        untimed += outside
        over.append(timed[pick] / min(timed.values()))
        x.append(r["cublas_us"] / timed[pick])
        at += r["cublas_us"] >= timed[pick]
    return _geo(over), at, len(over), _geo(x), untimed


def run(argv):
    from regtile.codegen import heuristic as h
    h.MIN_NEIGHBOURS = int(take_option(argv, "min_neighbours") or h.MIN_NEIGHBOURS)
    h.KTILE_FLOOR_US = float(take_option(argv, "floor") or h.KTILE_FLOOR_US)
    transfer = take_option(argv, "transfer")
    if transfer == "0":  # the neighbours' ratios as measured, not carried by the model
        plain = h.table_choice
        h.table_choice = lambda m, n, k, names, table=None, transfer_sms=0: plain(m, n, k, names, table)
    elif transfer == "fixup":  # carried with stream-K's fix-up, as until session 17
        h.TRANSFER_FIXUP = True
    sets = {label: _load(path)["rows"] for label, path in HELD_OUT.items()}
    saved_data, saved_names = h._table_data, h.candidate_names
    for label, (paths, dropped) in variants().items():
        data = table_for(paths)
        h._table_data = lambda path=None, data=data: data
        h.candidate_names = lambda *a, **k: [n for n in saved_names(*a, **k) if n not in dropped]
        h.load_table.cache_clear()  # cached on the table's path
        try:
            parts, untimed = [], []
            for name, rows in sets.items():
                geo, at, n, x, outside = judged(h, rows)
                parts.append(f"{name} {100 * (geo - 1):.1f}%, x cuBLAS {x:.3f} ({at} of {n} >= 1.0)")
                untimed.append(f"{name} {outside}")
            loo, by_model, loo_untimed = leave_one_out(None)
            print(f"{label:20s} {len(data['entries'])} entries: " + ", ".join(parts)
                  + f"; suite left out {100 * (loo - 1):.1f}% ({by_model} of 123 by the model)", flush=True)
            print(f"{'':20s} rows whose pick was a member the run did not time (judged among those it timed): "
                  + ", ".join(untimed) + f", suite left out {loo_untimed}", flush=True)
        finally:
            h._table_data, h.candidate_names = saved_data, saved_names
            h.load_table.cache_clear()


main = program(run, "min_neighbours=1 floor=0 transfer=0|fixup (default: the committed rule, floor and transfer)")

if __name__ == "__main__":
    import sys
    sys.exit(main())
