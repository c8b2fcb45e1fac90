"""The two-stage loop's head hoisted to the end of the iteration before (tile_config.hoist_head), on and off
(issue 20, session 21).

At the top of every k-tile the loop computes this tile's and the next one's shared stage offsets, k0 of the next
tile and whether it exists: 22 SASS instructions and 64 issue cycles with no FFMA on wide-128x256, where Nsight
Compute put 5.2% of the samples (docs/data/session20/f_stalls_152af36).  Hoisted, the same values are computed
after the last slice's FFMAs are emitted, before the back branch, and ptxas spreads them among those FFMAs
(lab/experiments/interior_cycles.py: wide-128x256 1184 -> 1172 issue cycles a k-tile with the SASS pass,
tall-256x128 1229 -> 1226, where the pass's preload step no longer finds its pattern).

For each shape: the plan regtile.sgemm builds ("lib") and the same config with hoist_head flipped ("hoist" where
the plan has none, "top" where it has it), against cuBLAS, interleaved kernel against kernel (each checked against
float64 first, C NaN-poisoned).  Writes hoist_head_ab.json under $OUT.

Session 21 ran it before the field existed, with a module switch in codegen/ptx_loops.py (20d41f6;
lab/device_runs/session21_a.sh, docs/data/session21/a_hoist_head), us lib / hoist (cuBLAS): 512x8192x8192 1305.5 /
1302.0 (1319.4), 4096^3 2575.4 / 2567.1 (2664.9), 8192^3 20240.6 / 20190.5 (21303.2), 2048^3 332.0 / 330.3 (342.6),
4099x4093x4091 2866.9 / 2857.8 (2816.4), 6143x2047x3071 1634.3 / 1629.0 (1642.9), 7000x1760x1760 853.8 / 850.7
(888.3) on wide-128x256; 512x4096x16384 1333.4 / 1329.3 (1444.0) on tall-256x128; 8192x128x8192 344.9 / 346.7
(344.0), 2048x1024x4096 347.8 / 348.8 (356.9), 3000x512x2816 179.1 / 180.1 (193.8) on wide-64x128-k16; 768x512x768
23.1 / 23.6 (23.9) on sq-64x64; 1500x3072x128 33.6 / 33.6 (39.5) on tall-128x64-k16.  The family turned it on
for the 128x256 and 256x128 members, and for wide-64x256 after variants_ab (session21_b.sh).

    python3 -m lab.experiments.hoist_head_ab [MxNxK ...]
"""
from . import shapes_program, time_plans

DEFAULT = ["512x8192x8192", "4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "4099x4093x4091",
           "512x4096x16384", "8192x128x8192", "2048x1024x4096", "6143x2047x3071", "768x512x768",
           "7000x1760x1760", "3000x512x2816", "1500x3072x128"]


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx" or lib.config.stages != 2:
        return row, f"no two-stage PTX loop ({row['config']}, {lib.backend})"
    on = not lib.config.hoist_head
    other = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config.replace(hoist_head=on), backend=lib.backend)
    return time_plans(torch, bench, {"lib": lib, "hoist" if on else "top": other}, row, lib.kernel.label)


main = shapes_program(__name__, DEFAULT, "hoist_head_ab.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
