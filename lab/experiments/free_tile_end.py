"""The tile-end step's renaming of the window's loads onto free registers (sass/tile_end.free_bunch), on and off
(issue 20, session 21).

ptxas gives the last slice's fragment loads registers the FFMAs just above them still read, so the tile-end step
could not move three of wide-128x256's loads out of their bunch (61 issue cycles in the window, where 54 is
possible).  free_bunch moves five loads and their readers to quads no instruction names (230 -> 250 registers,
one block an SM either way).

For each shape: the plan regtile.sgemm builds ("lib") and the same config built with runtime/sass_stage.
FREE_TILE_END False ("ptxas_registers"), against cuBLAS, interleaved kernel against kernel (each checked against
float64 first, C NaN-poisoned).  Writes free_tile_end.json under $OUT.

    python3 -m lab.experiments.free_tile_end [MxNxK ...]
"""
from . import pass_step_ab, shapes_program

DEFAULT = ["512x8192x8192", "4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "4099x4093x4091",
           "6143x2047x3071", "7000x1760x1760", "8191x8193x1025"]

one = pass_step_ab("FREE_TILE_END", "ptxas_registers", "tile_end")
main = shapes_program(__name__, DEFAULT, "free_tile_end.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
