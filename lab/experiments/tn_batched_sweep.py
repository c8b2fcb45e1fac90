"""Issue 19's last two misses, one device run: why TN (op(A) = A^T) trails cuBLAS at 4096^3 /
8192^3, and which batched kernel beats torch.bmm on 16 x 512^3.

  python3 -m lab.experiments.tn_batched_sweep all [OUT_DIR]   # precompile, sweep, then ncu
  python3 -m lab.experiments.tn_batched_sweep precompile | sweep OUT.json | ncu OUT_DIR
  python3 -m lab.experiments.tn_batched_sweep ncu-launch      # the process ncu profiles

sweep: candidate TN kernels (block tiles 128x256 8x16, 256x128 16x8, 128x128 8x8; bk 8 / 16;
min_blocks; pad_a; stream-K on/off; the SASS pass on/off; FFMA orders; warp layouts; a grouped
tile order, "swz8") at 4096^3 and 8192^3, every kernel checked against torch's float64 result
on random data (C NaN-poisoned), then ROUNDS interleaved rounds over all variants of a size
(regtile variants, cuBLAS TN = torch.mm(A.t(), B), cuBLAS NN) of ITERS back-to-back launches
each, CUDA events on torch's stream, median per launch; TF32 off.  Batched NN candidates on
64 x 128^3, 16 x 512^3 and 8 x 1024x1024x64 the same way against torch.bmm.  torch.profiler
names the cuBLAS kernels.

ncu: Nsight Compute (--clock-control none; SpeedOfLight, Occupancy, ComputeWorkload,
MemoryWorkload, WarpStateStats, SchedulerStats, LaunchStats sections) on one call each of
regtile NN and TN (the kernels regtile.sgemm chooses) and cuBLAS NN and TN at 4096^3; raw
CSV to OUT_DIR, a short table printed.

"swz8" is an experiment-only monkeypatch of the PTX emitter's one-pass tile index (grid mode,
no stream-K): tiles in groups of 8 tile rows, column by column inside a group (the grouped
order of Triton's matmul tutorial), for L2 reuse of B; it is not in the package.
"""
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from . import program

from regtile.codegen.heuristic import choose_kernel
from regtile.codegen.layouts import with_layout
from regtile.codegen.presets import FAMILY, get_preset

CUBES = (4096, 8192)
BATCH_SHAPES = ((64, 128, 128, 128), (16, 512, 512, 512), (8, 1024, 1024, 64))
ROUNDS = 9
ITERS = {4096: 10, 8192: 4}
T0 = time.time()
BUDGET_S = float(os.environ.get("SWEEP_BUDGET_S", "280"))


def _force(cfg, **kw):
    """A config past validation's register rule (the estimate refuses it by a register or two):
    ptxas decides; a spill is recorded as the variant's error."""
    import dataclasses
    c = dataclasses.replace(cfg)
    for k, v in kw.items():
        object.__setattr__(c, k, v)
    return c


def tn_variants():
    """{label: (config, backend, swizzle)} of the TN sweep, and the NN choice for reference."""
    nn, be = choose_kernel(4096, 4096, 4096, "sm_90", 132, False, False)
    tn, _ = choose_kernel(4096, 4096, 4096, "sm_90", 132, True, False)
    wide = tn.replace(edge_split=False)
    out = {"NN choice": (nn, be, 0), "TN choice": (tn, be, 0)}
    out["TN no pass"] = (wide.replace(sass_pass=False), "ptx", 0)
    out["TN pad_a=0"] = (wide.replace(pad_a=0), "ptx", 0)
    out["TN no stream-K"] = (wide.replace(stream_k=False), "ptx", 0)
    out["TN no stream-K swz8"] = (wide.replace(stream_k=False), "ptx", 8)
    out["TN colzig"] = (wide.replace(ffma_order="colzig"), "ptx", 0)
    out["TN swirl"] = (wide.replace(ffma_order="swirl"), "ptx", 0)
    out["TN warps 2x4"] = (wide.replace(warps=(2, 4)), "ptx", 0)
    out["TN 128x256x16 no prefetch"] = (wide.replace(bk=16, pad_a=0, reg_prefetch=False), "ptx", 0)
    out["TN 128x256x16 forced"] = (_force(wide.replace(pad_a=0), bk=16), "ptx", 0)
    tall = with_layout(FAMILY["tall-256x128"].config, True, False)
    out["TN 256x128"] = (tall, "ptx", 0)
    out["TN 256x128x16 no prefetch"] = (tall.replace(bk=16, pad_a=0, reg_prefetch=False), "ptx", 0)
    sq = with_layout(FAMILY["sq-128x128"].config, True, False)
    out["TN 128x128 2/SM"] = (sq, "ptx", 0)
    out["TN 128x128x16 1/SM"] = (sq.replace(bk=16, pad_a=0, min_blocks=1), "ptx", 0)
    return out


