"""Skinny-m GEMMs (m = 8..32, op T) through the few-vector kernel's shared-memory ring
(FewVecTConfig.ring_stages: the big operand's rows and the staged vectors reach the FMAs through
cp.async slots a warp owns), against regtile.sgemm as committed and cuBLAS (torch.mm, TF32 off),
interleaved in one process with the shape sweep's timer (tools/shape_sweep.time_interleaved).
Every kernel is checked once against float64 (C NaN-poisoned) before it is timed; % copy is the
bytes of A, B and C once against a 1 GiB torch copy measured in the same process.

  python3 -m lab.experiments.fewvec_ring OUT.json [--shapes m,n,k;...] [--rounds 5]
"""
import argparse
import json
import os
import statistics
import sys
import time

SHAPES = [(16, 4096, 4096), (32, 4096, 4096), (32, 1024, 131072), (16, 16384, 4096), (16, 4096, 16384),
          (16, 5120, 5120), (8, 4096, 4096), (8, 8192, 8192), (12, 2048, 16384), (24, 4096, 8192)]


def candidates(m):
    """(label, config): rows a warp in a slot (unroll), slots (ring_stages), thread rows, min blocks."""
    from regtile.codegen.fewvec_config import FewVecTConfig
    grid = [(8, 4, 4, 1), (8, 4, 6, 1), (8, 2, 8, 1), (8, 8, 3, 1), (4, 4, 6, 2)]
    if m <= 16:
        grid += [(8, 4, 4, 2), (8, 2, 6, 2), (8, 4, 3, 2)]
    out = []
    for ty, u, s, mb in grid:
        try:
            out.append((f"ring ty{ty} u{u} s{s} mb{mb}", FewVecTConfig(m, 32, ty, u, min_blocks=mb, ring_stages=s)))
        except Exception as e:  # over the shared memory or register budget: say so, go on
            print(f"m={m} ty{ty} u{u} s{s} mb{mb}: {e}", file=sys.stderr)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m lab.experiments.fewvec_ring", description=__doc__.split("\n")[0])
    ap.add_argument("out", help="JSON file to write")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--shapes", default="", help="m,n,k;m,n,k (default: the built-in list)")
    args = ap.parse_args(argv)
    shapes = [tuple(int(v) for v in s.split(",")) for s in args.shapes.split(";")] if args.shapes else SHAPES
    from lab.experiments.fewvec_bench import _copy_gbps, _precompile
    from regtile.runtime import driver
    from regtile.runtime.fewvec import fewvec_route
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch, time_interleaved
    t0 = time.time()
    cands = {s: candidates(s[0]) for s in shapes}
    errs = _precompile([c for cs in cands.values() for _, c in cs])
    print(f"compiled {len(errs)} ring configs in {time.time() - t0:.0f} s, "
          f"{sum(1 for e in errs.values() if e)} failed", file=sys.stderr, flush=True)
    torch = _setup_torch()
    dev = driver.device()
    copy = _copy_gbps(torch)
    rows = []
    for m, n, k in shapes:
        bench = ShapeBench(torch, m, n, k)
        nbytes = 4 * (m * k + k * n + m * n)
        row = {"m": m, "n": n, "k": k, "MB": round(nbytes / 1e6, 2), "kernels": {}}
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        fns = {"cublas": bench.cublas(), "regtile": bench.library(plan)}
        row["regtile_kernel"] = plan.describe()
        for label, c in cands[(m, n, k)]:
            if errs.get(c):
                row["kernels"][label] = {"error": str(errs[c])[:300]}
                continue
            r = fewvec_route(m, n, k, False, k, False, n, n, config=c)
            fns[label] = bench.library(r)
            res = r.plan.kernel.artifact.resources
            row["kernels"][label] = {"config": c.to_dict(), "splits": r.plan.splits, "grid": r.plan.grid,
                                     "registers": res.registers, "spills": res.spill_store_bytes,
                                     "blocks_per_sm": r.plan.kernel.blocks_per_sm}
        for name in list(fns):
            if name == "cublas":
                continue
            ok, err, unwritten = bench.check(fns[name])
            row["kernels"].setdefault(name, {}).update(ok=ok, rel_err=err, unwritten=unwritten)
            if not ok:
                del fns[name]
        times = time_interleaved(torch, fns, bench.sets, args.rounds)
        bench.close()
        row["cublas_us"] = round(statistics.median(times.pop("cublas")), 3)
        for name, t in times.items():
            us = statistics.median(t)
            row["kernels"][name].update(us=round(us, 3), x_cublas=round(row["cublas_us"] / us, 4),
                                        pct_copy=round(100 * nbytes / (us * 1e-6) / 1e9 / copy, 1))
        rows.append(row)
        timed = {nm: v["us"] for nm, v in row["kernels"].items() if "us" in v}
        wrong = [nm for nm, v in row["kernels"].items() if v.get("ok") is False]
        print(f"{m}x{n}x{k} {row['MB']} MB: cuBLAS {row['cublas_us']:.1f} us; regtile {timed.get('regtile', 0):.1f} "
              f"({row['kernels']['regtile'].get('pct_copy')}%); "
              + ", ".join(f"{nm} {timed[nm]:.1f} ({row['kernels'][nm]['pct_copy']}%, "
                          f"{row['kernels'][nm].get('registers')}r x{row['kernels'][nm].get('blocks_per_sm')})"
                          for nm in sorted(timed, key=timed.get)[:6] if nm != "regtile")
              + (f"; WRONG {wrong}" if wrong else ""), flush=True)
        with open(args.out, "w") as f:
            json.dump({"device": dev.name, "commit": os.environ.get("REGTILE_COMMIT", ""),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "copy_GBps": round(copy, 1),
                       "rounds": args.rounds, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
