"""`regtile bench`: the SGEMM ladder, a list of configs, or SGEMV shapes, against cuBLAS."""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import List, Optional

from ..codegen.presets import get_preset, preset_names
from . import progress
from .options import UsageError, check_size, command_parser
from .outpaths import check_writable_file
from .report import commit

DEFAULT_SIZES = (1024, 2048, 4096, 8192)
# The naive rung runs at about 5 TFLOP/s on the H100 (docs/ladder.md: 5.1 at 4096^3), so
# its time grows with the cube of the size: leave it out of a ladder row when its
# launches (warm-up, check and repeats) would take longer than this, and say so.
NAIVE_TFLOPS = 5.0
NAIVE_BUDGET_S = 30.0
WARMUP_AND_CHECK = 4  # bench.check_and_time: 3 warm-up launches and the checked one
SGEMV_SHAPES = ("16384x16", "16384x32", "16384x128", "1048576x16", "1048576x128", "16384x4096",
                "4096x16384", "65536x1024")


DESCRIPTION = """Time kernels against cuBLAS (true FP32) in one run, with the method of `regtile run`,
and print a markdown table (device, driver, date and commit in its header). Needs a GPU."""
EXAMPLES = """examples:
  regtile bench --ladder
  regtile bench --ladder --sizes 4096 --out docs/ladder.md
  regtile bench --presets zorder,zorder-256x128 --shapes 4096x4096x4096,8192x128x8192
  regtile bench --sgemv
  regtile bench --ladder --json"""


def register(sub) -> None:
    p = command_parser(sub, "bench", "benchmark the ladder (or configs, or SGEMV shapes) against cuBLAS on the GPU",
                       DESCRIPTION, EXAMPLES)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--ladder", action="store_true", help="every SGEMM preset, in ladder order")
    what.add_argument("--presets", help="comma-separated SGEMM presets")
    what.add_argument("--sgemv", action="store_true", help="the SGEMV presets and the seed's shapes")
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                   help="square sizes for SGEMM (default 1024,2048,4096,8192)")
    p.add_argument("--shapes", help="MxNxK list (SGEMM) or MxN list (SGEMV) instead of --sizes")
    p.add_argument("--repeat", type=int, default=10, help="timed launches per kernel (median; default 10)")
    p.add_argument("--backend", choices=("cuda", "ptx"), default="cuda",
                   help="build SGEMM kernels through the CUDA C (default) or the PTX backend")
    p.add_argument("--sass-pass", action=argparse.BooleanOptionalAction, default=False,
                   help="also time each SGEMM preset rewritten by the SASS register-bank pass (sm_90), "
                        "as rows 'NAME +pass'")
    p.add_argument("--tuned", action="store_true",
                   help="add a 'tuned' row per shape: the best config `regtile tune` stored for it on this GPU")
    p.add_argument("--ncu", metavar="FILE",
                   help="JSON {preset: {\"ld_conflicts\": n, \"st_conflicts\": n}} (or keys ld, st): Nsight "
                        "Compute shared-memory bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_"
                        "ld/st.sum) to show beside the times")
    p.add_argument("--out", metavar="FILE", help="also write the markdown table to FILE")
    p.add_argument("--json", action="store_true", help="print JSON rows instead of the table")
    p.set_defaults(handler=run)


def _parse_shapes(text: str, dims: int) -> List[tuple]:
    out = []
    for item in text.split(","):
        try:
            parts = tuple(int(x) for x in item.lower().split("x"))
        except ValueError:
            raise UsageError(f"shape {item!r}: expected {'MxNxK' if dims == 3 else 'MxN'} of integers") from None
        if len(parts) != dims or min(parts) < 1:
            raise UsageError(f"shape {item!r}: expected {dims} sizes >= 1")
        for dim, value in zip("MNK", parts):
            check_size(f"shape {item!r}: {dim}", value)
        out.append(parts)
    return out


