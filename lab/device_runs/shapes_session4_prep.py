"""Issue 20, session 4 (helper lat): two suite JSONs for `python3 -m regtile.tools.shape_sweep --suite`.

    python3 lab/device_runs/shapes_session4_prep.py CANDIDATES.json LIBRARY.json

CANDIDATES: every suite shape with m and n > 16 (the few-vector shapes are helper gemvm's GEMV
route) where a member added in session 4 (NEW, run 3's; run 1 timed NEW_RUN1, run 2 NEW_RUN2) is a
candidate (heuristic.candidate_names), so that the refit table has their times wherever they can be
picked.  Only splitk-32x64-f8 of them is still in the family (docs/shapes-history.md): with the others gone
the script lists run 3's shapes no more, kept as it ran.  LIBRARY: the aligned shapes issue 20 lists below 1.0x at 063da67 (under-filled
and latency-bound ones, mid squares) and the two large controls, 4096^3 and 8192^3."""
import json
import sys

from regtile.codegen.heuristic import candidate_names, member_config
from regtile.tools.shape_sweep import load_suite

# run 1 (d7734b0): the fused members with the knobs (since removed: none won a shape)
NEW_RUN1 = ("fused-32x32-w", "fused-32x32-k8-r6", "fused-32x32-k4-r6", "fused-32x32-8x4", "fused-32x64-w",
            "fused-64x64-w", "fused-64x64-r6", "fused-64x128-w", "fused-128x64-w")
# run 2: the CUDA C split-K members with more, shorter splits (where their split differs from the
# f4 sibling's: else the same kernel and launch)
NEW_RUN2 = ("splitk-32x32-f8", "splitk-32x64-f8")
# run 3: fused tiles 48 columns wide (N = 33..48 padded to 48, not 64)
NEW = ("fused-32x48", "fused-64x48", "fused-32x48-r3", "fused-32x48-k24")
SIBLING = {"splitk-32x32-f8": "splitk-32x32-f4", "splitk-32x64-f8": "splitk-32x64-f4"}
TARGETS = ((700, 35, 2048), (65, 33, 4097), (48, 2048, 8192), (64, 4096, 4096), (128, 2048, 2048),
           (64, 4096, 16384), (512, 1024, 4096), (4096, 128, 4096), (8192, 128, 8192), (512, 512, 512),
           (768, 512, 768), (64, 8192, 8192), (64, 1024, 500000), (2000, 2000, 2000), (7000, 1760, 1760),
           (1500, 3072, 128), (127, 511, 257), (4096, 4096, 4096), (8192, 8192, 8192))


def _differs(name, m, n, k):
    sib = SIBLING.get(name)
    return sib is None or member_config(name, m, n, k, 132)[0].split_k != member_config(sib, m, n, k, 132)[0].split_k


def candidates_suite(new=NEW):
    return [s for s in load_suite() if s["m"] > 16 and s["n"] > 16
            and any(c in new and _differs(c, s["m"], s["n"], s["k"]) for c in candidate_names(s["m"], s["n"], s["k"]))]


def library_suite():
    by_shape = {(s["m"], s["n"], s["k"]): s for s in load_suite()}
    return [by_shape.get(t, {"m": t[0], "n": t[1], "k": t[2], "group": "target"}) for t in TARGETS]


if __name__ == "__main__":
    cand, lib = candidates_suite(), library_suite()
    json.dump(cand, open(sys.argv[1], "w"))
    json.dump(lib, open(sys.argv[2], "w"))
    print(f"{len(cand)} candidate shapes -> {sys.argv[1]}; {len(lib)} library shapes -> {sys.argv[2]}")
