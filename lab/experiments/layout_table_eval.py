"""Offline (no GPU): would a layout class in the table pick better in NT and TN (session 30)?  The suite's NT and TN
rows with every unfused member timed (docs/data/session30/g_14ba623/layout_candidates.json) become entries of their
layout; each shape is then left out in turn and chosen from its layout's other entries and the (NN) table's entries
of its rows' class, those EXTRA further (table_choice's rule: NEIGHBOURS nearest within MAX_DISTANCE, scored by
heuristic.neighbours_choice, ratios carried by the model), against the choice regtile.sgemm makes (the NN table, whose own entry for the shape decides; the fused
member's unfused stand-in in a transposed layout).  Judged as the other evaluations: the pick's time over the shape's
fastest member (geometric mean) and the picks at >= cuBLAS.

  python3 -m lab.experiments.layout_table_eval [RUN.json[.gz]]   (its NT and TN rows)

Measured (session 30): NT 1.0% over the fastest with the NN choice, 2.2-2.7% with the layout's entries at every
EXTRA; TN 1.0% against 2.1-3.3%.  The shape's own NN measurement carries to its NT and TN better than the layout's
neighbours do (the suite's shapes lie far apart): a layout class wants grids as dense as NN's, not the suite alone.

Then (session 31) a per-member layout factor: each member's log time over the shape's fastest in the layout, less its
log ratio in the shape's own NN entry, median over the other shapes (left out in turn; members timed on at least 5);
the choice is the shape's NN entry's ratios times the factors (SHRINK of them).  Measured with session 31's
stand-ins of fused picks (layout_choice.fused_stand_in; the NN choice was 1.0% in both layouts before them): NT 0.58%
with the NN choice, 0.89% / 0.94% at SHRINK 0.5 / 1; TN 0.47% against 0.84% / 1.09%.  A member's layout cost is not
one factor: the shape's own NN ratios carry better.

Session 41, on a denser TN run (docs/data/session41/b_8a7f384: every member, fused ones too, on session 38's 243
probe shapes and the suite's 48 small ones, timed with the launches as they are now; log beside it): a shape the NN
table has not timed is the case that matters (the held-out shapes), so the fair baseline leaves the shape's NN
entries out as well.  regtile.sgemm's choice 2.10% over the fastest (the shapes' own NN entries decide); with those
left out 4.54%; the TN entries and the NN ones together, the shape left out of both, 4.55%; per-member factors
2.66% / 5.45% (against 2.10%).  No layout class: the NN table carries to TN as well as TN's own neighbours do.
"""
import math
import statistics

from lab.experiments import program

RUN = "docs/data/session30/g_14ba623/layout_candidates.json"
EXTRAS = (0.0, 0.25, 0.5, 1.0)
SHRINKS = (0.5, 1.0)


