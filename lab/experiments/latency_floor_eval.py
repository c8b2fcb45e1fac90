"""Offline (no GPU): the floor on the heuristic's model for latency-bound shapes (heuristic.KTILE_FLOOR_US, 0.3 us
as landed in session 16), judged on what it picks for other values.

A block's k-tiles run in a chain, each waiting out its loads' round trip when its SM has little else to run (held-out
5's 50x50x50000: splitk-32x32-f4 modelled 21.1 us, ran 74.3 with 98 k-tiles a block).  The floor: model_time is at
least (the longest chain of k-tiles an SM runs: heuristic.ktile_chain) x LAT + one launch.  For each LAT: the mean |log(model / measured)| over every timed member of the committed table's rows (its fit), and
the picks on the held-out candidates and the suite left out (lab/experiments/grid_refit_eval.py's judges: a pick
among the members its row timed, a line under each LAT counting the rows whose choice among every candidate took a
member added since the run).

  python3 -m lab.experiments.latency_floor_eval [lat=0,0.1,0.2]
"""
import math

from lab.experiments import program, take_option
from lab.experiments.grid_refit_eval import HELD_OUT, _load, judged
from lab.experiments.model_fit_eval import leave_one_out


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.codegen import heuristic_fit as hf
    from regtile.tools.table_fit import merge_runs, model_runs
    lats = [float(x) for x in (take_option(argv, "lat") or "0,0.1,0.15,0.2,0.3,0.4,0.5").split(",")]
    rows = merge_runs([_load("docs/data/" + s) for s in model_runs(h._table_data())])["rows"]  # the model's runs
    sets = {label: _load(path)["rows"] for label, path in HELD_OUT.items()}
    saved = h.KTILE_FLOOR_US
    for lat in lats:
        h.KTILE_FLOOR_US = lat  # model_time's floor: heuristic.ktile_chain x this + a launch
        try:
            errs = [abs(math.log(h.model_time(name, r["m"], r["n"], r["k"], 132) / us))
                    for r in rows for name, us in hf.timed_members(r).items()]
            parts, untimed = [], []
            for label, srows in sets.items():
                geo, at, n, x, outside = judged(h, srows)  # each pick among the members its row timed
                parts.append(f"{label} {100 * (geo - 1):.1f}%, {x:.3f}x ({at} of {n})")
                untimed.append(f"{label} {outside}")
            loo, _, loo_untimed = leave_one_out(None)
        finally:
            h.KTILE_FLOOR_US = saved
        print(f"LAT {lat:.2f} us: model error {sum(errs) / len(errs):.4f}; " + ", ".join(parts)
              + f"; suite left out {100 * (loo - 1):.1f}%", flush=True)
        print("  rows whose pick was a member the run did not time (judged among those it timed): "
              + ", ".join(untimed) + f", suite left out {loo_untimed}", flush=True)


main = program(run, "lat=0,0.1,... (us a k-tile)")

if __name__ == "__main__":
    import sys
    sys.exit(main())
