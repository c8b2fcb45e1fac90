"""Nsight Compute on both sides of every suite shape where regtile is below cuBLAS (issue 20: "where a
shape cannot beat cuBLAS, explain why with a measurement: the bound it hits, and what cuBLAS does
there").

Two modes, one file:

* target (on the GPU, under ncu): `ncu --profile-from-start off ... python3 -m lab.experiments.ncu_below
  --target [[LAYOUT:]MxNxK[:member] ...]`.  Per shape: regtile's call as regtile.sgemm makes it (the cached
  GemmPlan: the table's member, its split and launches), or a named member's kernel when `:member` is
  given, then torch.mm (TF32 off); each warmed up twice, then one call of each between
  cudaProfilerStart / Stop, so ncu sees exactly one call a side.  Without shapes: the shapes below
  1.0x in docs/data/shape-sweep.json, worst first.  It writes ncu_below_order.json under $OUT: the
  shapes in launch order.  The table mode cuts the CSV into calls by name: every regtile kernel's
  name starts with "regtile_" (program.kernel_name, splitk.reduce_name, the GEMV emitters), and
  no cuBLAS kernel's does.
  `--min-iters=N` builds stream-K's work lists with ranges of at least N k-tiles (codegen/streamk.MIN_ITERS).
  A batch (session 47): `LAYOUT:BxMxNxK[:member]`, regtile.sgemm on the batch's 3-D views (or that member's batched
  plan) against torch.bmm of the same views (lab/experiments/batched_sweep.BatchedBench).
* table (anywhere): `python3 -m lab.experiments.ncu_below --table NCU_CSV ORDER_JSON [--json OUT]
  [--sweep SHAPE_SWEEP_JSON]`: a markdown line a shape, both sides (markdown()); with --json, one row a
  call (shape, side) with every counter of each kernel and the bound the main kernel hits, named by
  the rule in `bound()`.
"""
import csv
import json
import os
import re
import sys

from regtile.codegen.presets import FAMILY

from . import below_cublas, layout_spec, program

# what the recipe asks ncu for (lab/device_runs/session7_ncu.sh passes this list)
STALLS = ("long_scoreboard", "short_scoreboard", "wait", "barrier", "mio_throttle", "math_pipe_throttle",
          "not_selected", "lg_throttle", "dispatch_stall", "no_instruction", "branch_resolving")
METRICS = ("gpu__time_duration.sum", "smsp__issue_active.avg.pct_of_peak_sustained_active",
           "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
           "dram__throughput.avg.pct_of_peak_sustained_elapsed", "lts__throughput.avg.pct_of_peak_sustained_elapsed",
           "smsp__warps_active.avg.per_cycle_active", "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
           "launch__grid_size", "launch__block_size", "launch__registers_per_thread", "smsp__inst_executed.sum",
           "dram__bytes_read.sum") + tuple(
    f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS)


def _shapes(argv):
    """[(layout, (m, n, k), member or None, batch)] of the [LAYOUT:][Bx]MxNxK[:member] arguments (B: a batch of B
    GEMMs; 0 without), else the sweep's shapes below 1.0x in NN."""
    given = [a for a in argv if not a.startswith("-")]
    if given:
        out = []
        for a in given:
            parts = a.split(":")
            member = parts.pop() if parts[-1] in FAMILY else None
            dims = parts[-1].split("x")
            batch = int(dims.pop(0)) if len(dims) == 4 else 0
            parts[-1] = "x".join(dims)
            layout, m, n, k = layout_spec(":".join(parts))[:4]
            out.append((layout, (m, n, k), member, batch))
        return out
    return [("NN", shape, None, 0) for shape in below_cublas()[1]]


def _batched_sides(torch, layout, m, n, k, member, batch, seed):
    """(bench, {"regtile": fn, "cublas": fn}, label) of a batch: regtile.sgemm on the 3-D views (or `member`'s batched
    plan, as batched_sweep times it) against torch.bmm."""
    from regtile.runtime.plans import GemmPlan
    from .batched_sweep import BatchedBench, member_configs
    e = {"layout": layout, "batch": batch, "m": m, "n": n, "k": k}
    bench = BatchedBench(torch, e, seed)
    mine, label = bench.library(), "library"
    if member:
        cfg, backend = member_configs(e)[member]
        p = bench.problem()
        mine, label = bench.plan(GemmPlan(p.kernel_m, p.kernel_n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc,
                                          p.batch, p.strides, config=cfg, backend=backend)), member
    return bench, {"regtile": mine, "cublas": bench.bmm()}, label


