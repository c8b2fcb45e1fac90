"""The few-vector kernels' streamed float4 loads with an L2 prefetch size, against the plans as
committed and cuBLAS: regtile.sgemm's few-vector plan for each shape, then the same module with every
`__ldcs(float4)` of the big operand replaced by inline PTX (variants=NAME,...):
  cs256  ld.global.cs.L2::256B.v4.f32                  (evict-first, as __ldcs, and a 256-byte L2 fill)
  nc256  ld.global.nc.L1::no_allocate.L2::256B.v4.f32   (the read-only path, no L1 allocation)
  cs128  ld.global.cs.L2::128B.v4.f32
Everything else of the plan (splits, stage, reduce) is the committed plan's.  Checked against float64,
timed interleaved (lab.experiments.time_plans).

  python3 -m lab.experiments.l2_prefetch_ab [variants=cs256,nc256] [MxNxK ...]
"""
from lab.experiments import over_shapes, program, take_option, time_plans

SHAPES = ["2048x16x32768", "4096x16x4096", "8192x16x8192", "8192x8x8192", "65536x16x1024", "1024x4x500000",
          "7680x2x2560", "4096x12x8192", "8x4096x4096", "8x8192x8192", "12x2048x16384", "4x1024x65536",
          "2x4096x16384"]
LOADS = {"cs256": "ld.global.cs.L2::256B.v4.f32", "nc256": "ld.global.nc.L1::no_allocate.L2::256B.v4.f32",
         "cs128": "ld.global.cs.L2::128B.v4.f32"}
CALL = "__ldcs(reinterpret_cast<const float4*>("


def helper(ptx: str) -> str:
    return ("__device__ __forceinline__ float4 rt_ld4(const float4* p) {\n    float4 v;\n"
            f'    asm("{ptx} {{%0, %1, %2, %3}}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));\n'
            "    return v;\n}\n")


class Variant:
    """A committed few-vector route with its module recompiled from rewritten text (same launches)."""

    def __init__(self, route, name: str):
        import dataclasses
        from regtile.runtime import driver
        from regtile.runtime.compiler import compile_source
        from regtile.runtime.fewvec import FewVecPlan, FewVecRoute
        plan = route.plan
        src = plan.kernel.source
        assert CALL in src.text, "no streamed float4 load to rewrite"
        text = helper(LOADS[name]) + src.text.replace(CALL, "rt_ld4(reinterpret_cast<const float4*>(")
        self.kernel = driver.load(compile_source(dataclasses.replace(src, text=text), plan.kernel.artifact.arch))
        sv, sp, ld, ldc, small = route.key
        self.route = FewVecRoute(FewVecPlan(self.kernel, plan.config, plan.rows, plan.cols, plan.splits),
                                 sv, sp, ld, ldc, small == 1)

    def launch(self, *args):
        self.route.launch(*args)


def run(argv):
    names = take_option(argv, "variants") or "cs256,nc256"

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        if plan.gemv is None:
            return {"m": m, "n": n, "k": k, "skipped": plan.describe()}, "not a few-vector plan"
        plans = {"committed": plan, **{v: Variant(plan.gemv, v) for v in names.split(",")}}
        row, line = time_plans(torch, bench, plans, {"m": m, "n": n, "k": k, "plan": plan.describe()},
                               plan.describe()[:60])
        return row, line

    over_shapes(argv, SHAPES, "l2_prefetch_ab.json", one)


main = program(run, "variants=NAME,... then MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