def _parse_sizes(text: str) -> List[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--sizes {text!r}: expected comma-separated integers") from None
    if not sizes or min(sizes) < 1:
        raise UsageError(f"--sizes {text!r}: sizes must be >= 1")
    for size in sizes:
        check_size("--sizes", size)
    return sizes


def naive_skip_note(name: str, m: int, n: int, k: int, repeat: int) -> Optional[str]:
    """Why the naive rung is left out of this row, or None when it runs in the budget."""
    if name.split(" +")[0] != "naive":  # "naive +pass" too
        return None
    per_launch = 2.0 * m * n * k / (NAIVE_TFLOPS * 1e12)
    total = per_launch * (repeat + WARMUP_AND_CHECK)
    if total <= NAIVE_BUDGET_S:
        return None
    return (f"left out: naive at ~{NAIVE_TFLOPS:g} TFLOP/s takes ~{per_launch:.1f} s a launch, "
            f"~{total:.0f} s for {repeat + WARMUP_AND_CHECK} launches (budget {NAIVE_BUDGET_S:g} s)")


def load_ncu(path: str) -> dict:
    """{preset: {"ld": n, "st": n}} from a JSON file of Nsight Compute shared-memory bank
    conflicts; keys ld/st or ld_conflicts/st_conflicts.  UsageError when unreadable."""
    try:
        raw = json.loads(Path(path).read_text())
    except OSError as e:
        raise UsageError(f"--ncu {path}: cannot read it ({e.strerror or e})") from None
    except ValueError as e:
        raise UsageError(f"--ncu {path}: not JSON ({e})") from None
    if not isinstance(raw, dict):
        raise UsageError(f"--ncu {path}: expected a JSON object {{preset: {{ld_conflicts, st_conflicts}}}}, "
                         f"got {type(raw).__name__}")
    out = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict):
            raise UsageError(f"--ncu {path}: entry {name!r} is {type(entry).__name__}, expected "
                             f"{{\"ld_conflicts\": n, \"st_conflicts\": n}}")
        row = {}
        for short in ("ld", "st"):
            for key in (f"{short}_conflicts", short):
                if key in entry:
                    value = entry[key]
                    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                        raise UsageError(f"--ncu {path}: {name}.{key} = {value!r}, expected a count >= 0")
                    row[short] = value
                    break
        if not row:
            raise UsageError(f"--ncu {path}: entry {name!r} has neither ld_conflicts nor st_conflicts")
        out[name] = row
    return out


def header(dev) -> List[str]:
    return [f"Device: {dev.name} ({dev.arch}, {dev.sm_count} SMs), driver {dev.driver_version}. "
            f"Date: {datetime.date.today().isoformat()}. Commit: {commit()}.",
            "Method: fresh random inputs, NaN-poisoned C checked fully written, error against float64; "
            "CUDA-event median over repeats after warm-up, rotating buffer sets (L2 not flattering); "
            "cuBLAS in pedantic FP32 (no TF32) timed in the same process the same way."]


def run(args) -> int:
    if args.repeat < 1:
        raise UsageError(f"--repeat {args.repeat}: must be >= 1")
    if args.out:
        check_writable_file("--out", args.out)  # before the benchmark, not after it
    if args.sgemv:
        if args.backend != "cuda":
            raise UsageError("--backend ptx builds SGEMM kernels only; SGEMV kernels come from the CUDA C backend")
        return _run_sgemv(args)
    names = preset_names() if args.ladder else [n.strip() for n in args.presets.split(",") if n.strip()]
    for n in names:
        get_preset(n)
    shapes = _parse_shapes(args.shapes, 3) if args.shapes else [(s, s, s) for s in _parse_sizes(args.sizes)]
    ncu = load_ncu(args.ncu) if args.ncu else {}
    unmatched = sorted(set(ncu) - set(names))
    if unmatched:
        print(f"regtile: note: --ncu rows for kernels not benched here: {', '.join(unmatched)}",
              file=sys.stderr)
    from ..runtime import bench, driver
    from ..runtime.cublas import require
    dev = driver.device()
    require()  # the cuBLAS rows: refused here, before any GPU work
    peak = bench.peak_tflops(dev.name)
    rows = []
    per_shape = 1 + len(names) * (2 if args.sass_pass else 1) + (1 if args.tuned else 0)
    bar = progress.Counter(len(shapes) * per_shape, "bench")
    for (m, n, k) in shapes:
        work = bench.GemmWorkload(m, n, k)
        try:
            bar.step(f"{m}x{n}x{k} cuBLAS")
            cres, blas = bench.measure_cublas(work, repeat=args.repeat, check=False)
            rows.append({"kernel": "cuBLAS", "m": m, "n": n, "k": k, "ms": cres.ms, "tflops": cres.tflops,
                         "pct_peak": 100 * cres.tflops / peak if peak else None, "x_cublas": 1.0,
                         "registers": None, "rel_err": None, "ok": None, "note": blas.describe()})
            kernels = [(name, get_preset(name).config) for name in names]
            if args.sass_pass:
                kernels += [(f"{name} +pass", get_preset(name).config.replace(sass_pass=True)) for name in names]
            if args.tuned:
                from ..runtime.tuning_db import best
                found = best(dev.name, m, n, k, args.backend)
                if found:
                    kernels.append(("tuned", found[0]))
                else:
                    rows.append({"kernel": "tuned", "m": m, "n": n, "k": k,
                                 "note": "no tuned config for this shape: run regtile tune"})
            for name, cfg in kernels:
                bar.step(f"{m}x{n}x{k} {name}")
                note = naive_skip_note(name, m, n, k, args.repeat)
                if note:
                    rows.append({"kernel": name, "m": m, "n": n, "k": k, "note": note})
                    continue
                res, art = bench.measure_config(cfg, work, repeat=args.repeat, arch=dev.arch, backend=args.backend)
                rows.append({"kernel": name if args.backend == "cuda" else f"{name} (ptx)", "m": m, "n": n, "k": k,
                             "ms": res.ms, "tflops": res.tflops,
                             "pct_peak": 100 * res.tflops / peak if peak else None, "x_cublas": cres.ms / res.ms,
                             "registers": art.resources.registers, "rel_err": res.rel_err, "ok": res.ok,
                             "smem_conflicts": ncu.get(name),
                             **({"conflict_share_before": art.sass_pass.to_dict()["conflict_share_before"],
                                 "conflict_share_after": art.sass_pass.to_dict()["conflict_share_after"]}
                                if art.sass_pass is not None else {}),
                             "note": cfg.describe() if name == "tuned" else ""})
        finally:
            work.close()
    bar.done()
    return _report(args, dev, rows, lambda: _table(rows, dev))


