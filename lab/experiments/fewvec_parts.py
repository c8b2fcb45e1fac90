"""The kernels of regtile.sgemm's plan for skinny shapes with their device times (torch.profiler, CUPTI,
median of 20 back-to-back calls).  Read with care: the few-vector launches are programmatic (PDL), so a
kernel's time includes its wait for the one before it (session 13's run showed the reduce at 26 us
beside a 25 us main kernel); lab/experiments/fewvec_tail_ab.py measures what a launch costs end to end.
`python3 -m lab.experiments.fewvec_parts OUT.json [m,n,k;...]`"""
import json
import os
import statistics
import sys

from lab.experiments import program

SHAPES = [(8, 4096, 4096), (8, 8192, 8192), (2, 4096, 16384), (4, 1024, 65536), (12, 2048, 16384),
          (4096, 16, 4096), (8192, 16, 8192), (2048, 16, 32768), (65536, 16, 1024), (8192, 8, 8192),
          (1024, 4, 500000), (7680, 2, 2560)]


def run(argv):
    shapes = [tuple(int(v) for v in s.split(",")) for s in argv[1].split(";")] if len(argv) > 1 else SHAPES
    from lab.experiments import device_kernels
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    torch = _setup_torch()
    rows = []
    for m, n, k in shapes:
        bench = ShapeBench(torch, m, n, k)
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        fn = bench.library(plan)
        ok, err, _ = bench.check(fn)
        for _ in range(3):
            fn(0)
        kernels = device_kernels(torch, lambda: fn(0), calls=20)
        parts = {name: round(statistics.median(t), 2) for name, t in kernels.items()}
        rows.append({"m": m, "n": n, "k": k, "plan": plan.describe(), "ok": ok, "parts_us": parts})
        print(f"{m}x{n}x{k} {'ok' if ok else 'WRONG'}: " + ", ".join(f"{nm[-24:]} {us}" for nm, us in parts.items()),
              flush=True)
        bench.close()
    with open(argv[0], "w") as f:
        json.dump({"commit": os.environ.get("REGTILE_COMMIT", ""), "rows": rows}, f, indent=1)


main = program(run, "OUT.json, then optionally m,n,k;m,n,k (default: the built-in list)")


if __name__ == "__main__":
    sys.exit(main())
