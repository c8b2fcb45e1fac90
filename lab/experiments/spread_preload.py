"""The SASS pass's preload step (sass/preload.py) on and off (issue 20, session 19).

After the barrier that ends a k-tile the two-stage loop loads slice 0 of the next tile behind `@!has_next bra`;
ptxas kept the six LDS.128 as their own block, four cycles apart with nothing between.  The step if-converts the
block and spreads the loads among the FFMAs after it.

First measured as a prototype that rewrote the committed cubins the same way, before the step landed (at 1a5eac1:
`git show 1a5eac1:lab/experiments/spread_preload.py`; lab/device_runs/session19_g.sh, docs/data/session19/
g_1a5eac1, us, as committed -> spread): 512x8192x8192 1317.4 -> 1309.5, 4096^3 2589.3 -> 2574.8, 8192^3 20367.8
-> 20242.5, 16384^3 166630 -> 165426; 0.3-0.7% on every 128x256 shape, results exact.  This file now times the
landed step against the pass without it (runtime/sass_stage.SPREAD_PRELOADS), as read_scoreboards_ab.py does
for the read-scoreboard step.

For each shape: the plan regtile.sgemm builds ("lib") and the same plan with the step off ("ptxas_preload"),
against cuBLAS, interleaved kernel against kernel (each checked against float64 first, C NaN-poisoned).  Writes
spread_preload.json under $OUT.

    python3 -m lab.experiments.spread_preload [MxNxK ...]
"""
from . import pass_step_ab, shapes_program

DEFAULT = ["512x8192x8192", "4096x4096x4096", "512x16384x4096", "8192x8192x8192", "2048x2048x2048",
           "8192x128x8192", "16384x16384x16384"]

one = pass_step_ab("SPREAD_PRELOADS", "ptxas_preload", "preload")
main = shapes_program(__name__, DEFAULT, "spread_preload.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
