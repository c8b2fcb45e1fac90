"""The fused split-K kernel's interior copy path (templates/sgemm_fusedk.cu.j2 load_tile_inside) on and off
(issue 20, session 20).  A prototype, measured and reverted: it runs at 07a01df (`git checkout 07a01df`), where the
template has the path and codegen/emit_fusedk.py the INTERIOR_PATH switch.

Measured (lab/device_runs/session20_c.sh, docs/data/session20/c_fusedk_interior, H100, us; interior / edge path as
committed / cuBLAS): 32768x32x4096 250.3 / 248.0 / 249.4, 16384x32x16384 518.0 / 487.1 / 538.3, 4096x32x11008
97.3 / 93.0 / 107.9, 65536x32x2048 289.1 / 251.1 / 420.6: slower everywhere, by up to 15%, with ~105 fewer
instructions a k-tile.  Not taken.

The kernel copied every k-tile through its edge path: each float4 copy recomputed its row, its bounds and its
64-bit address and passed a source size (~10 SASS instructions a copy: ~150 a k-tile on fused-128x32-f1, beside
1024 FFMAs and 96 LDS.128).  k-tiles inside K of a block inside M and N, rows aligned, now take a pointer add and
the copy (~45 a k-tile).

For each shape: regtile.sgemm's plan ("lib"), the fused member (the plan's, else fused-128x32-f1) as emitted
("interior") and with codegen/emit_fusedk.INTERIOR_PATH off ("edge_path"), against cuBLAS, interleaved kernel
against kernel (each checked against float64 first, C NaN-poisoned).  Writes fusedk_interior.json under $OUT.

    python3 -m lab.experiments.fusedk_interior_ab [MxNxK ...]
"""
from . import shapes_program, time_plans

DEFAULT = ["32768x32x4096", "16384x32x16384", "4096x32x11008", "65536x32x2048"]


def one(torch, bench, m, n, k):
    from regtile.codegen import emit_fusedk
    from regtile.codegen.heuristic import member_config
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is None and lib.backend == "fusedk":
        cfg, backend = lib.config, lib.backend
    else:
        cfg, backend = member_config("fused-128x32-f1", m, n, k, 132)
    on = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
    with patched(emit_fusedk, "INTERIOR_PATH", False):
        off = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
    return time_plans(torch, bench, {"lib": lib, "interior": on, "edge_path": off}, row,
                      f"{on.kernel.label} split {cfg.split_k}")


main = shapes_program(__name__, DEFAULT, "fusedk_interior.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
