"""`regtile tune`: search the SGEMM config space for one shape on this GPU."""
from __future__ import annotations

import argparse
import json
import sys

from . import progress
from .options import UsageError, check_sizes, command_parser


DESCRIPTION = """Search z-order, double-buffered SGEMM configs for M x N x K (with split-K variants
where a config's grid covers at most half the SMs, CUDA C backend; with stream-K variants where its last
wave of tiles is partial, PTX backend): configs that validation refuses or that spill are dropped before
any timing; the rest compile in parallel processes and are timed on the GPU (method of `regtile run`),
up to --budget of them. Each result is stored on disk, one file per config and device, so adding configs
never retunes the others; regtile.sgemm then uses the best config for that shape. Needs a GPU."""
EXAMPLES = """examples:
  regtile tune --m 4096 --n 4096 --k 4096
  regtile tune --m 8192 --n 128 --k 8192 --budget 20 --json
  regtile tune --m 4096 --n 4096 --k 4096 --retime
  regtile tune --m 4096 --n 4096 --k 4096 --backend ptx --sass-pass"""


def register(sub) -> None:
    p = command_parser(sub, "tune", "autotune SGEMM for a shape: prune, compile in parallel, time on the GPU, keep the best",
                       DESCRIPTION, EXAMPLES)
    p.add_argument("--m", type=int, required=True, help="rows of A and C")
    p.add_argument("--n", type=int, required=True, help="columns of B and C")
    p.add_argument("--k", type=int, required=True, help="columns of A, rows of B")
    p.add_argument("--budget", type=int, default=24, help="configs to time at most (default 24)")
    p.add_argument("--repeat", type=int, default=10, help="timed launches per config (default 10)")
    p.add_argument("--jobs", type=int, default=None, help="parallel compile processes (default: CPU count)")
    p.add_argument("--backend", choices=("cuda", "ptx"), default="cuda",
                   help="search kernels of the CUDA C (default) or the PTX backend")
    p.add_argument("--sass-pass", action=argparse.BooleanOptionalAction, default=False,
                   help="every candidate rewritten by the SASS register-bank pass (sm_90; docs/sass-pass.md); "
                        "stored as configs of their own, so the best with and without the pass compete")
    p.add_argument("--retime", action="store_true", help="time configs already measured for this shape again")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args) -> int:
    check_sizes(args)
    if args.budget < 1 or args.repeat < 1:
        raise UsageError("--budget and --repeat must be >= 1")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: must be >= 1")
    from ..runtime import bench, driver, tuning_db
    from ..runtime.cache import cache_dir
    from ..runtime.cublas import require
    from .outpaths import check_writable_dir
    # refused before any compile or GPU work: where the results go, and the cuBLAS they are compared with
    check_writable_dir("tuning results (REGTILE_CACHE_DIR)", cache_dir() / "tuning")
    from .tune import candidate_configs, command_line, compile_all, prune_by_banks, search_order
    m, n, k = args.m, args.n, args.k
    dev = driver.device()
    require()
    if args.sass_pass and dev.arch != "sm_90":
        raise UsageError(f"--sass-pass: the SASS register-bank pass targets sm_90; this GPU is {dev.arch}")
    configs = search_order(candidate_configs(m, n, k, dev.sm_count, split_k=args.backend == "cuda",
                                             stream_k=args.backend == "ptx"), m, n, dev.sm_count)
    if args.sass_pass:
        configs = [c.replace(sass_pass=True) for c in configs]

    compiling = progress.Counter(len(configs), "compile")

    def compiled_one(i, total, c):
        compiling.i = i
        compiling.show("ok" if c.spill_free else ("error" if c.error else "spills"))

    compiled = compile_all(configs, dev.arch, args.jobs, compiled_one, backend=args.backend)
    compiling.done()
    survivors = prune_by_banks(compiled)
    todo = [c for c in survivors if args.retime or tuning_db.measured(dev.name, c.config, m, n, k, args.backend) is None]
    todo = todo[:args.budget]
    spill_free = sum(1 for c in compiled if c.spill_free)
    print(f"{len(configs)} configs, {spill_free} spill-free, {len(survivors)} after choosing each one's FFMA order "
          f"by the register-bank analysis, timing {len(todo)}", file=sys.stderr)
    work = bench.GemmWorkload(m, n, k)
    timing = progress.Counter(len(todo), "time")
    try:
        cres, blas = bench.measure_cublas(work, repeat=args.repeat, check=False)
        for i, c in enumerate(todo, 1):
            timing.step(c.config.describe()[:60])
            res, art = bench.measure_config(c.config, work, repeat=args.repeat, arch=dev.arch, backend=args.backend)
            entry = {"ms": res.ms, "tflops": res.tflops, "rel_err": res.rel_err, "ok": res.ok,
                     "registers": art.resources.registers, "cublas_ms": cres.ms}
            tuning_db.record(dev.name, c.config, m, n, k, entry, args.backend)
            timing.show(f"{res.tflops:.1f} TFLOP/s ({cres.ms / res.ms:.3f}x cuBLAS){'' if res.ok else ' WRONG'}")
    finally:
        timing.done()
        work.close()
    found = tuning_db.best(dev.name, m, n, k, args.backend)
    if found is None:
        raise UsageError("no config ran correctly for this shape")
    cfg, entry = found
    out = {"device": dev.name, "shape": [m, n, k], "best": cfg.to_dict(), "result": entry,
           "cublas_ms_this_run": cres.ms, "x_cublas": cres.ms / entry["ms"],
           "backend": args.backend,
           "command": f"regtile run {command_line(cfg)} --backend {args.backend} --m {m} --n {n} --k {k}"}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"best     {cfg.describe()}")
        print(f"time     {entry['ms']:.4f} ms, {entry['tflops']:.2f} TFLOP/s, {out['x_cublas']:.3f}x cuBLAS "
              f"({cres.ms:.4f} ms in this run)")
        print(f"rerun    {out['command']}")
    return 0
