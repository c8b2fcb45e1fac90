"""Nsight Compute on the cp.async ring against the two stages (issue 20, session 36): why the ring runs 12-15%
behind the same tile's two-stage kernel without the SASS pass on the big members (lab/experiments/unaligned_ring_ab.py,
docs/data/session36).

Target mode (on the GPU, under `ncu --profile-from-start off`): for each [LAYOUT:]MxNxK, the plan regtile.sgemm
builds ("lib"), its config without the SASS pass ("nopass"), that config as a three-stage ring ("ring3", the
unaligned rows' float copies where the plan has either float form) and, where the plan runs the vector floats, its
config with the float copies instead ("rows", lab/experiments/float_copies_ab.py), each warmed up twice, then one call each
between cudaProfilerStart / Stop.  Writes ncu_ring_order.json under $OUT: (shape, variant, kernel names) in launch
order, for reading ncu's CSV.

    ncu --profile-from-start off --metrics ... --csv python3 -m lab.experiments.ncu_ring [LAYOUT:MxNxK ...]
"""
from lab.experiments import layout_spec, program, write_out
from lab.experiments.float_copies_ab import float_copies_config
from lab.experiments.unaligned_ring_ab import ring_config

SHAPES = ["NN:4096x4096x4096", "NT:4099x4093x4091"]


def run(argv):
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    torch = _setup_torch()
    order = []
    for spec in argv or SHAPES:
        layout, m, n, k = layout_spec(spec)[:4]
        bench = ShapeBench(torch, m, n, k, layout=layout)
        operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
        lib = GemmPlan(m, n, k, *operands)
        cfg = lib.config
        plans = {"lib": lib, "nopass": GemmPlan(m, n, k, *operands, config=cfg.replace(sass_pass=False), backend="ptx"),
                 "ring3": GemmPlan(m, n, k, *operands, backend="ptx", config=ring_config(cfg, 3, "r"))}
        if cfg.unaligned_vectors:  # the two stages with the float copies, the pass on (float_copies_ab's "rows")
            plans["rows"] = GemmPlan(m, n, k, *operands, backend="ptx", config=float_copies_config(cfg))
        for name, plan in plans.items():
            fn = bench.library(plan)
            fn(0), fn(0)
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
            fn(0)
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            order.append({"shape": spec, "variant": name, "describe": plan.describe()})
            print(spec, name, plan.describe(), flush=True)
        bench.close()
    write_out("ncu_ring_order.json", order)


main = program(run, "[LAYOUT:]MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