def batched_variants():
    z = get_preset("zorder").config
    sq = with_layout(FAMILY["sq-128x128"].config, False, False, batched=True)
    out = {"128x128 (choice, no pass)": (sq, "ptx", 0),
           "128x128 +pass": (sq.replace(sass_pass=True), "ptx", 0),
           "128x128 +pass pad_a=0": (sq.replace(sass_pass=True, pad_a=0), "ptx", 0),
           "128x128x16 1/SM +pass": (sq.replace(sass_pass=True, bk=16, min_blocks=1), "ptx", 0),
           "128x256 +pass": (with_layout(FAMILY["wide-128x256"].config, False, False, batched=True)
                             .replace(sass_pass=True), "ptx", 0),
           "256x128 +pass": (with_layout(FAMILY["tall-256x128"].config, False, False, batched=True)
                             .replace(sass_pass=True), "ptx", 0),
           "64x64 (plain)": (with_layout(FAMILY["plain-64x64"].config, False, False, batched=True), "ptx", 0),
           "64x64 +pass": (with_layout(FAMILY["plain-64x64"].config, False, False, batched=True)
                           .replace(sass_pass=True), "ptx", 0),
           "zorder 128x128 (ptx)": (z.replace(batched=True), "ptx", 0)}
    return out


def all_variants():
    return {**{"tn/" + k: v for k, v in tn_variants().items()}, **{"b/" + k: v for k, v in batched_variants().items()}}


# ---- the grouped tile order (experiment only) ----------------------------------------------
def _patch_swizzle(group: int) -> None:
    """Make the PTX emitter's grid-mode kernels map block (x, y) to tiles in groups of `group`
    tile rows, column by column inside a group."""
    import regtile.codegen.emit_ptx as ep
    if getattr(ep._Kernel, "_orig_tv", None) is None:
        ep._Kernel._orig_tv = ep._Kernel.thread_values
    orig = ep._Kernel._orig_tv
    if not group:
        ep._Kernel.thread_values = orig
        return

    def thread_values(self):
        start = len(self.b.lines)
        orig(self)
        if self.prog.tiles != "grid":  # the kernel program names how a block finds its tile
            return
        lines = self.b.lines
        i = next(j for j in range(start, len(lines)) if f"mov.u32 {self.block_m}, %ctaid.y;" in lines[j])
        assert "%ctaid.x" in lines[i + 2], lines[i:i + 4]
        t = [self.b.temp(".b32") for _ in range(12)]
        bm, bn, cfg = self.block_m, self.block_n, self.cfg
        new = [f"mov.u32 {t[0]}, %nctaid.x;", f"mov.u32 {t[1]}, %nctaid.y;", f"mov.u32 {t[2]}, %ctaid.y;",
               f"mov.u32 {t[3]}, %ctaid.x;", f"mad.lo.u32 {t[4]}, {t[2]}, {t[0]}, {t[3]};",
               f"mul.lo.u32 {t[5]}, {t[0]}, {group};", f"div.u32 {t[6]}, {t[4]}, {t[5]};",
               f"rem.u32 {t[7]}, {t[4]}, {t[5]};", f"mul.lo.u32 {t[8]}, {t[6]}, {group};",
               f"sub.u32 {t[9]}, {t[1]}, {t[8]};", f"min.u32 {t[9]}, {t[9]}, {group};",
               f"rem.u32 {t[10]}, {t[7]}, {t[9]};", f"add.u32 {bm}, {t[8]}, {t[10]};",
               f"div.u32 {bn}, {t[7]}, {t[9]};",
               f"mul.lo.s32 {bm}, {bm}, {cfg.bm};", f"mul.lo.s32 {bn}, {bn}, {cfg.bn};"]
        lines[i:i + 4] = ["\t" + x for x in new]
    ep._Kernel.thread_values = thread_values


def _artifact(cfg, backend, swizzle):
    from regtile.codegen.emit import emit
    from regtile.runtime.compiler import check_spill_free, compile_source
    _patch_swizzle(swizzle)
    try:
        return check_spill_free(compile_source(emit(cfg, backend), "sm_90"), cfg)
    finally:
        _patch_swizzle(0)