def _count(v) -> str:
    if v is None:
        return "-"
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,.1f}"


def _fmt(v, spec):
    return "" if v is None else format(v, spec)


def _table(rows, dev) -> str:
    lines = header(dev) + ["", "| kernel | M x N x K | ms | TFLOP/s | % FFMA peak | x cuBLAS | regs | rel. error | "
                               "smem conflicts ld/st (ncu) | note |",
                           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        sc = r.get("smem_conflicts")
        sc_text = f"{_count(sc.get('ld'))}/{_count(sc.get('st'))}" if isinstance(sc, dict) else ""
        lines.append(f"| {r['kernel']} | {r['m']}x{r['n']}x{r['k']} | {_fmt(r.get('ms'), '.3f')} | "
                     f"{_fmt(r.get('tflops'), '.1f')} | {_fmt(r.get('pct_peak'), '.1f')} | "
                     f"{_fmt(r.get('x_cublas'), '.3f')} | {_fmt(r.get('registers'), 'd')} | "
                     f"{_fmt(r.get('rel_err'), '.1e')} | {sc_text} | {r.get('note', '')} |")
    return "\n".join(lines)


def _run_sgemv(args) -> int:
    from ..codegen.presets import sgemv_preset_names
    from ..codegen.sgemv_config import config_for_shape
    from ..runtime import bench, driver
    from ..runtime.compiler import compile_config
    from ..runtime.cublas import require, shared
    shapes = _parse_shapes(args.shapes or ",".join(SGEMV_SHAPES), 2)
    dev = driver.device()
    require()
    rows = []
    bar = progress.Counter(len(shapes), "bench")
    for (m, n) in shapes:
        bar.step(f"{m}x{n}")
        work = bench.GemvWorkload(m, n)
        try:
            blas = shared(int(work.stream.handle))
            c = bench.check_and_time_gemv(bench.gemv_cublas_launcher(blas, work, 1.0, 0.0), work, 1.0, 0.0,
                                          args.repeat * 5, check=False)
            rows.append({"kernel": "cuBLAS", "m": m, "n": n, "us": c["us"], "gbps": c["gbps"], "x_cublas": 1.0,
                         "note": blas.describe()})
            cands = [("auto", config_for_shape(m, n))]
            cands += [(p, get_preset(p).config) for p in sgemv_preset_names()
                      if p == f"sgemv-n{n}" or (p == "sgemv-n128" and n >= 128)]
            for label, cfg in cands:
                kernel = driver.load(compile_config(cfg, dev.arch), label)
                r = bench.check_and_time_gemv(bench.gemv_kernel_launcher(kernel, work, 1.0, 0.0, cfg), work, 1.0, 0.0,
                                              args.repeat * 5)
                rows.append({"kernel": label, "m": m, "n": n, "us": r["us"], "gbps": r["gbps"],
                             "pct_copy": bench.pct_of_copy(dev.name, r["gbps"]), "x_cublas": c["ms"] / r["ms"],
                             "rel_err": r["rel_err"], "ok": r["ok"],
                             "mbytes": work.bytes_moved(0.0) / 1e6, "note": cfg.describe()})
        finally:
            work.close()
    bar.done()
    return _report(args, dev, rows, lambda: _sgemv_table(rows, dev))


def _sgemv_table(rows, dev) -> str:
    lines = header(dev) + ["", "| kernel | M x N | MB moved | us | GB/s | % copy BW | x cuBLAS | rel. error | "
                               "config |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['m']}x{r['n']} | {_fmt(r.get('mbytes'), '.1f')} | "
                     f"{_fmt(r.get('us'), '.1f')} | {_fmt(r.get('gbps'), '.0f')} | {_fmt(r.get('pct_copy'), '.1f')} | "
                     f"{_fmt(r.get('x_cublas'), '.3f')} | {_fmt(r.get('rel_err'), '.1e')} | {r.get('note', '')} |")
    return "\n".join(lines)


def _report(args, dev, rows, table) -> int:
    """Print the rows as JSON or as the markdown table (also into --out); exit 1
    when any kernel computed a wrong result."""
    if args.json:
        print(json.dumps({"device": dev.name, "driver": dev.driver_version, "commit": commit(), "rows": rows},
                         indent=2))
    else:
        text = table()
        print(text)
        if args.out:
            try:
                Path(args.out).write_text(text + "\n")
            except OSError as e:
                raise UsageError(f"--out {args.out}: cannot write ({e.strerror or e}); the table is printed above") \
                    from None
    return 0 if all(r.get("ok") in (None, True) for r in rows) else 1
