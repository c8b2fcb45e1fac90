"""Why does one kernel time differently in the sweep and in the candidates' bench? (session 42: NT 512^3's plan,
plain-32x64, ran 15.0-16.1 us in shape_sweep's {cuBLAS, regtile} rounds and 11.8-12.6 us among 36 members in
layout_candidates, cuBLAS 15.1-15.9 in both.)  On one ShapeBench per shape, regtile.sgemm's plan is timed by
shape_sweep.time_interleaved in several line-ups, 11 rounds each:
- "pair": cuBLAS and the plan, as the sweep times them;
- "pair, plan first": the same two, the plan first in the rotation;
- "quad": cuBLAS, the plan, a second plan of the same config ("again") and each of `members=` (e.g. sq-32x32);
- "alone": the plan by itself;
then each side's kernels' own durations (torch.profiler, CUPTI) over a batch behind cuBLAS's and behind its own:
batch time above kernel time is time between the kernels.  Writes order_probe.json under $OUT.

    python3 -m lab.experiments.order_probe [members=sq-32x32,plain-32x64] [seed=N] [LAYOUT:MxNxK ...]
        (default NT:512x512x512; seed: the ShapeBench's, as shape_sweep seeds a shape by its index)
"""
import statistics

from lab.experiments import device_kernels, member_for_shape, program, take_option, write_out

ROUNDS = 11


def _median_us(kernels: dict, skip: str = "sleep") -> dict:
    return {name[:60]: (round(statistics.median(t), 2), len(t)) for name, t in kernels.items() if skip not in name}


def run(argv):
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch, time_interleaved
    from lab.experiments import layout_spec
    members = [m for m in (take_option(argv, "members") or "sq-32x32").split(",") if m]
    seed = int(take_option(argv, "seed") or 0)
    torch = _setup_torch()
    rows = []
    for spec in argv or ["NT:512x512x512"]:
        layout, m, n, k, ta, tb, lda, ldb = layout_spec(spec)
        bench = ShapeBench(torch, m, n, k, seed=seed, layout=layout)
        plan = GemmPlan(m, n, k, ta, tb, lda, ldb, n)
        again = GemmPlan(m, n, k, ta, tb, lda, ldb, n, config=plan.config, backend=plan.backend)
        others = {name: GemmPlan(m, n, k, ta, tb, lda, ldb, n, config=cfg, backend=be)
                  for name in members for cfg, be in [member_for_shape(name, m, n, k, 132, ta, tb)]}
        cublas, lib = bench.cublas(), bench.library(plan)
        lineups = {"pair": {"cublas": cublas, "plan": lib},
                   "pair, plan first": {"plan": lib, "cublas": cublas},
                   "quad": {"cublas": cublas, "plan": lib, "again": bench.library(again),
                            **{name: bench.library(p) for name, p in others.items()}},
                   "alone": {"plan": lib}}
        row = {"spec": spec, "plan": plan.describe(), "checks": {}, "lineups": {}}
        for name, fn in {"plan": lib, **{nm: bench.library(p) for nm, p in others.items()}}.items():
            row["checks"][name] = bench.check(fn)[:2]
        for label, fns in lineups.items():
            times = time_interleaved(torch, fns, bench.sets, ROUNDS)
            row["lineups"][label] = {nm: {"median": round(statistics.median(t), 2), "rounds": [round(x, 2) for x in t]}
                                     for nm, t in times.items()}
            print(f"{spec} {label}: " + "  ".join(f"{nm} {v['median']:.2f}" for nm, v in row["lineups"][label].items())
                  + "   rounds plan " + " ".join(f"{x:.1f}" for x in row["lineups"][label]["plan"]["rounds"]),
                  flush=True)

        def batch(fn, count=40):
            for j in range(count):
                fn(j % bench.sets)
        row["kernels behind cuBLAS"] = _median_us(device_kernels(torch, lambda: (batch(cublas), batch(lib))))
        row["kernels behind itself"] = _median_us(device_kernels(torch, lambda: (batch(lib), batch(lib))))
        for key in ("kernels behind cuBLAS", "kernels behind itself"):
            print(f"{spec} {key}: {row[key]}", flush=True)
        bench.close()
        rows.append(row)
    write_out("order_probe.json", {"rows": rows})


main = program(run, "[members=a,b] [LAYOUT:MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