def target(argv):
    from regtile.runtime import driver
    from regtile.tools.shape_sweep import _setup_torch
    torch = _setup_torch()
    dev = driver.device()
    order = []
    for seed, (layout, (m, n, k), member, batch) in enumerate(_shapes(argv)):
        if batch:
            bench, sides, label = _batched_sides(torch, layout, m, n, k, member, batch, seed)
        else:
            bench, sides, label = _single_sides(torch, dev, layout, m, n, k, member)
        for fn in sides.values():
            fn(0)
            fn(0)
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        for side, fn in sides.items():
            fn(0)
            torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        order.append({"m": m, "n": n, "k": k, "layout": layout, "regtile": label, **({"batch": batch} if batch else {})})
        print(f"{layout}:{f'{batch}x' if batch else ''}{m}x{n}x{k} ({label})", flush=True)
        bench.close()
    with open(os.path.join(os.environ.get("OUT", "."), "ncu_below_order.json"), "w") as f:
        json.dump(order, f, indent=1)


def _single_sides(torch, dev, layout, m, n, k, member):
    """(bench, {"regtile": fn, "cublas": fn}, label) of one GEMM: regtile.sgemm's plan (or `member`'s kernel, NN)
    against torch.mm."""
    from regtile.codegen.heuristic import member_config
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench
    bench = ShapeBench(torch, m, n, k, layout=layout)
    if member:
        if layout != "NN":
            raise SystemExit(f"{layout}:{m}x{n}x{k}:{member}: a named member runs in NN only")
        cfg, backend = member_config(member, m, n, k, dev.sm_count)
        return bench, {"regtile": bench.regtile(driver.load(compile_config(cfg, dev.arch, backend=backend))),
                       "cublas": bench.cublas()}, member
    plan = GemmPlan(m, n, k, bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n, arch=dev.arch)
    return bench, {"regtile": bench.library(plan), "cublas": bench.cublas()}, "library"


def _num(s):
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return s


def read_csv(path):
    """ncu --csv (one metric a row): [(kernel name, {metric: value})] in profiling order."""
    from regtile.tools.datafiles import open_text
    kernels = {}
    with open_text(path) as f:  # CSV or CSV.gz (docs/data keeps the big ones gzipped)
        lines = [ln for ln in f if ln.startswith('"')]
    for r in csv.DictReader(lines):
        k = kernels.setdefault(int(r["ID"]), (r["Kernel Name"], {}))
        k[1][r["Metric Name"]] = _num(r["Metric Value"])
    return [kernels[i] for i in sorted(kernels)]


def bound(k: dict) -> str:
    """What one kernel is up against, from its counters (shares of the peak in %):
    the DRAM when it moves >= 80% of peak; the FMA pipe when it is >= 80% busy; else the issue
    (>= 80% of cycles issuing: instruction count); else latency, named by the largest stall."""
    dram = k.get("dram__throughput.avg.pct_of_peak_sustained_elapsed", 0)
    fma = k.get("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 0)
    issue = k.get("smsp__issue_active.avg.pct_of_peak_sustained_active", 0)
    if dram >= 80:
        return f"DRAM {dram:.0f}%"
    if fma >= 80:
        return f"FMA pipe {fma:.0f}%"
    if issue >= 80:
        return f"issue {issue:.0f}%"
    stalls = sorted(((k.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 0), s) for s in STALLS),
                    reverse=True)
    return f"latency ({stalls[0][1]} {stalls[0][0]:.2f})"


ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
FMA = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
WARPS = "smsp__warps_active.avg.per_cycle_active"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
COMPARED = ("long_scoreboard", "short_scoreboard", "wait", "barrier")


def short_name(name: str) -> str:
    """A cuBLAS kernel's name cut to what tells it apart: the family, tile and stages."""
    m = re.search(r"xmma_gemm_.*?tilesize(\d+x\d+x\d+)_stage(\d+).*?(split_k)?_kernel", name)
    if m:
        return f"xmma {m.group(1)} stage{m.group(2)}" + (" split-K" if m.group(3) else "")
    m = re.search(r"cutlass_80_simt_sgemm_(\w+?)_(nn|nt|tn|tt)", name)
    if m:
        return f"cutlass simt {m.group(1)}"
    if "splitKreduce" in name:
        return "splitKreduce"
    return name.replace("regtile_sgemm_", "")[:40]


