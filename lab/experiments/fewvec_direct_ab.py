"""Op N few-vector plans reading the vectors in place (FewVecNConfig.direct: no stage launch, a float4
of 4 vectors at one column) against the same kernel reading them staged (direct=False: the stage
launch, a float4 of 4 columns of one vector), and cuBLAS; both checked against float64 and timed
interleaved (lab.experiments.time_plans).

  python3 -m lab.experiments.fewvec_direct_ab [MxNxK ...]
"""
from lab.experiments import over_shapes, program, time_plans

SHAPES = ["2048x16x32768", "4096x16x4096", "8192x16x8192", "65536x16x1024", "8192x8x8192", "5120x8x5120",
          "4096x12x8192", "1024x4x500000", "768x8x768", "2048x8x2048", "1000x4x4096"]


class Staged:
    """regtile.sgemm's few-vector route with the rule's config at direct=False."""

    def __init__(self, m, n, k):
        from regtile.codegen.fewvec_config import choose_fewvec
        from regtile.runtime.fewvec import fewvec_route
        self.route = fewvec_route(m, n, k, False, k, False, n, n, config=choose_fewvec(m, k, "N", n, direct=False))
        self.kernel = self.route.plan.kernel

    def launch(self, *args):
        self.route.launch(*args)


def run(argv):
    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        if plan.gemv is None or not plan.gemv.plan.direct:
            return {"m": m, "n": n, "k": k, "skipped": plan.describe()}, "not a direct few-vector plan"
        return time_plans(torch, bench, {"direct": plan, "staged": Staged(m, n, k)},
                          {"m": m, "n": n, "k": k, "plan": plan.describe()}, plan.describe()[:60])

    over_shapes(argv, SHAPES, "fewvec_direct_ab.json", one)


main = program(run, "MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
