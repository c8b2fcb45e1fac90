"""Offline (no GPU): would a layout class in the table pick better in NT and TN (session 30)?  The suite's NT and TN
rows with every unfused member timed (docs/data/session30/g_14ba623/layout_candidates.json) become entries of their
layout; each shape is then left out in turn and chosen from its layout's other entries and the (NN) table's entries
of its rows' class, those EXTRA further (table_choice's rule: NEIGHBOURS nearest within MAX_DISTANCE, scored by
heuristic.neighbours_choice, ratios carried by the model), against the choice regtile.sgemm makes (the NN table, whose own entry for the shape decides; the fused
member's unfused stand-in in a transposed layout).  Judged as the other evaluations: the pick's time over the shape's
fastest member (geometric mean) and the picks at >= cuBLAS.

  python3 -m lab.experiments.layout_table_eval [RUN.json]

Measured (session 30): NT 1.0% over the fastest with the NN choice, 2.2-2.7% with the layout's entries at every
EXTRA; TN 1.0% against 2.1-3.3%.  The shape's own NN measurement carries to its NT and TN better than the layout's
neighbours do (the suite's shapes lie far apart): a layout class wants grids as dense as NN's, not the suite alone.
"""
import json
import math

from lab.experiments import program

RUN = "docs/data/session30/g_14ba623/layout_candidates.json"
EXTRAS = (0.0, 0.25, 0.5, 1.0)


def _geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.codegen import heuristic_fit as hf
    from regtile.tools.shape_sweep import fit_table
    with open(argv[0] if argv else RUN) as f:
        rows = json.load(f)["rows"]
    table = h.load_table()
    for layout in ("NT", "TN"):
        ta, tb = layout[0] == "T", layout[1] == "T"
        run_rows = [dict(r, group="suite") for r in rows if r["layout"] == layout]
        entries = [dict(e, log2=tuple(math.log2(e[a]) for a in "mnk"),
                        aligned=h.rows_aligned(e["m"], e["n"], e["k"], ta, tb))
                   for e in fit_table({"rows": run_rows, "sm_count": 132})["entries"] if e.get("rel")]
        for extra in (None,) + EXTRAS:
            over, at = [], 0
            for r in run_rows:
                m, n, k = r["m"], r["n"], r["k"]
                timed = hf.timed_members(r)
                aligned = h.rows_aligned(m, n, k, ta, tb)
                names = h.candidate_names(m, n, k, 132, fused=False)
                if extra is None:  # regtile.sgemm's choice: the NN table among the layout's candidates
                    pick = h.choose_member(m, n, k, 132, h.fuses(ta, tb), aligned)
                else:
                    q = (math.log2(m), math.log2(n), math.log2(k))
                    near = []
                    for e, more in [(e, 0.0) for e in entries if (e["m"], e["n"], e["k"]) != (m, n, k)] + \
                                   [(e, extra) for e in table]:
                        if h._class_of(e) != aligned:
                            continue
                        d = sum(abs(a - b) for a, b in zip(q, e["log2"])) + more
                        if d <= h.MAX_DISTANCE:
                            near.append((d, e))
                    near.sort(key=lambda x: x[0])
                    near = near[:h.NEIGHBOURS]
                    pick = ((h.neighbours_choice(m, n, k, names, near, 132) if len(near) >= h.MIN_NEIGHBOURS else None)
                            or h.model_choice(names, m, n, k, 132))
                if pick not in timed:
                    continue
                over.append(timed[pick] / min(timed.values()))
                at += r["cublas_us"] >= timed[pick]
            label = "regtile.sgemm's choice (NN table)" if extra is None else f"layout entries, NN ones {extra} further"
            print(f"{layout} {label}: {100 * (_geo(over) - 1):.2f}% over the fastest, {at} of {len(over)} >= cuBLAS")


main = program(run, "[RUN.json]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
