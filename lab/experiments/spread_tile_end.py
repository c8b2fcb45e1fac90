"""The SASS pass's tile-end step (sass/tile_end.py) on and off (issue 20, session 20).

At the end of a k-tile ptxas leaves the last slice's last fragment loads as a block of LDS.128 four cycles apart
right before the branch over the next tile's shared stores.  The step list-schedules that window so the loads sit
among the FFMAs above them (wide-128x256's main loop: 72 -> 61 issue cycles a k-tile in that window).

For each shape: the plan regtile.sgemm builds ("lib") and the same plan with the step off ("ptxas_tile_end"),
against cuBLAS, interleaved kernel against kernel (each checked against float64 first, C NaN-poisoned).  Writes
spread_tile_end.json under $OUT.

    python3 -m lab.experiments.spread_tile_end [MxNxK ...]
"""
from . import pass_step_ab, shapes_program

DEFAULT = ["512x8192x8192", "4096x4096x4096", "512x16384x4096", "8192x8192x8192", "2048x2048x2048",
           "4099x4093x4091", "512x4096x16384", "16384x16384x16384"]

one = pass_step_ab("SPREAD_TILE_END", "ptxas_tile_end", "tile_end")
main = shapes_program(__name__, DEFAULT, "spread_tile_end.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
