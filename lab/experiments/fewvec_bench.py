"""Skinny GEMMs (m or n in 2..16) on the few-vector kernels (codegen/fewvec_config.py) against the
family's member the heuristic picks and cuBLAS (torch.mm, TF32 off), interleaved in one process
with the shape sweep's timer (tools/shape_sweep.time_interleaved: batches of launches between CUDA
events behind a GPU sleep, the order rotating per round; median of the rounds).  Every kernel is
checked once against a float64 product of the same operands (C NaN-poisoned) before it is timed.
GB/s counts the bytes of A, B and C once over the time; % copy is against a 1 GiB torch copy
(bytes read plus written), measured in the same process.

  python3 -m lab.experiments.fewvec_bench --candidates OUT.json   # several few-vector configs
  python3 -m lab.experiments.fewvec_bench OUT.json                # regtile.sgemm's choice (the route)
  python3 -m lab.experiments.fewvec_bench --layout NT OUT.json    # packed A^T (TN, TT) / B^T (NT, TT), cuBLAS too

"member" is the family member regtile.sgemm would run without the few-vector route (its plan with the chosen
config, in the layout); "regtile" is regtile.sgemm's plan, the route's kernel where it takes the shape.
"""
import argparse
import json
import os
import statistics
import sys
import time

# (m, n, k): issue 20's memory-bound skinny suite shapes, then a few more m / n in 2..16
SHAPES = [(4, 1024, 65536), (16, 4096, 4096), (8192, 8, 8192), (2048, 16, 32768), (7680, 2, 2560),
          (2, 4096, 16384), (1024, 4, 500000),
          (3, 4096, 8192), (8, 8192, 8192), (12, 2048, 16384), (8192, 5, 8192), (4096, 12, 8192),
          (16, 768, 768), (768, 8, 768), (8, 1024, 1024), (1024, 16, 1024), (16, 2048, 2048), (2048, 8, 2048),
          (8, 4096, 4096), (4096, 16, 4096)]


def _candidates(m, n, k, trans_a=False, lda=None, trans_b=False, ldb=None):
    """(label, config) few-vector variants for the shape: the rule's, and its neighbours."""
    from regtile.codegen.fewvec_config import FewVecNConfig, FewVecTConfig, route
    from regtile.runtime.fewvec import rule_config
    r = route(m, n, k, trans_a, lda or (m if trans_a else k), trans_b, ldb or (k if trans_b else n), force=True)
    if r is None:
        return []
    op, rows, cols, v, tc = r.op, r.rows, r.cols, r.vectors, r.transposed_c
    rule = rule_config(rows, cols, op, v, transposed_c=tc)
    out = [("rule", rule)]
    if op == "T":
        tx, ty, mb = rule.threads_x, rule.threads_y, rule.min_blocks
        for u, vg in ((4, 1), (8, 1), (4, 2), (8, 2), (4, 4), (8, 4)):
            try:
                c = FewVecTConfig(v, tx, ty, u, min_blocks=mb, vector_groups=vg, transposed_c=tc)
            except Exception:
                continue
            if c != rule and c not in [x for _, x in out]:
                out.append((f"t{tx}x{ty} u{u} vg{vg}", c))
    else:
        for w, g, u, mb, lanes in ((4, 2, 2, 4, 32), (4, 2, 2, 4, 16), (4, 2, 2, 4, 8), (4, 4, 2, 2, 8),
                                   (4, 2, 4, 4, 8), (8, 2, 2, 2, 8), (4, 1, 4, 4, 8), (4, 4, 2, 2, 32)):
            try:
                c = FewVecNConfig(v, w, g, u, min_blocks=mb, lanes_per_row=lanes, transposed_c=tc)
            except Exception:
                continue
            if c != rule and c not in [x for _, x in out]:
                out.append((f"w{w} g{g} u{u} mb{mb} l{lanes}", c))
    return out


def _precompile(cfgs):
    """{config: None or its compile error}, compiled by 12 processes (runtime/compiler.compile_many)."""
    from regtile.runtime.compiler import compile_many
    distinct = list(dict.fromkeys(cfgs))
    return dict(zip(distinct, compile_many([(c, "cuda") for c in distinct], "sm_90", 12)))


