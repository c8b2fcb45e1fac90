"""The tile-end step's renaming of the window's loads onto free registers (sass/tile_end.free_bunch), on and off
(issue 20, session 21).

ptxas gives the last slice's fragment loads registers the FFMAs just above them still read, so the tile-end step
could not move three of wide-128x256's loads out of their bunch (61 issue cycles in the window, where 54 is
possible).  free_bunch moves five loads and their readers to quads no instruction names (230 -> 250 registers,
one block an SM either way).

For each shape: the plan regtile.sgemm builds ("lib") and the same config built with runtime/sass_stage.
FREE_TILE_END False ("ptxas_registers"), against cuBLAS, interleaved kernel against kernel (each checked against
float64 first, C NaN-poisoned).  Writes free_tile_end.json under $OUT.

Measured, not taken (runs at 86aa7a5 only, where the renaming and its FREE_TILE_END switch exist; session21_d.sh,
docs/data/session21/d_free_tile_end), us lib (renamed) / ptxas_registers (cuBLAS): 512x8192x8192 1298.5 / 1289.9
(1309.1), 4096^3 2558.9 / 2547.0 (2645.0), 8192^3 20160.2 / 20035.6 (21149.8), 2048^3 329.7 / 328.1 (340.1),
4099x4093x4091 2833.8 / 2834.8 (2794.2), 6143x2047x3071 1610.8 / 1611.6 (1632.6), 7000x1760x1760 848.8 / 844.0
(879.0), 8191x8193x1025 2825.1 / 2821.5 (2841.6): 0.1-0.7% slower on the six aligned shapes, the same on the two
unaligned.  Seven fewer issue cycles a k-tile in the SASS again did not make the kernel faster; reverted.

    git checkout 86aa7a5 && python3 -m lab.experiments.free_tile_end [MxNxK ...]
"""
from . import pass_step_ab, shapes_program

DEFAULT = ["512x8192x8192", "4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "4099x4093x4091",
           "6143x2047x3071", "7000x1760x1760", "8191x8193x1025"]

one = pass_step_ab("FREE_TILE_END", "ptxas_registers", "tile_end")
main = shapes_program(__name__, DEFAULT, "free_tile_end.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