def markdown(rows, sweep) -> str:
    """One line a shape: both sides' device time (all kernels of the call), the main kernel's
    issue and FMA-pipe shares, warps a scheduler, four stall reasons (warps stalled a
    issued instruction, regtile / cuBLAS), its DRAM throughput and bound()."""
    by = {}
    for r in rows:
        # the regtile side's label too: a shape can be profiled with the library's call and with a named member
        by.setdefault((r["m"], r["n"], r["k"], r.get("layout", "NN"), r.get("batch", 0), r["regtile"]), {})[r["side"]] = r
    out = ["| shape | x cuBLAS (sweep) | regtile kernel | us | issue / FMA % | warps a scheduler | cuBLAS kernels | us | "
           "issue / FMA % | warps a scheduler | " + " | ".join(f"{s.replace('_', ' ')} (r / c)" for s in COMPARED) +
           " | DRAM % (r / c) | bound (r / c) |",
           "|" + " --- |" * (12 + len(COMPARED))]
    for key, d in by.items():
        g, c = d["regtile"], d["cublas"]
        mg = max(g["kernels"], key=lambda x: x.get("gpu__time_duration.sum", 0))
        mc = max(c["kernels"], key=lambda x: x.get("gpu__time_duration.sum", 0))
        s = sweep.get(key[:3], {}) if key[3] == "NN" and not key[4] else {}
        label = s.get("kernel", g["regtile"]).replace(" (table)", "")
        x = f"{s['x_cublas']:.3f}" if s else "-"
        cub = " + ".join(short_name(k["name"]) for k in c["kernels"])
        stalls = " | ".join(f"{mg.get(f'smsp__average_warps_issue_stalled_{n}_per_issue_active.ratio', 0):.2f} / "
                            f"{mc.get(f'smsp__average_warps_issue_stalled_{n}_per_issue_active.ratio', 0):.2f}"
                            for n in COMPARED)
        shape = (f"{key[4]} x " if key[4] else "") + f"{key[0]}x{key[1]}x{key[2]}" + ("" if key[3] == "NN" else f" {key[3]}")
        out.append(f"| {shape} | {x} | {label} | {g['device_us']:.1f} | {mg[ISSUE]:.0f} / {mg[FMA]:.0f} | "
                   f"{mg[WARPS]:.1f} | {cub} | {c['device_us']:.1f} | {mc[ISSUE]:.0f} / {mc[FMA]:.0f} | {mc[WARPS]:.1f} | {stalls} | "
                   f"{mg.get(DRAM, 0):.0f} / {mc.get(DRAM, 0):.0f} | {bound(mg)} / {bound(mc)} |")
    return "\n".join(out)


def table(argv):
    out_json = argv[argv.index("--json") + 1] if "--json" in argv else None
    sweep_path = argv[argv.index("--sweep") + 1] if "--sweep" in argv else None
    csv_path, order_path = [a for a in argv if not a.startswith("--") and a not in (out_json, sweep_path)]
    from regtile.tools.datafiles import load_json
    kernels = read_csv(csv_path)
    order = load_json(order_path)
    rows, i = [], 0
    for o in order:
        for side in ("regtile", "cublas"):
            ks = []
            while i < len(kernels) and kernels[i][0].startswith("regtile_") == (side == "regtile"):
                ks.append(kernels[i])
                i += 1
            if not ks:
                raise SystemExit(f"{o['m']}x{o['n']}x{o['k']} {side}: no kernel where the CSV has "
                                 f"{kernels[i][0] if i < len(kernels) else 'nothing'} (order file and CSV disagree)")
            us = sum(m.get("gpu__time_duration.sum", 0) for _, m in ks) / 1e3  # ns -> us
            main = max(ks, key=lambda x: x[1].get("gpu__time_duration.sum", 0))
            rows.append({"m": o["m"], "n": o["n"], "k": o["k"], "layout": o.get("layout", "NN"), "side": side,
                         **({"batch": o["batch"]} if o.get("batch") else {}),
                         "regtile": o["regtile"],
                         "device_us": round(us, 2), "bound": bound(main[1]),
                         "kernels": [{"name": n, **{m: v for m, v in met.items()}} for n, met in ks]})
    if i != len(kernels):
        print(f"warning: {len(kernels) - i} profiled kernels left over (order file and CSV disagree)", file=sys.stderr)
    sweep = {}
    if "--sweep" in argv:
        sweep = {(r["m"], r["n"], r["k"]): r for r in load_json(argv[argv.index("--sweep") + 1])}
    print(markdown(rows, sweep))
    if out_json:
        with open(out_json, "w") as f:
            json.dump(rows, f, indent=1)


def run(argv):
    if "--table" in argv:
        table(argv)
    elif "--target" in argv:
        given = [a for a in argv if a.startswith("--min-iters=")]
        if given:  # stream-K's ranges of at least N k-tiles (codegen/streamk.MIN_ITERS; session 38)
            from regtile.codegen import streamk
            streamk.MIN_ITERS = int(given[-1].split("=")[1])
            argv = [a for a in argv if a not in given]
        target([a for a in argv if a != "--target"])
    else:
        print("give --target [[LAYOUT:]MxNxK[:member] ...] (under ncu) or --table NCU_CSV ORDER_JSON [--json OUT] [--sweep JSON]; see --help")


main = program(run, "--target [[LAYOUT:][Bx]MxNxK[:member] ...] | --table NCU_CSV ORDER_JSON [--json OUT] [--sweep JSON]")

if __name__ == "__main__":
    sys.exit(main())
