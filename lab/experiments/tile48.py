"""m = 48 row tiles for 48x2048x8192 (issue 20's skinny miss at 0.877x: skinny-m16-k32 reads B, 64 MB,
three times; a 48-row tile reads it once), session 6: variants of skinny-m32-256 with bm=48 against the
table's member and cuBLAS, interleaved (tools/shape_sweep), each checked against float64 first.

    python3 -m lab.experiments.tile48 [MxNxK ...]
"""
import json
import os
import statistics

from . import program

VARIANTS = {  # changes to skinny-m32-256 (tm 4: vec-4 fragments; split_tile off: 4-wide pieces)
    "48x64x24 4x8": dict(bm=48, bn=64, bk=24, tm=4, tn=8, warps=None, split_tile=False),
    "48x64x48 4x4": dict(bm=48, bn=64, bk=48, tm=4, tn=4, warps=None, split_tile=False),
    "48x64x48 4x8": dict(bm=48, bn=64, bk=48, tm=4, tn=8, warps=None, split_tile=False),
    "48x128x48 4x8": dict(bm=48, bn=128, bk=48, tm=4, tn=8, warps=None, split_tile=False),
}


def run(argv):
    from regtile.codegen.presets import get_member
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch, time_interleaved
    torch = _setup_torch()
    dev = driver.device()
    base = get_member("skinny-m32-256").config
    rows = []
    for spec in argv or ["48x2048x8192", "48x4096x4096", "48x1024x16384"]:
        m, n, k = (int(v) for v in spec.split("x"))
        bench = ShapeBench(torch, m, n, k)
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        fns = {"cublas": bench.cublas(), "library": bench.library(plan)}
        for name, kw in VARIANTS.items():
            fns[name] = bench.regtile(driver.load(compile_config(base.replace(**kw), dev.arch, backend="ptx")))
        row = {"m": m, "n": n, "k": k, "library": plan.describe(), "check": {}, "us": {}}
        for name, fn in fns.items():
            if name != "cublas":
                ok, err, unwritten = bench.check(fn)
                row["check"][name] = {"ok": ok, "rel_err": err, "unwritten": unwritten}
        times = time_interleaved(torch, fns, bench.sets, 5)
        row["us"] = {name: round(statistics.median(t), 2) for name, t in times.items()}
        cb = row["us"]["cublas"]
        print(spec + ": " + "; ".join(f"{name} {t:.1f} (x{cb / t:.3f}{'' if name == 'cublas' or row['check'][name]['ok'] else ' WRONG'})"
                                      for name, t in row["us"].items()), flush=True)
        rows.append(row)
        bench.close()
    with open(os.path.join(os.environ.get("OUT", "."), "tile48.json"), "w") as f:
        json.dump({"device": dev.name, "rows": rows}, f, indent=1)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