def _compile(item):
    label, (cfg, backend, swizzle) = item
    t = time.time()
    try:
        art = _artifact(cfg, backend, swizzle)
        return label, dict(s=round(time.time() - t, 1), registers=art.resources.registers, ok=True)
    except Exception as e:  # noqa: BLE001 - a refused candidate is a result
        return label, dict(s=round(time.time() - t, 1), ok=False, error=f"{type(e).__name__}: {e}"[:400])


def precompile(out_dir=None):
    items = list(all_variants().items())
    with ProcessPoolExecutor(max_workers=min(16, os.cpu_count() or 4)) as ex:
        res = dict(ex.map(_compile, items))
    if out_dir:
        with open(os.path.join(out_dir, "precompile.json"), "w") as f:
            json.dump(res, f, indent=1)
    for k, v in res.items():
        print(f"compile {k:40s} {v}", flush=True)
    return res


# ---- timing ------------------------------------------------------------------------------
def _interleaved(torch, fns, rounds, iters):
    """{name: median ms} over `rounds` rounds, each timing every fn in turn (runtime/bench.py)."""
    import statistics
    from regtile.runtime.bench import interleaved_event_ms
    t = interleaved_event_ms(torch, fns, rounds, iters)
    return {k: statistics.median(v) for k, v in t.items()}, t


def _kernel_names(torch, fn):
    from . import device_kernels
    return sorted(device_kernels(torch, fn))


def _launch_of(label, cfg, backend, swizzle, m, n, k, a, lda, b, ldb, c, torch, batch=0, strides=(0, 0, 0)):
    from regtile.runtime import driver
    from regtile.runtime.sgemm_launch import SgemmLaunch, workspace_bytes
    kernel = driver.load(_artifact(cfg, backend, swizzle), label)
    ws = torch.empty(max(16, workspace_bytes(kernel, m, n, k)), dtype=torch.uint8, device="cuda")
    launch = SgemmLaunch(kernel, m, n, k, 1.0, a.data_ptr(), lda, b.data_ptr(), ldb, 0.0, c.data_ptr(), n,
                         ws.data_ptr(), batch=batch, strides=strides)
    launch._keep = ws
    return launch


def sweep(out_path):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    s = torch.cuda.current_stream().cuda_stream
    res = {"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "commit": os.environ.get("REGTILE_COMMIT", "?"), "torch": torch.__version__, "rounds": ROUNDS,
           "iters": ITERS, "layouts": [], "batched": [], "cublas_kernels": {}}

    def save():
        with open(out_path, "w") as f:
            json.dump(res, f, indent=1)
    for size in CUBES:
        m = n = k = size
        g = torch.Generator(device="cuda").manual_seed(size)
        a = torch.randn((k, m), device="cuda", generator=g)  # TN: A stored K x M; NN reads it as M x K
        b = torch.randn((k, n), device="cuda", generator=g)
        c = torch.empty((m, n), device="cuda")
        ct = torch.empty((m, n), device="cuda")
        refs = {"TN": a.t().double() @ b.double(), "NN": a.double() @ b.double()}
        fns, rows = {}, {}
        for label, (cfg, backend, swz) in tn_variants().items():
            row = {"variant": label, "size": size, "config": cfg.to_dict(), "backend": backend, "swizzle": swz}
            rows[label] = row
            try:
                launch = _launch_of(label, cfg, backend, swz, m, n, k, a, m if cfg.trans_a else k, b, n, c, torch)
                c.fill_(float("nan"))
                launch(s)
                torch.cuda.synchronize()
                ref = refs["TN" if cfg.trans_a else "NN"]
                err = float((c.double() - ref).norm() / ref.norm())
                row.update(rel_err=err, launches=launch.describe())
                if not err < 1e-5:
                    raise RuntimeError(f"rel err {err}")
                fns[label] = (lambda launch=launch: launch(s))
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"[:400]
                print(f"{size} {label}: {row['error']}", flush=True)
        del refs
        fns["cuBLAS TN"] = lambda: torch.mm(a.t(), b, out=ct)
        fns["cuBLAS NN"] = lambda: torch.mm(a, b, out=ct)
        res["cublas_kernels"][f"TN {size}^3"] = _kernel_names(torch, fns["cuBLAS TN"])
        res["cublas_kernels"][f"NN {size}^3"] = _kernel_names(torch, fns["cuBLAS NN"])
        med, raw = _interleaved(torch, fns, ROUNDS, ITERS[size])
        for label, row in rows.items():
            if label in med:
                ref_ms = med["cuBLAS NN" if label.startswith("NN") else "cuBLAS TN"]
                row.update(ms=med[label], rounds=raw[label], vs_cublas=ref_ms / med[label],
                           tflops=2 * m * n * k / med[label] / 1e9)
            res["layouts"].append(row)
        res["layouts"].append({"variant": "cuBLAS TN", "size": size, "ms": med["cuBLAS TN"], "rounds": raw["cuBLAS TN"]})
        res["layouts"].append({"variant": "cuBLAS NN", "size": size, "ms": med["cuBLAS NN"], "rounds": raw["cuBLAS NN"]})
        save()
        print(f"{size}^3 done at {time.time() - T0:.0f} s", flush=True)
        del a, b, c, ct, fns
        torch.cuda.empty_cache()
    for batch, m, n, k in BATCH_SHAPES:
        a = torch.randn((batch, m, k), device="cuda")
        b = torch.randn((batch, k, n), device="cuda")
        c = torch.empty((batch, m, n), device="cuda")
        ct = torch.empty((batch, m, n), device="cuda")
        ref = torch.bmm(a.double(), b.double())
        fns, rows = {}, {}
        for label, (cfg, backend, swz) in batched_variants().items():
            row = {"variant": label, "shape": f"{batch}x{m}x{n}x{k}", "config": cfg.to_dict()}
            rows[label] = row
            try:
                launch = _launch_of(label, cfg, backend, swz, m, n, k, a, k, b, n, c, torch, batch=batch,
                                    strides=(m * k, k * n, m * n))
                c.fill_(float("nan"))
                launch(s)
                torch.cuda.synchronize()
                err = float((c.double() - ref).norm() / ref.norm())
                row["rel_err"] = err
                if not err < 1e-5:
                    raise RuntimeError(f"rel err {err}")
                fns[label] = (lambda launch=launch: launch(s))
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"[:400]
        fns["torch.bmm"] = lambda: torch.bmm(a, b, out=ct)
        res["cublas_kernels"][f"bmm {batch}x{m}x{n}x{k}"] = _kernel_names(torch, fns["torch.bmm"])
        med, raw = _interleaved(torch, fns, 15, 20)
        for label, row in rows.items():
            if label in med:
                row.update(ms=med[label], rounds=raw[label], vs_cublas=med["torch.bmm"] / med[label])
            res["batched"].append(row)
        res["batched"].append({"variant": "torch.bmm", "shape": f"{batch}x{m}x{n}x{k}", "ms": med["torch.bmm"]})
        save()
    save()
    return res


