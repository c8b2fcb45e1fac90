"""Issue 20, session 25: the table shapes (codegen/heuristic_table.json) where a fused member ran within 30% of
the fastest candidate before its lean copies (session 24) and could run them (A's and B's rows 16-byte aligned:
K and N multiples of 4), written as a suite JSON for `python3 -m regtile.tools.shape_sweep --candidates --suite`:
their candidates re-timed, so that a refit prices the fused members as they run now.  Suite shapes keep their
group (the model is fitted on those), the fitting grids' are "fit".

    python3 lab/device_runs/session25_lean_prep.py OUT.json
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WITHIN = 1.3  # a fused member's time over the fastest candidate's, at most


def lean_suite():
    suite = {(s["m"], s["n"], s["k"]): s["group"] for s in json.loads((ROOT / "benchmarks/shapes.json").read_text())}
    table = json.loads((ROOT / "codegen/heuristic_table.json").read_text())
    out = []
    for e in table["entries"]:
        fused = [r for name, r in e["rel"].items() if name.startswith("fused")]
        if not fused or e["k"] % 4 or e["n"] % 4 or min(fused) >= WITHIN:
            continue
        key = (e["m"], e["n"], e["k"])
        out.append(dict(m=e["m"], n=e["n"], k=e["k"], group=suite.get(key, "fit")))
    return out


if __name__ == "__main__":
    shapes = lean_suite()
    Path(sys.argv[1]).write_text(json.dumps(shapes))
    print(f"{len(shapes)} shapes ({sum(s['group'] != 'fit' for s in shapes)} of the suite) -> {sys.argv[1]}")