def _copy_gbps(torch):
    src = torch.empty(1 << 28, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    times = []
    for _ in range(5):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(5):
            dst.copy_(src)
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) / 5 * 1e3)
    us = statistics.median(times)
    del src, dst
    torch.cuda.empty_cache()
    return 2 * (1 << 28) * 4 / (us * 1e-6) / 1e9


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m lab.experiments.fewvec_bench", description=__doc__.split("\n")[0])
    ap.add_argument("out", help="JSON file to write")
    ap.add_argument("--candidates", action="store_true", help="time several few-vector configs per shape")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--shapes", default="", help="m,n,k;m,n,k (default: the built-in list)")
    ap.add_argument("--layout", default="NN", choices=("NN", "NT", "TN", "TT"),
                    help="op(A) = A^T stored K x M (TN, TT), op(B) = B^T stored N x K (NT, TT), packed")
    args = ap.parse_args(argv)
    shapes = [tuple(int(v) for v in s.split(",")) for s in args.shapes.split(";")] if args.shapes else SHAPES
    from regtile.runtime import driver
    from regtile.runtime.choice import choose_sgemm_kernel
    from regtile.runtime.fewvec import fewvec_route
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch, time_interleaved
    t0 = time.time()
    ta, tb = args.layout[0] == "T", args.layout[1] == "T"
    cands = {s: _candidates(*s, ta, None, tb, None) for s in shapes} if args.candidates else {}
    errs = _precompile([c for cs in cands.values() for _, c in cs]) if cands else {}
    print(f"compiled {len(errs)} few-vector configs in {time.time() - t0:.0f} s, "
          f"{sum(1 for e in errs.values() if e)} failed", file=sys.stderr, flush=True)
    torch = _setup_torch()
    dev = driver.device()
    copy = _copy_gbps(torch)
    rows = []
    for m, n, k in shapes:
        bench = ShapeBench(torch, m, n, k, layout=args.layout)
        lda, ldb = bench.lda, bench.ldb
        nbytes = 4 * (m * k + k * n + m * n)
        row = {"m": m, "n": n, "k": k, "layout": args.layout, "MB": round(nbytes / 1e6, 2), "kernels": {}}
        fns = {"cublas": bench.cublas()}
        cfg, backend = choose_sgemm_kernel(m, n, k, dev.arch, ta, tb, 0, lda, ldb, n)
        member = GemmPlan(m, n, k, ta, tb, lda, ldb, n, config=cfg, backend=backend)
        fns["member"] = bench.library(member)
        row["member"] = member.kernel.label
        if args.candidates:
            for label, c in cands[(m, n, k)]:
                if errs.get(c):
                    row["kernels"][label] = {"error": errs[c]}
                    continue
                r = fewvec_route(m, n, k, ta, lda, tb, ldb, n, config=c)
                fns[label] = bench.library(r)
                row["kernels"][label] = {"config": c.to_dict(), "splits": r.plan.splits,
                                         "registers": r.plan.kernel.artifact.resources.registers
                                         if hasattr(r.plan.kernel, "artifact") else None}
        else:
            plan = GemmPlan(m, n, k, ta, tb, lda, ldb, n)
            fns["regtile"] = bench.library(plan)
            row["regtile_kernel"] = plan.describe()
        for name in list(fns):
            if name == "cublas":
                continue
            ok, err, unwritten = bench.check(fns[name])
            row["kernels"].setdefault(name, {}).update(ok=ok, rel_err=err)
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
        best = min(timed, key=timed.get)
        print(f"{m}x{n}x{k} {row['MB']} MB: cuBLAS {row['cublas_us']:.1f} us; "
              + ", ".join(f"{nm} {timed[nm]:.1f}" for nm in sorted(timed, key=timed.get)[:5])
              + f"; best {best} {row['kernels'][best]['pct_copy']}% copy x{row['kernels'][best]['x_cublas']}",
              flush=True)
        with open(args.out, "w") as f:
            json.dump({"device": dev.name, "commit": os.environ.get("REGTILE_COMMIT", ""),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "copy_GBps": round(copy, 1),
                       "rounds": args.rounds, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
