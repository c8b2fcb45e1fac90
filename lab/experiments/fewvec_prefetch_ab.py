"""The few-vector main kernel asking L2 for its first loop steps before it waits for the stage
(FewVecTConfig / FewVecNConfig prefetch_steps, values=2,4,8) against regtile.sgemm's plan as committed
(prefetch_steps 0 when it ran in session 13: it waited first; 2 since) and cuBLAS; every plan checked against float64, timed interleaved
(lab.experiments.time_plans).

  python3 -m lab.experiments.fewvec_prefetch_ab [values=2,4,8] [MxNxK ...]
"""
from lab.experiments import over_shapes, program, take_option, time_plans
from lab.experiments.variants_ab import FewVecVariant

SHAPES = ["2048x16x32768", "4096x16x4096", "8192x16x8192", "65536x16x1024", "8192x8x8192", "4096x12x8192",
          "1024x4x500000", "7680x2x2560", "768x8x768", "2048x8x2048", "8x4096x4096", "8x8192x8192",
          "4x1024x65536", "2x4096x16384"]


def run(argv):
    values = [int(v) for v in (take_option(argv, "values") or "2,4,8").split(",")]

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        if plan.gemv is None or not hasattr(plan.gemv.config, "prefetch_steps"):
            return {"m": m, "n": n, "k": k, "skipped": plan.describe()}, "not a few-vector plan"
        plans = {"committed": plan,
                 **{f"pf{v}": FewVecVariant(plan.gemv, m, n, k, {"prefetch_steps": v}) for v in values}}
        return time_plans(torch, bench, plans, {"m": m, "n": n, "k": k, "plan": plan.describe()},
                          plan.describe()[:60])

    over_shapes(argv, SHAPES, "fewvec_prefetch_ab.json", one)


main = program(run, "values=V,... then MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
