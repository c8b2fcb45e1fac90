"""Issue 20, fourth round (fused split-K): the suite of every shape where a fused member is a
candidate (heuristic.candidate_names), written as a suite JSON for
`python3 -m regtile.tools.shape_sweep --candidates --suite`, so that the refit table has the
fused members' times wherever they can be picked.  GEMV shapes (m or n == 1) left out."""
import json
import sys

from regtile.codegen.heuristic import candidate_names
from regtile.codegen.presets import FAMILY
from regtile.tools.shape_sweep import load_suite


def fused_suite():
    out = []
    for s in load_suite():
        m, n, k = s["m"], s["n"], s["k"]
        if m == 1 or n == 1:
            continue
        if any(FAMILY[c].backend == "fusedk" for c in candidate_names(m, n, k)):
            out.append(s)
    return out


if __name__ == "__main__":
    suite = fused_suite()
    json.dump(suite, open(sys.argv[1], "w"))
    print(f"{len(suite)} shapes -> {sys.argv[1]}")
