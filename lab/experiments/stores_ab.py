"""The SASS pass's store step (sass/stores.py) on and off (issue 20, session 35).

ptxas keeps the next tile's shared stores as a block of their own behind the branch that skips them on the last
k-tile, four cycles apart with nothing between (12 STS in wide-64x128-k16's loop, 24 on B^T); the step if-converts
them and spreads them among the last slice's FFMAs.  Nsight Compute on 8192x128x8192 (wide-64x128-k16) counted
0.14 warps stalled on "wait" an issued instruction against cuBLAS's 0.01 (docs/data/session35/b_fa60b57).

For each [LAYOUT:]MxNxK: the plan regtile.sgemm builds ("lib", the step on where it applies) and the same config
with the step off ("ptxas_stores"), against cuBLAS in the layout, interleaved kernel against kernel (each checked
against float64 first, C NaN-poisoned).  Writes stores_ab.json under $OUT.

    python3 -m lab.experiments.stores_ab [LAYOUT:MxNxK ...]
"""
from . import pass_step_ab, shapes_program

DEFAULT = ["8192x128x8192", "1024x1024x1024", "1536x1536x1536", "512x4096x4096", "64x8192x8192", "8192x8192x64",
           "16384x4096x128", "2048x512x2048", "5120x64x5120", "4096x64x65536", "NT:8192x128x8192",
           "TT:8192x128x8192", "TN:512x4096x4096", "NT:1536x1536x1536"]

one = pass_step_ab("SPREAD_STORES", "ptxas_stores", "stores")
main = shapes_program(__name__, DEFAULT, "stores_ab.json", one, "[LAYOUT:MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
