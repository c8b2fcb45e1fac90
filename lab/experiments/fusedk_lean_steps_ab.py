"""Where the fused kernel's lean copies go in the k-tile (codegen/emit_fusedk.spread's `steps`: dealt over the first S
kk steps; 0 = all, as emitted), against the kernel without them (issue 20, session 24).

Nsight Compute (docs/data/session24/c_fa841b9) put more long-scoreboard, short-scoreboard and MIO-throttle stalls
on the lean kernel than on load_tile's, and on 65536x32x2048 (three blocks an SM) it ran 5% slower where the n = 32
shapes of one or two blocks an SM ran 12-15% faster.  Dealt over all eight steps of BK 32 the last copies issue
near the k-tile's end; over the first 4, 2 or 1 they issue sooner and closer together.

For each shape: the fused member (fused-128x32-f1 unless MxNxK:MEMBER) with S = 0, 4, 2, 1 and without the lean
copies ("edge"), against cuBLAS, interleaved kernel against kernel (each checked against float64 first).  Writes
fusedk_lean_steps.json under $OUT.

    python3 -m lab.experiments.fusedk_lean_steps_ab [MxNxK[:MEMBER] ...]
"""
from . import program

DEFAULT = ["32768x32x4096", "16384x32x16384", "4096x32x11008", "65536x32x2048", "131072x32x1024"]


def run(argv):
    from regtile.codegen import emit_fusedk
    from regtile.codegen.heuristic import member_config
    from regtile.runtime.plans import GemmPlan
    from . import over_shapes, time_plans
    from .fixup_ab import patched
    members = dict(a.split(":", 1) for a in argv if ":" in a)

    def one(torch, bench, m, n, k):
        member = members.get(f"{m}x{n}x{k}", "fused-128x32-f1")
        cfg, backend = member_config(member, m, n, k, 132)
        plans = {}
        dealt = emit_fusedk.spread
        for steps in (0, 4, 2, 1):
            with patched(emit_fusedk, "spread", lambda c, t, s=steps: dealt(c, t, s)):
                plans[f"s{steps}"] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
        plans["edge"] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg.replace(lean_copies=False), backend=backend)
        row = {"m": m, "n": n, "k": k, "member": member, "split": cfg.split_k}
        return time_plans(torch, bench, plans, row, f"{member} split {cfg.split_k}")

    over_shapes([a.split(":", 1)[0] for a in argv], DEFAULT, "fusedk_lean_steps.json", one)


main = program(run, "[MxNxK[:MEMBER] ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
