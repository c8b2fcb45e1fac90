"""The SASS pass's barrier step (sass/barrier.py) on and off (issue 20, session 35).

Where ptxas if-converts the next tile's shared stores (TN's A^T tile on the 128x256 and 256x128 kernels) it sinks
the k-tile's barrier below the last slice's FFMAs, 107-112 of them; the step moves it back up to the last store,
where NN's loop has it.  On the H200 regtile's TN ran 1.0-1.8% behind its own NN on the suite's aligned wide-128x256
shapes (docs/data/session31/c_bd96dd5).

For each [LAYOUT:]MxNxK: the plan regtile.sgemm builds ("lib", the step on where it applies) and the same config
with the step off ("ptxas_barrier"), against cuBLAS in the layout, interleaved kernel against kernel (each checked
against float64 first, C NaN-poisoned).  Writes barrier_ab.json under $OUT.

    python3 -m lab.experiments.barrier_ab [LAYOUT:MxNxK ...]
"""
from . import pass_step_ab, shapes_program

DEFAULT = ["TN:4096x4096x4096", "TN:8192x8192x8192", "TN:2048x2048x2048", "TN:2000x2000x2000",
           "TN:7000x1760x1760", "TN:512x4096x16384", "TN:8192x1024x1024", "NN:4096x4096x4096"]

one = pass_step_ab("HOIST_BARRIER", "ptxas_barrier", "barrier")
main = shapes_program(__name__, DEFAULT, "barrier_ab.json", one, "[LAYOUT:MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
