"""The cp.async ring (config stages 3 / 4, codegen/ptx_ring.py) on the PTX members regtile.sgemm picks for the
skinny and long-K shapes, against the plans as committed (register prefetch, stages 2) and cuBLAS.  The ring
keeps the k-tiles in flight in shared memory instead of registers (skinny-m16-k32: 128 -> 96 registers); the
skinny members wait on global loads (Nsight Compute, session 13: 16x4096x4096 long-scoreboard 3.7 a issued
instruction, DRAM 61%).  The ring has no SASS-pass forms, so a variant of a member with the pass runs without it.
Checked against float64, timed interleaved (lab.experiments.time_plans).

  python3 -m lab.experiments.ring_members_ab [stages=3,4] [MxNxK ...]
"""
from lab.experiments import over_shapes, program, take_option, time_plans

SHAPES = ["16x4096x4096", "32x4096x4096", "16x5120x5120", "48x2048x8192", "64x4096x4096", "16x16384x4096",
          "32x1024x131072", "8192x128x8192"]


def run(argv):
    stages = [int(v) for v in (take_option(argv, "stages") or "3,4").split(",")]

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        lib = GemmPlan(m, n, k, False, False, k, n, n)
        row = {"m": m, "n": n, "k": k, "plan": lib.describe()}
        if lib.gemv is not None or lib.backend != "ptx":
            return row, f"not a PTX member ({lib.describe()[:60]})"
        plans = {"committed": lib}
        for s in stages:
            cfg = lib.config.replace(stages=s, sass_pass=False, hoist_head=False)
            plans[f"ring{s}"] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend="ptx")
        return time_plans(torch, bench, plans, row, lib.describe()[:50])

    over_shapes(argv, SHAPES, "ring_members_ab.json", one)


main = program(run, "stages=S,... then MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
