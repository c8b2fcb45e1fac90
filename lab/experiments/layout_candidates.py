"""Every candidate member in another layout (session 30): where regtile.sgemm is below cuBLAS's NT or TN on the suite
(docs/data/session30/c_4041268), would another member of the family beat it there?  The table and the model are
fitted on row-major A and B (the layout changes the member only as heuristic.choose_kernel says); this times, per shape
and layout, every unfused candidate (heuristic.candidate_names fused=False; with fused=1 the fused members too, which
read A^T and B^T since session 33) generated for the layout and the packed operands (layouts.with_layout,
operand_forms.for_operands) against regtile.sgemm's plan and cuBLAS in that layout, each checked against float64
first, interleaved in one run.  Writes layout_candidates.json under $OUT: rows as a `shape_sweep --candidates` run
writes them (kernels {member: {ok, rel_err, us}}, cublas_us; heuristic_fit.timed_members reads them) with their
layout, and regtile.sgemm's plan's time ("lib_us").

  python3 -m lab.experiments.layout_candidates LAYOUT:MxNxK [LAYOUT:MxNxK ...]   (default: the NT and TN losses)
  python3 -m lab.experiments.layout_candidates suite=benchmarks/shapes.json layouts=NT,TN [budget=SECONDS]
  suite=A.json,B.json max_mnk=N: the shapes of several files, those with m n k <= N (session 38: the layout tables'
      runs, lab/device_runs/layout_probe_s38.json with the suite's small shapes); each row keeps its file's group
  fused=1: the fused members too, in the layout's form (session 33: the fused kernel reads A^T and B^T by float4)
      (every shape of the suite that regtile.sgemm does not route to a GEMV in the layout, smallest first.  Until
      the review after g_14ba623 it left out the shapes the NN route sends to a few-vector GEMV, which NT with m of
      2-16 and TN with n of 2-16 run on family members: 22 shape-layouts not timed there)
  padded=1: the operands as views of rows padded as a repacking plan's copies (codegen/repack.padded), every member
      generated for those leading dimensions: the GEMM a repacking plan runs, without its copies (session 43)
"""
import time

from lab.experiments import layout_spec, member_for_shape, program, take_option, time_members, write_out

DEFAULT = ["NT:32768x32x4096", "NT:2049x2047x1025", "NT:6143x2047x3071", "NT:512x512x512", "NT:8191x8193x1025",
           "NT:16384x32x16384", "TN:700x35x2048", "TN:127x511x257", "TN:1024x128x1024", "TN:2049x2047x1025",
           "TN:512x512x512", "TN:16384x32x16384", "TN:2048x64x2048", "TN:2048x2048x2048"]


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.codegen.config import ConfigError
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_many
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    from regtile.tools.shape_sweep import bench_leading_dims, gemv_routed
    from regtile.tools.datafiles import load_json
    from lab.experiments.variants_ab import parse
    t0 = time.time()
    suite, layouts, budget = take_option(argv, "suite"), take_option(argv, "layouts"), take_option(argv, "budget")
    fused = take_option(argv, "fused") == "1"
    pad = take_option(argv, "padded") == "1"
    only = take_option(argv, "members")
    only = set(only.split(",")) if only else None
    vary = [parse(v) for v in (take_option(argv, "vary") or "").split("|") if v]
    specs = argv or DEFAULT
    max_mnk = int(take_option(argv, "max_mnk") or 0)
    groups = {}
    if suite:
        for path in suite.split(","):
            for r in load_json(path):
                if not max_mnk or r["m"] * r["n"] * r["k"] <= max_mnk:
                    groups.setdefault((r["m"], r["n"], r["k"]), r.get("group", "suite"))
        shapes = sorted(groups, key=lambda s: s[0] * s[1] * s[2])
        specs = [f"{lay}:{m}x{n}x{k}" for m, n, k in shapes for lay in (layouts or "NT,TN").split(",")
                 if not gemv_routed(m, n, k, lay[0] == "T", lay[1] == "T")]
    torch = _setup_torch()
    dev = driver.device()
    jobs = []
    for spec in specs:
        layout, m, n, k, ta, tb, lda, ldb = layout_spec(spec)
        if pad:
            lda, ldb = bench_leading_dims(m, n, k, ta, tb, padded_rows=True)  # as ShapeBench(padded_rows=True)
        members = {}
        for name in h.candidate_names(m, n, k, dev.sm_count, fused=fused):
            if only and name not in only:
                continue
            cfg, be = members[name] = member_for_shape(name, m, n, k, dev.sm_count, ta, tb, lda, ldb)
            for label, fields in vary:
                try:
                    var = cfg.replace(**fields)
                except ConfigError as e:
                    print(f"{spec} {name}~{label}: refused ({str(e)[:100]})", flush=True)
                    continue
                if var != cfg:
                    members[f"{name}~{label}"] = (var, be)
        jobs.append((spec, layout, m, n, k, members))
    compile_many(list({v for *_, members in jobs for v in members.values()}), dev.arch, 16)
    print(f"compiled in {time.time() - t0:.0f} s", flush=True)
    rows = []
    for spec, layout, m, n, k, members in jobs:
        if budget and time.time() - t0 > float(budget):
            print(f"time budget of {budget} s reached: {len(jobs) - len(rows)} shapes left out", flush=True)
            break
        bench = ShapeBench(torch, m, n, k, layout=layout, padded_rows=pad)
        try:
            check, us, plans = time_members(torch, bench, members, spec)  # a member that cannot run there: named
        finally:
            bench.close()
        ok = {nm: t for nm, t in us.items() if nm == "cublas" or check[nm]["ok"]}
        best = min((nm for nm in ok if nm not in ("cublas", "lib")), key=ok.get)
        rows.append({"layout": layout, "m": m, "n": n, "k": k, "group": groups.get((m, n, k), "spec"),
                     "cublas_us": us["cublas"], "lib_us": us["lib"],
                     "lib_member": h.describe_choice(m, n, k, dev.arch, dev.sm_count,
                                                     h.rows_aligned(m, n, k, bench.trans_a, bench.trans_b,
                                                                    bench.lda, bench.ldb),
                                                     trans_a=bench.trans_a, trans_b=bench.trans_b),
                     "kernels": {nm: dict(check[nm], us=us[nm]) for nm in members if nm in us}})
        write_out("layout_candidates.json", {"device": dev.name, "sm_count": dev.sm_count, "rows": rows})
        print(f"{spec}: cuBLAS {us['cublas']:.1f}  lib {us['lib']:.1f} (x{us['cublas'] / us['lib']:.3f})  fastest "
              f"{best} {us[best]:.1f} (x{us['cublas'] / us[best]:.3f}) of {len(plans) - 1}"
              + ("" if all(c["ok"] for c in check.values()) else
                 "  WRONG: " + ", ".join(nm for nm, c in check.items() if not c["ok"])), flush=True)


main = program(run, "LAYOUT:MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
