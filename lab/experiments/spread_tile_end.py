"""The SASS pass's tile-end step (sass/tile_end.py) on and off, with and without its stores part (issue 20,
session 20).

At the end of a k-tile ptxas leaves the last slice's last fragment loads as a block of LDS.128 four cycles apart
right before the branch over the next tile's shared stores, and the stores themselves four cycles apart after it.
The step list-schedules the loads among the FFMAs above them (wide-128x256's main loop: 72 -> 61 issue cycles a
k-tile in that window) and, with its stores part, the stores too, if-converted (103 -> 77 over the region).

For each shape: the plan regtile.sgemm builds ("lib": loads and stores), the same plan with the stores part off
("loads_only": runtime/sass_stage.SPREAD_STORES) and with the step off ("ptxas_tile_end"), against cuBLAS,
interleaved kernel against kernel (each checked against float64 first, C NaN-poisoned).  Writes
spread_tile_end.json under $OUT.

First measured without the stores part (lab/device_runs/session20_b.sh, docs/data/session20/b_tile_end: the
loads alone against the step off, 0.2-1.0% faster on eight shapes).

    python3 -m lab.experiments.spread_tile_end [MxNxK ...]
"""
from . import shapes_program, time_plans

DEFAULT = ["512x8192x8192", "4096x4096x4096", "512x16384x4096", "8192x8192x8192", "2048x2048x2048",
           "4099x4093x4091", "512x4096x16384", "16384x16384x16384"]


def one(torch, bench, m, n, k):
    from regtile.runtime import sass_stage
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or not getattr(lib.config, "sass_pass", False):
        return row, f"no SASS pass ({row['config']})"
    row["step"] = lib.kernel.artifact.sass_pass.tile_end
    plans = {"lib": lib}
    for label, switch in (("loads_only", "SPREAD_STORES"), ("ptxas_tile_end", "SPREAD_TILE_END")):
        with patched(sass_stage, switch, False):
            plans[label] = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config, backend=lib.backend)
    step = row["step"]
    return time_plans(torch, bench, plans, row, f"{lib.kernel.label}; cycles {step.get('cycles')}, "
                                               f"stores {step.get('stores_moved')}")


main = shapes_program(__name__, DEFAULT, "spread_tile_end.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
