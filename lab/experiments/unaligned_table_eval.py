"""Would table entries of unaligned rows pick better for unaligned shapes?  (issue 20, session 19; CPU only.)

The decision table (codegen/heuristic.py) held 18 shapes whose rows are not 16-byte aligned (N or K not a
multiple of 4) against 1486 aligned ones, so an unaligned shape took its aligned neighbours' ranking, where the
members run the unaligned rows' copies (operand_forms.for_rows).  Session 19 timed every candidate member on a
grid of 241 unaligned shapes (lab/device_runs/session19_d.sh) and on the held-out sets' 26 unaligned shapes
(session19_e.sh), and asks: if an unaligned shape first consulted unaligned entries only (the grid's and the
suite's, within a distance D), else the table and the model as committed, how far would its pick be from the
fastest member?

  grid, leave one out   each grid shape picked from the other unaligned entries (a lattice: its neighbours sit
                        1.0-1.1 apart in log2 L1, so D = 1.0 finds two for none)
  held-out              the 26 held-out unaligned shapes, with every grid entry

    python3 -m lab.experiments.unaligned_table_eval [GRID_CANDIDATES HELDOUT_CANDIDATES]
"""
import math
import os

from . import program
from .fixup_ab import patched

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "data", "session19")
GRID = os.path.join(DATA, "d_64b4180", "shape-candidates-session19-fit-unaligned_64b4180.json")
HELDOUT = os.path.join(DATA, "e_d32cd2e", "candidates-heldout-unaligned.json")
DISTANCES = (1.0, 1.1, 1.25, 1.5, 2.0)


def _entries(rows):
    from regtile.codegen import heuristic_fit as hf
    out = []
    for r in rows:
        t = hf.timed_members(r)
        best = min(t.values())
        out.append({"m": r["m"], "n": r["n"], "k": r["k"], "rel": {nm: us / best for nm, us in t.items()},
                    "best": min(t, key=t.get), "log2": (math.log2(r["m"]), math.log2(r["n"]), math.log2(r["k"]))})
    return out


def _geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def evaluate(queries, unaligned_entries, leave_out):
    from regtile.codegen import heuristic as h
    from regtile.codegen import heuristic_fit as hf
    committed = h.load_table()
    suite_unaligned = [e for e in committed if e["n"] % 4 or e["k"] % 4]
    lines = []
    for d in (0.0,) + DISTANCES:
        over, changed, found = [], 0, 0
        for r in queries:
            m, n, k = r["m"], r["n"], r["k"]
            t = hf.timed_members(r)
            names = [x for x in h.candidate_names(m, n, k, 132) if x in t]
            now = h.table_choice(m, n, k, names, transfer_sms=132) or h.model_choice(names, m, n, k, 132)
            pick = None
            if d:
                near = [e for e in unaligned_entries + suite_unaligned if not (leave_out and
                                                                             (e["m"], e["n"], e["k"]) == (m, n, k))]
                with patched(h, "MAX_DISTANCE", d):
                    pick = h.table_choice(m, n, k, names, near, transfer_sms=132)
            found += pick is not None
            pick = pick or now
            changed += pick != now
            over.append(t[pick] / min(t.values()))
        label = f"D {d}" if d else "as committed"
        lines.append(f"  {label:13s} unaligned entries picked {found:3d} of {len(queries)}, {changed:3d} picks changed; "
                     f"over the fastest member {_geo(over):.4f} (geometric mean)")
    return lines


def run(argv):
    grid_path, heldout_path = (argv + [GRID, HELDOUT])[:2] if len(argv) >= 2 else (GRID, HELDOUT)
    from regtile.tools.datafiles import load_json
    grid = [r for r in load_json(grid_path)["rows"] if "cublas_us" in r]
    heldout = [r for r in load_json(heldout_path)["rows"] if "cublas_us" in r]
    entries = _entries(grid)
    print(f"grid, leave one out ({len(grid)} shapes):")
    print("\n".join(evaluate(grid, entries, True)))
    print(f"held-out unaligned shapes ({len(heldout)}):")
    print("\n".join(evaluate(heldout, entries, False)))


main = program(run, "[GRID_CANDIDATES HELDOUT_CANDIDATES]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
