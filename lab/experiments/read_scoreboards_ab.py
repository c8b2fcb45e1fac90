"""The SASS pass's read-scoreboard step (sass/scoreboards.py) on and off (issue 20, session 18).

ptxas gives the main loop's global loads the read scoreboard the loop's first FFMAs wait on for their
fragments; on the unaligned-rows kernel (12 LDG.32 a k-tile) the first FFMA of each k-tile held 2.45% of the
stall samples on 4099x4093x4091 (session 17, docs/data/session17/d_369a3a1).  The step moves the loads' reads
to a scoreboard that is waited on later (before the first instruction that overwrites their addresses).

For each shape: the plan regtile.sgemm builds ("lib", the step on) and the same plan built with
runtime/sass_stage.SEPARATE_READS off ("ptxas_reads"), against cuBLAS, interleaved kernel against kernel on
tools/shape_sweep's ShapeBench (each checked against float64 first, C NaN-poisoned).  Writes
read_scoreboards_ab.json under $OUT.

    python3 -m lab.experiments.read_scoreboards_ab [MxNxK ...]
"""
from . import pass_step_ab, shapes_program

# The unaligned suite and held-out shapes below 1.0x, then aligned ones whose kernels the step changes too.
DEFAULT = ["4099x4093x4091", "8191x8193x1025", "6143x2047x3071", "2047x4097x1023", "5555x555x5555",
           "1009x1013x1019", "4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "8192x128x8192",
           "512x16384x4096", "1024x1024x1024", "1500x4224x176"]


one = pass_step_ab("SEPARATE_READS", "ptxas_reads", "scoreboards")
main = shapes_program(__name__, DEFAULT, "read_scoreboards_ab.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
