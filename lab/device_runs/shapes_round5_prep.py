"""Issue 20, fifth round (fused split-K on unaligned rows): the suite for the candidate run -
every suite shape where a fused member is a candidate now and was not in round 4 (K or N not a
multiple of 4), then the round's targets and controls (benchmarks/shapes.json's entries where
they are suite shapes, else added) - and a second suite of the targets and controls alone for
the library sweep.  GEMV shapes (m or n == 1) left out."""
import json
import sys

from regtile.codegen.heuristic import candidate_names
from regtile.codegen.presets import FAMILY
from regtile.tools.shape_sweep import load_suite

TARGETS = [(700, 35, 2048), (65, 33, 4097), (513, 129, 16383), (1009, 1013, 1019), (1023, 1025, 1023),
           (255, 257, 65537)]
CONTROLS = [(4096, 4096, 4096), (2048, 2048, 2048), (32768, 32, 4096), (700, 5124, 2048), (8, 1024, 1024)]


def suites():
    suite = load_suite()
    by_shape = {(s["m"], s["n"], s["k"]): s for s in suite}
    named = [by_shape.get(t, {"m": t[0], "n": t[1], "k": t[2], "group": "round5"}) for t in TARGETS + CONTROLS]
    new = []
    for s in suite:
        m, n, k = s["m"], s["n"], s["k"]
        if m == 1 or n == 1 or (k % 4 == 0 and n % 4 == 0) or (m, n, k) in TARGETS:
            continue
        if any(FAMILY[c].backend == "fusedk" for c in candidate_names(m, n, k)):
            new.append(s)
    return named[:len(TARGETS)] + new + named[len(TARGETS):], named


if __name__ == "__main__":
    cands, lib = suites()
    json.dump(cands, open(sys.argv[1], "w"))
    json.dump(lib, open(sys.argv[2], "w"))
    print(f"{len(cands)} candidate shapes -> {sys.argv[1]}; {len(lib)} library shapes -> {sys.argv[2]}")
