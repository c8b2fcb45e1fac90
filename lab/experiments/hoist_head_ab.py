"""The two-stage loop's head hoisted to the end of the iteration before (codegen/ptx_loops.HOIST_HEAD), on and off
(issue 20, session 21).

At the top of every k-tile the loop computes this tile's and the next one's shared stage offsets, k0 of the next
tile and whether it exists: 22 SASS instructions and 64 issue cycles with no FFMA on wide-128x256, where Nsight
Compute put 5.2% of the samples (docs/data/session20/f_stalls_152af36).  Hoisted, the same values are computed
after the last slice's FFMAs are emitted, before the back branch, and ptxas spreads them among those FFMAs
(lab/experiments/interior_cycles.py: wide-128x256 1184 -> 1172 issue cycles a k-tile with the SASS pass,
tall-256x128 1229 -> 1226, where the pass's preload step no longer finds its pattern).

For each shape: the plan regtile.sgemm builds ("lib") and the same config emitted with the hoist ("hoist"),
against cuBLAS, interleaved kernel against kernel (each checked against float64 first, C NaN-poisoned).  Writes
hoist_head_ab.json under $OUT.

    python3 -m lab.experiments.hoist_head_ab [MxNxK ...]
"""
from . import shapes_program, time_plans

DEFAULT = ["512x8192x8192", "4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "4099x4093x4091",
           "512x4096x16384", "8192x128x8192", "2048x1024x4096", "6143x2047x3071", "768x512x768",
           "7000x1760x1760", "3000x512x2816", "1500x3072x128"]


def one(torch, bench, m, n, k):
    from regtile.codegen import ptx_loops
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx":
        return row, f"not a PTX kernel ({row['config']}, {lib.backend})"
    with patched(ptx_loops, "HOIST_HEAD", True):
        hoist = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config, backend=lib.backend)
    if hoist.kernel.artifact.cubin == lib.kernel.artifact.cubin:
        return row, f"the same cubin ({lib.kernel.label}: no two-stage loop)"
    return time_plans(torch, bench, {"lib": lib, "hoist": hoist}, row, lib.kernel.label)


main = shapes_program(__name__, DEFAULT, "hoist_head_ab.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
