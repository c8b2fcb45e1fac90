"""The SASS pass's tile-end step (sass/tile_end.py) on and off (issue 20, session 20).

At the end of a k-tile ptxas leaves the last slice's last fragment loads as a block of LDS.128 four cycles apart
right before the branch over the next tile's shared stores.  The step list-schedules that window so the loads sit
among the FFMAs above them (wide-128x256's main loop: 72 -> 61 issue cycles a k-tile in that window).

For each shape: the plan regtile.sgemm builds ("lib") and the same plan with the step off ("ptxas_tile_end"),
against cuBLAS, interleaved kernel against kernel (each checked against float64 first, C NaN-poisoned).  Writes
spread_tile_end.json under $OUT.

Also measured, not taken: the step's stores part, a prototype at 3687b1f (`git checkout 3687b1f`: the next tile's
shared stores if-converted, their read scoreboard moved to the global loads' data scoreboard, list-scheduled with
the loads; on wide-128x256 the window, the branch and the stores 103 -> 77 issue cycles a k-tile, where the loads
alone take their window 72 -> 61).  There
this file timed three plans (lab/device_runs/session20_g.sh, docs/data/session20/g_tile_end_stores, us; loads and
stores / loads alone / step off; cuBLAS): 512x8192x8192 1308.5 / 1306.1 / 1320.8 (1319.0), 4096^3 2579.3 / 2573.9 /
2593.4 (2668.0), 512x16384x4096 1311.7 / 1310.0 / 1323.7 (1325.6), 8192^3 20249.7 / 20222.0 / 20424.5 (21310.2),
2048^3 332.5 / 331.6 / 334.9 (343.1), 4099x4093x4091 2852.4 / 2857.8 / 2880.2 (2816.4), 512x4096x16384 1330.6 /
1333.4 / 1336.7 (1445.4), 16384^3 163663 / 165188 / 166373 (166397): the stores part 0.1-0.3% slower on the five
aligned 128x256 shapes, 0.2-0.9% faster on the other three; no gain to carry it.  Reverted.

Also measured, not taken (session 21): the step's free registers, a prototype at 86aa7a5 (sass/tile_end.free_bunch:
window loads whose destination an FFMA above them still reads moved, with their readers, to quads no instruction
names; wide-128x256 230 -> 250 registers at one block an SM, its window 61 -> 54 issue cycles), switched by
runtime/sass_stage.FREE_TILE_END and timed there by lab/experiments/free_tile_end.py (this file's A/B with that
switch; lab/device_runs/session21_d.sh, docs/data/session21/d_free_tile_end), us renamed / ptxas's registers
(cuBLAS): 512x8192x8192 1298.5 / 1289.9 (1309.1), 4096^3 2558.9 / 2547.0 (2645.0), 8192^3 20160.2 / 20035.6
(21149.8), 2048^3 329.7 / 328.1 (340.1), 4099x4093x4091 2833.8 / 2834.8 (2794.2), 6143x2047x3071 1610.8 / 1611.6
(1632.6), 7000x1760x1760 848.8 / 844.0 (879.0), 8191x8193x1025 2825.1 / 2821.5 (2841.6): slower on the six aligned
shapes, the same on the two unaligned.  Reverted.

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