def print_table(res):
    print("\n| size | variant | ms | x cuBLAS (same layout) | TFLOP/s | err |")
    for r in res["layouts"]:
        if "ms" in r and "vs_cublas" in r:
            print(f"| {r['size']} | {r['variant']} | {r['ms']:.4f} | {r['vs_cublas']:.3f} | {r['tflops']:.1f} | |")
        elif "ms" in r:
            print(f"| {r['size']} | {r['variant']} | {r['ms']:.4f} | | | |")
        else:
            print(f"| {r['size']} | {r['variant']} | | | | {r.get('error', '')[:90]} |")
    print("\n| shape | variant | ms | x torch.bmm |")
    for r in res["batched"]:
        if "vs_cublas" in r:
            print(f"| {r['shape']} | {r['variant']} | {r['ms']:.4f} | {r['vs_cublas']:.3f} |")
        elif "ms" in r:
            print(f"| {r['shape']} | {r['variant']} | {r['ms']:.4f} | |")
        else:
            print(f"| {r['shape']} | {r['variant']} | | {r.get('error', '')[:90]} |")
    print("cuBLAS kernels:", json.dumps(res["cublas_kernels"]))


# ---- Nsight Compute ------------------------------------------------------------------------
def ncu_launch():
    """One call each: regtile NN, regtile TN (the kernels choose_kernel picks), cuBLAS NN, cuBLAS
    TN at 4096^3.  Operands from numpy (copies, no kernels), so ncu sees only the GEMMs."""
    import numpy as np
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    size = 4096
    rng = np.random.default_rng(1)
    a = torch.from_numpy(rng.standard_normal((size, size), dtype=np.float32)).cuda()
    b = torch.from_numpy(rng.standard_normal((size, size), dtype=np.float32)).cuda()
    c = torch.empty((size, size), device="cuda")
    s = torch.cuda.current_stream().cuda_stream
    v = tn_variants()
    for label in ("NN choice", "TN choice"):
        cfg, backend, swz = v[label]
        launch = _launch_of(label, cfg, backend, swz, size, size, size, a, size, b, size, c, torch)
        launch(s)
        torch.cuda.synchronize()
    torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    torch.mm(a.t(), b, out=c)
    torch.cuda.synchronize()


SECTIONS = ("SpeedOfLight", "LaunchStats", "Occupancy", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis",
            "WarpStateStats", "SchedulerStats")
