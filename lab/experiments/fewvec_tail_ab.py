"""What the few-vector plan's first and last launches cost end to end: regtile.sgemm's few-vector plan
(stage, main kernel, split reduce, each programmatic) against the same packed launches without the
reduce ("no reduce") and without the stage ("no stage"), timed interleaved with cuBLAS.  The variants
compute wrong results on purpose (timing only: no check); the plan as committed is checked against
float64 first.

  python3 -m lab.experiments.fewvec_tail_ab [MxNxK ...]
"""
from lab.experiments import over_shapes, program

SHAPES = ["8x4096x4096", "8x8192x8192", "12x2048x16384", "4x1024x65536", "2x4096x16384", "2048x16x32768",
          "4096x16x4096", "8192x16x8192", "8192x8x8192", "4096x12x8192", "1024x4x500000", "7680x2x2560"]


def run(argv):
    def one(torch, bench, m, n, k):
        from lab.experiments import check_and_time_interleaved, versus
        from regtile.runtime.plans import GemmPlan
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        route = plan.gemv
        if route is None:
            return {"m": m, "n": n, "k": k, "skipped": plan.describe()}, "not a few-vector plan"
        fns = {"cublas": bench.cublas(), "committed": bench.library(plan)}
        fns["committed"](0)
        packed = route.plan._packed[(0,) + route.key]  # stage, main[, reduce] on stream 0

        def some(keep):
            a, b, c = bench.a, bench.b, bench.c

            def fn(i):
                values = (a[i].data_ptr(), b[i].data_ptr(), c[i].data_ptr(), 1.0, 0.0)
                for j in keep:
                    packed[j](values, 0)
            return fn
        if len(packed) > 2:
            fns["no reduce"] = some((0, 1))
        fns["no stage"] = some(tuple(range(1, len(packed))))
        check, us = check_and_time_interleaved(torch, bench, fns, ("committed",))
        names = [nm for nm in fns if nm != "cublas"]
        return ({"m": m, "n": n, "k": k, "plan": plan.describe(), "check": check, "us": us},
                versus(us, check, names) + f"  [{plan.describe()[:70]}]")

    over_shapes(argv, SHAPES, "fewvec_tail_ab.json", one)


main = program(run, "MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
