"""Issue 20, third round, device run 1: the family's candidates on the shapes the round targets,
each PTX member also as "<member>-ev" with edge_vector_path=True (codegen/config.py: the edge
tiles' copies without a write behind an in-flight float4), and the new small split-K members.

    python3 -m lab.experiments.edge_vector_path_sweep --candidates --suite benchmarks/shapes-round3.json \
        --json OUT.json

Same arguments as `python3 -m regtile.tools.shape_sweep`; the "-ev" copies exist only in this
process (the family itself is left as committed).  Run 1 used it at e7e5673, when no member had the
flag; since acfe15e every PTX member but the two 128x256 ones has it, so it now adds only
those two (the comparison that showed them slower with it)."""
from __future__ import annotations

import dataclasses
import sys

from regtile.codegen import presets

from . import program


def add_edge_vector_copies() -> None:
    for name, mem in list(presets.FAMILY.items()):
        c = mem.config
        if mem.backend == "ptx" and c.vec == 4 and not c.edge_vector_path:
            presets.FAMILY[name + "-ev"] = dataclasses.replace(
                mem, name=name + "-ev", config=c.replace(edge_vector_path=True), summary=mem.summary + ", edge vector path")


def _run(argv):
    add_edge_vector_copies()
    from regtile.tools import shape_sweep
    return shape_sweep.main(argv)


main = program(_run, "the arguments of python3 -m regtile.tools.shape_sweep")

if __name__ == "__main__":
    sys.exit(main())