EXTRA = ("sm__inst_executed_pipe_fma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,"
         "lts__t_sector_hit_rate.pct,dram__bytes_read.sum,sm__cycles_elapsed.avg.per_second")
SHOW = (("dur us", "gpu__time_duration.sum", 1e-3), ("SM GHz", "sm__cycles_elapsed.avg.per_second", 1e-9),
        ("issue%", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
        ("fma pipe%", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1),
        ("FFMA inst", "sm__inst_executed_pipe_fma.sum", 1e-6),
        ("L2 hit%", "lts__t_sector_hit_rate.pct", 1),
        ("L2 thru%", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1),
        ("DRAM thru%", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1),
        ("DRAM MB", "dram__bytes_read.sum", 1e-6),
        ("occ%", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
        ("regs", "launch__registers_per_thread", 1), ("grid", "launch__grid_size", 1))
STALLS = ("lg_throttle", "mio_throttle", "barrier", "long_scoreboard", "short_scoreboard", "math_pipe_throttle",
          "not_selected", "wait", "dispatch_stall")


def ncu(out_dir):
    import csv
    rep = "/tmp/tn_ncu"
    base = ["ncu", "--clock-control", "none", "--target-processes", "all", "-o", rep, "-f"]
    for s in SECTIONS:
        base += ["--section", s]
    cmd_tail = [sys.executable, "-m", "lab.experiments.tn_batched_sweep", "ncu-launch"]
    left = BUDGET_S - (time.time() - T0) - 15
    log = open(os.path.join(out_dir, "ncu.log"), "w")
    for extra in (["--metrics", EXTRA], []):
        if left < 20:
            print("ncu: no time left", flush=True)
            return
        t = time.time()
        try:
            r = subprocess.run(base + extra + cmd_tail, stdout=log, stderr=subprocess.STDOUT, timeout=left)
            ok = r.returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
            print("ncu: timed out", flush=True)
        left -= time.time() - t
        if ok:
            break
    csv_path = os.path.join(out_dir, "ncu_raw.csv")
    with open(csv_path, "w") as f:
        subprocess.run(["ncu", "--import", rep + ".ncu-rep", "--csv", "--page", "raw"], stdout=f, stderr=log)
    with open(csv_path) as f:
        rows = list(csv.reader(f))
    if len(rows) < 3:
        print("ncu: no rows; see ncu.log", flush=True)
        return
    head, data = rows[0], rows[2:]
    col = {h: i for i, h in enumerate(head)}
    name_i = col.get("Kernel Name", col.get("kernel_name"))

    def num(r, key):
        try:
            return float(r[col[key]].replace(",", ""))
        except (KeyError, ValueError, IndexError):
            return None
    stall_cols = {s: next((h for h in head if f"issue_stalled_{s}_per_issue_active" in h), None) for s in STALLS}
    print("\nncu (4096^3, --clock-control none): " + " | ".join(x[0] for x in SHOW) + " | stalls per issue: "
          + " ".join(STALLS))
    for r in data:
        vals = [num(r, key) for _, key, _ in SHOW]
        txt = " | ".join("-" if v is None else f"{v * sc:.3g}" for v, (_, _, sc) in zip(vals, SHOW))
        st = " ".join("-" if not c else f"{num(r, c):.2f}" if num(r, c) is not None else "-"
                      for c in stall_cols.values())
        print(f"{r[name_i][:60]} | {txt} | {st}", flush=True)


def _run(argv):
    what = argv[0] if argv else "all"
    out_dir = argv[1] if len(argv) > 1 else os.environ.get("OUT", ".")
    if what == "precompile":
        precompile(out_dir)
    elif what == "sweep":
        print_table(sweep(argv[1] if len(argv) > 1 else "tn_batched_sweep.json"))
    elif what == "ncu":
        ncu(out_dir)
    elif what == "ncu-launch":
        ncu_launch()
    else:
        precompile(out_dir)
        print(f"precompiled at {time.time() - T0:.0f} s", flush=True)
        commit = os.environ.get("REGTILE_COMMIT", "x")
        res = sweep(os.path.join(out_dir, f"tn_batched_sweep_{commit}.json"))
        print(f"swept at {time.time() - T0:.0f} s", flush=True)
        try:
            ncu(out_dir)
        except Exception as e:  # noqa: BLE001 - the sweep's table still prints
            print(f"ncu failed: {type(e).__name__}: {e}", flush=True)
        print_table(res)


main = program(_run, "all [OUT_DIR] | precompile [OUT_DIR] | sweep OUT.json | ncu OUT_DIR | ncu-launch")

if __name__ == "__main__":
    sys.exit(main())
