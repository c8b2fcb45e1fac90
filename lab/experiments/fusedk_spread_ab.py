"""The fused split-K kernel's lean copies (config.lean_copies, templates/sgemm_fusedk.cu.j2) on and
off (issue 20, session 24).

fused-128x32-f1 (the suite's n = 32 shapes) copied every k-tile through load_tile's edge path: each float4
recomputing its row, its bounds, its 64-bit address and a source size, ~230 SASS instructions a k-tile in a
block of their own after the barrier, beside 1024 FFMAs and 96 LDS.128 (session 19's ncu: issue 74%, FMA pipe
55% on 32768x32x4096).  Session 20's interior path (lab/experiments/fusedk_interior_ab.py) cut it to ~45 and ran
0-15% slower, its ten copies issued back to back.  The lean copies take one running pointer an operand and
issue each float4 among the FFMAs of the k-tile computed before, in a loop of their own (the k-tiles whose next
copy is lean; the others keep load_tile's loop): 1198 SASS instructions a k-tile for 1024 FFMAs and 120 LDS, 145
registers (157 without).

For each shape: regtile.sgemm's plan ("lib"), the fused member (the plan's, else the one the
shape model prices fastest) with the lean
copies ("spread") and without ("edge_path"), against cuBLAS, interleaved kernel against kernel (each checked
against float64 first, C NaN-poisoned).  Writes fusedk_spread.json under $OUT.

    python3 -m lab.experiments.fusedk_spread_ab [MxNxK ...]
"""
from . import shapes_program, time_plans

DEFAULT = ["32768x32x4096", "16384x32x16384", "4096x32x11008", "65536x32x2048", "8192x24x8192", "32771x33x4097",
           "196x1152x384", "700x35x2048", "48x2048x8192", "1024x64x16384", "4096x64x65536", "5120x64x5120",
           "100000x64x512", "64x4096x16384", "8192x128x8192"]


def one(torch, bench, m, n, k):
    from regtile.codegen.heuristic import member_config, model_choice
    from regtile.codegen.presets import FAMILY
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is None and lib.backend == "fusedk":
        cfg, backend = lib.config, lib.backend
    else:  # the fused member the model prices fastest for the shape
        fused = [name for name, mem in FAMILY.items() if mem.backend == "fusedk"]
        cfg, backend = member_config(model_choice(fused, m, n, k, 132), m, n, k, 132)
    cfg = cfg.replace(lean_copies=True)  # the plan's own config is without them where no block can run them
    on = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
    off = GemmPlan(m, n, k, False, False, k, n, n, config=cfg.replace(lean_copies=False), backend=backend)
    assert on.kernel.source.text != off.kernel.source.text
    return time_plans(torch, bench, {"lib": lib, "spread": on, "edge_path": off}, row,
                      f"{on.kernel.label} split {cfg.split_k}")


main = shapes_program(__name__, DEFAULT, "fusedk_spread.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
