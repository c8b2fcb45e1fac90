"""Offline (no GPU): codegen/batch_choice.py's picks on batched sweeps with every member timed (session 45).

For each row of each run (lab/experiments/batched_sweep.py members=1; default: session 45's b, d and f runs) whose m
and n exceed BATCH_SKINNY (the skinny rows have one candidate), the member batch_member picks, its time over the
fastest member's in that row, and torch.bmm's over it; the geometric means and the rows where the pick is not the
fastest.  A pick the run did not time is named and left out.  (The rows time each member as the run's code built it:
before d_930d427 the batched forms had no edge clamp.)

  python3 -m lab.experiments.batch_choice_eval [RUN.json ...]
"""
import json
import math
import sys

from lab.experiments import program

RUNS = ["docs/data/session45/b_99c23e3/batched_sweep.json", "docs/data/session45/d_930d427/batched_sweep.json",
        "docs/data/session45/d_930d427/batched_sweep_heldout.json",
        "docs/data/session45/f_c854914/batched_sweep.json", "docs/data/session45/f_c854914/batched_sweep_heldout.json"]
# the same tile under another name in the runs' member lists
ALIAS = {"plain-32x64": "wide-32x64", "plain-32x32": "sq-32x32", "plain-64x64": "sq-64x64"}


def _geo(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def run(argv) -> None:
    from regtile.codegen.batch_choice import BATCH_SKINNY, batch_member
    for path in argv or RUNS:
        over, vs_bmm = [], []
        for r in json.load(open(path))["rows"]:
            m, n, k, b, lay = r["m"], r["n"], r["k"], r["batch"], r["layout"]
            if m <= BATCH_SKINNY or n <= BATCH_SKINNY:
                continue
            mu = r["members_us"]
            pick = batch_member(m, n, k, b, 132, lay[1] == "T", lay[0] == "T")
            t = mu.get(pick, mu.get(ALIAS.get(pick, "")))
            if t is None:
                print(f"  {lay} {b} x {m}x{n}x{k}: {pick} not timed")
                continue
            fastest = min(mu, key=mu.get)
            over.append(t / mu[fastest])
            vs_bmm.append(r["bmm_us"] / t)
            if t > mu[fastest]:
                print(f"  {lay} {b} x {m}x{n}x{k}: {pick} {t:.1f} us, {fastest} {mu[fastest]:.1f} "
                      f"({t / mu[fastest]:.3f})")
        print(f"{path}: {len(over)} rows, the pick {_geo(over):.4f} x the fastest member's time, "
              f"{_geo(vs_bmm):.3f}x torch.bmm, {sum(x < 1 for x in vs_bmm)} below it", flush=True)


main = program(run, "RUN.json ...")

if __name__ == "__main__":
    sys.exit(main())