def _geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.codegen import heuristic_fit as hf
    from regtile.tools.datafiles import load_json
    from regtile.tools.table_fit import fit_table
    rows = load_json(argv[0] if argv else RUN)["rows"]
    table = h.load_table()
    fused = any(h.get_member(nm).backend == h.FUSED for r in rows for nm in r["kernels"])  # timed with fused=1
    for layout in sorted({r["layout"] for r in rows} & {"NT", "TN"}, reverse=True):
        ta, tb = layout[0] == "T", layout[1] == "T"
        run_rows = [dict(r, group="suite") for r in rows if r["layout"] == layout]
        entries = [dict(e, log2=tuple(math.log2(e[a]) for a in "mnk"),
                        aligned=h.rows_aligned(e["m"], e["n"], e["k"], ta, tb))
                   for e in fit_table({"rows": run_rows, "sm_count": 132})["entries"] if e.get("rel")]
        for extra, nn_own in [(None, True), ("NN", False)] + [(x, True) for x in EXTRAS] + [(0.0, False)]:
            over, at = [], 0
            for r in run_rows:
                m, n, k = r["m"], r["n"], r["k"]
                timed = hf.timed_members(r)
                aligned = h.rows_aligned(m, n, k, ta, tb)
                names = h.candidate_names(m, n, k, 132, fused=fused)
                if extra is None:  # regtile.sgemm's choice: the NN table among the layout's candidates
                    pick = h.choose_member(m, n, k, 132, aligned=aligned, trans_a=ta, trans_b=tb)
                elif extra == "NN":  # the same, the NN table's entries of this shape left out
                    pick = _without_shape(h, table, (m, n, k), lambda: h.choose_member(
                        m, n, k, 132, aligned=aligned, trans_a=ta, trans_b=tb))
                else:
                    q = (math.log2(m), math.log2(n), math.log2(k))
                    near = []
                    for e, more in [(e, 0.0) for e in entries if (e["m"], e["n"], e["k"]) != (m, n, k)] + \
                                   [(e, extra) for e in table if nn_own or (e["m"], e["n"], e["k"]) != (m, n, k)]:
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
            label = ("regtile.sgemm's choice (NN table)" if extra is None else
                     "regtile.sgemm's choice, the shape's NN entries left out" if extra == "NN" else
                     f"layout entries (the shape's left out), NN ones {extra} further"
                     + ("" if nn_own else ", the shape's NN entries left out too"))
            print(f"{layout} {label}: {100 * (_geo(over) - 1):.2f}% over the fastest, {at} of {len(over)} >= cuBLAS")
        _layout_factors(h, hf, rows, table, layout)


def _without_shape(h, table, shape, choose):
    """choose() with the table's entries of `shape` left out (the committed lookup on the rest): how the NN table
    carries to a shape it has not timed, the fair baseline for the layout entries, which leave the shape out too."""
    saved = h.load_table
    h.load_table = lambda *_: tuple(e for e in table if (e["m"], e["n"], e["k"]) != shape)
    try:
        return choose()
    finally:
        h.load_table = saved


def _layout_factors(h, hf, rows, table, layout):
    """The per-member layout factor (the module's docstring), over the layout's shapes with an NN entry of their
    class."""
    ta, tb = layout[0] == "T", layout[1] == "T"
    own = {}
    for e in table:
        if e.get("rel"):
            own.setdefault((e["m"], e["n"], e["k"], h._class_of(e)), e["rel"])
    data = []
    for r in rows:
        s = (r["m"], r["n"], r["k"])
        rel = own.get(s + (h.rows_aligned(*s, ta, tb),))
        if r["layout"] == layout and rel:
            data.append((s, hf.timed_members(r), rel, r["cublas_us"]))

    def factors(left_out):
        logs = {}
        for s, timed, rel, _ in data:
            if s != left_out:
                fastest = min(timed.values())
                for nm, t in timed.items():
                    if nm in rel:
                        logs.setdefault(nm, []).append(math.log(t / fastest) - math.log(rel[nm]))
        return {nm: statistics.median(v) for nm, v in logs.items() if len(v) >= 5}

    for shrink in (0.0,) + SHRINKS:
        over, at = [], 0
        for s, timed, rel, cublas_us in data:
            base = h.choose_member(*s, 132, aligned=h.rows_aligned(*s, ta, tb), trans_a=ta, trans_b=tb)
            f = factors(s)
            names = [nm for nm in h.candidate_names(*s, 132, fused=False) if nm in rel and nm in timed]
            pick = min(names, key=lambda nm: math.log(rel[nm]) + shrink * f.get(nm, 0.0)) if shrink else base
            if pick in timed and base in timed:
                over.append(timed[pick] / min(timed.values()))
                at += cublas_us >= timed[pick]
        label = "regtile.sgemm's choice" if not shrink else f"NN ratios x layout factors^{shrink}"
        print(f"{layout} {label}: {100 * (_geo(over) - 1):.2f}% over the fastest on {len(over)} shapes with an NN "
              f"entry, {at} >= cuBLAS")


main = program(run, "[RUN.json]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
