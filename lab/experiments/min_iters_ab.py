"""Stream-K's shortest range (codegen/streamk.py MIN_ITERS, 8 as committed) made longer on the skinny and
long-K shapes: regtile.sgemm's plan built with MIN_ITERS = 8 and with each of values=16,32,... (the
work list is made when a plan first launches, so each plan is built and launched once under its
value, then the value goes back), against cuBLAS; checked against float64 and timed interleaved
(lab.experiments.time_plans).  Fewer, longer ranges: fewer partial tiles and fix-up levels, fewer
pipeline fills, but fewer blocks an SM to keep loads in flight.

  python3 -m lab.experiments.min_iters_ab [values=16,32,64] [MxNxK ...]
"""
from lab.experiments import over_shapes, program, take_option, time_plans

SHAPES = ["16x4096x4096", "32x4096x4096", "48x2048x8192", "16x5120x5120", "64x4096x4096", "32x1024x131072",
          "16x16384x4096", "16x4096x16384", "64x8192x8192", "17x8191x4099", "5120x64x5120", "4096x64x65536",
          "64x4096x16384", "8192x128x8192", "512x512x512", "1024x1024x1024"]


def run(argv):
    values = [int(v) for v in (take_option(argv, "values") or "16,32,64").split(",")]

    def one(torch, bench, m, n, k):
        from regtile.codegen import streamk
        from regtile.runtime.plans import GemmPlan
        committed = streamk.MIN_ITERS
        plans = {}
        for v in [committed] + values:
            streamk.MIN_ITERS = v
            try:
                plan = GemmPlan(m, n, k, False, False, k, n, n)
                bench.library(plan)(0)  # the work list is made here, under v
            finally:
                streamk.MIN_ITERS = committed
            plans[f"mi{v}" if v != committed else "committed"] = plan
        return time_plans(torch, bench, plans, {"m": m, "n": n, "k": k, "plan": plans["committed"].describe()},
                          plans["committed"].describe()[:50])

    over_shapes(argv, SHAPES, "min_iters_ab.json", one)


main = program(run, "values=V,... then MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
