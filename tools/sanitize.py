"""Launch every preset once at small and edge sizes, for compute-sanitizer.

On a machine with a GPU (`regtile sanitize`; `python3 -m regtile.tools.sanitize` is the same):
    compute-sanitizer --tool memcheck  --error-exitcode 9 regtile sanitize
    compute-sanitizer --tool racecheck --error-exitcode 9 regtile sanitize
Each launch is also checked against float64 (every element written), so a run
that the sanitizer passes is a run that computed the right thing.  `--backend`
picks the CUDA C (default) or PTX backend where the build has one; `--sass-pass` runs the
SGEMM presets as rewritten by the SASS register-bank pass; `--split-k S` runs the SGEMM
presets as split-K kernels (partial kernel and reduction; CUDA C backend); `--auto` adds
the kernels regtile.sgemm / regtile.sgemv pick when nothing is tuned (the SGEMV shape
rule per size: row groups, several warps a row; on sm_90 the PTX 128x256 kernel with the
SASS pass).

Sizes: `--sizes small` is the original set (every dimension odd: the vector paths fall
back to scalar code there); `edge` adds sizes whose rows are 16-byte aligned, so the
float4 global loads and stores run, at exact tile multiples, partial tiles and a K tail;
`all` (default) is both.
"""
from __future__ import annotations

import argparse
import sys

SGEMM_SIZES = ((1, 1, 1), (7, 33, 5), (129, 127, 65), (257, 255, 33))
# Rows 16-byte aligned (N, K multiples of 4): vector paths taken.  256x256x16: every
# preset's tiles exactly (no bounds checks hit); 260x252x36: partial last block-row and
# -column and a K tail (36 = 4 k-tiles of 8 + 4) under the vector paths; 4x4x4: a single
# partial tile with vector rows.
SGEMM_EDGE_SIZES = ((4, 4, 4), (256, 256, 16), (260, 252, 36))
SGEMV_SIZES = ((1, 1), (33, 7), (129, 130), (257, 16))
# Aligned rows; 64x4096 gives the shape rule's several warps a row (shared-memory sums),
# 1028x128 several row groups a warp.
SGEMV_EDGE_SIZES = ((64, 4096), (1028, 128), (4, 4))


def _sizes(which: str, small, edge):
    return {"small": small, "edge": edge, "all": small + edge}[which]


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", default="cuda", choices=("cuda", "ptx"))
    p.add_argument("--presets", help="comma-separated presets (default: all)")
    p.add_argument("--sass-pass", action=argparse.BooleanOptionalAction, default=False,
                   help="SGEMM presets rewritten by the SASS register-bank pass (sm_90; SGEMV skipped)")
    p.add_argument("--split-k", type=int, default=1, metavar="S",
                   help="SGEMM presets as split-K kernels with S K ranges (CUDA C backend; SGEMV skipped)")
    p.add_argument("--auto", action="store_true",
                   help="also the kernels regtile.sgemm/sgemv choose when nothing is tuned")
    p.add_argument("--sizes", default="all", choices=("small", "edge", "all"),
                   help="small: odd sizes (scalar paths); edge: aligned rows, whole and partial tiles; all (default)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.tools.sanitize", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_args(p)
    return run(p.parse_args(argv))


def run(args) -> int:
    from ..codegen.config import ConfigError
    from ..codegen.presets import all_preset_names, get_preset
    from ..codegen.sgemv_config import SgemvConfig, config_for_shape
    from ..runtime import bench, driver
    from ..runtime.compiler import compile_source
    from ..codegen.emit import emit
    sgemm_sizes = _sizes(args.sizes, SGEMM_SIZES, SGEMM_EDGE_SIZES)
    sgemv_sizes = _sizes(args.sizes, SGEMV_SIZES, SGEMV_EDGE_SIZES)
    names = args.presets.split(",") if args.presets else list(all_preset_names())
    arch = driver.device().arch
    bad = launches = 0

    def load(label, cfg, backend):
        try:
            src = emit(cfg, backend=backend)
        except Exception as e:  # a config this backend refuses
            print(f"{label}: skipped on the {backend} backend ({e})")
            return None
        return driver.load(compile_source(src, arch), label)

    def run_sgemm(label, kernel, sizes):
        nonlocal bad, launches
        for m, n, k in sizes:
            work = bench.GemmWorkload(m, n, k, sets=1)
            try:
                r = bench.check_and_time(bench.kernel_launcher(kernel, work, 0.5, 0.25), work, 0.5, 0.25, repeat=0)
            finally:
                work.close()
            bad += not r.ok
            launches += 1
            print(f"{label} {m}x{n}x{k}: {'ok' if r.ok else 'WRONG'}", flush=True)

    def run_sgemv(label, kernel, cfg, m, n):
        nonlocal bad, launches
        work = bench.GemvWorkload(m, n, sets=1)
        try:
            r = bench.check_and_time_gemv(bench.gemv_kernel_launcher(kernel, work, 0.5, 0.25, cfg), work, 0.5, 0.25,
                                          repeat=0)
        finally:
            work.close()
        bad += not r["ok"]
        launches += 1
        print(f"{label} {m}x{n}: {'ok' if r['ok'] else 'WRONG'}", flush=True)

    for name in names:
        cfg = get_preset(name).config
        if isinstance(cfg, SgemvConfig):
            if args.sass_pass or args.split_k > 1 or args.backend != "cuda":
                continue  # the pass, split-K and the PTX backend are SGEMM only
            kernel = load(name, cfg, "cuda")
            for m, n in sgemv_sizes:
                run_sgemv(name, kernel, cfg, m, n)
            continue
        if args.sass_pass:
            cfg = cfg.replace(sass_pass=True)
        if args.split_k > 1:
            try:
                cfg = cfg.replace(split_k=args.split_k)
            except ConfigError as e:  # a preset that cannot split (the naive 1x1 thread tile): say so, go on
                print(f"{name}: skipped, {e}", flush=True)
                continue
        kernel = load(name, cfg, args.backend)
        if kernel is not None:
            run_sgemm(name, kernel, sgemm_sizes)
    if args.auto:
        if args.backend == "cuda" and not args.sass_pass and args.split_k == 1:
            for m, n in sgemv_sizes:
                cfg = config_for_shape(m, n)
                run_sgemv(f"sgemv-auto[{cfg.describe()}]", load("sgemv-auto", cfg, "cuda"), cfg, m, n)
        from ..runtime.choice import default_sgemm_kernel
        cfg, backend = default_sgemm_kernel(10**6, 10**6, arch, driver.device().sm_count)
        if backend == args.backend:
            kernel = load("sgemm-default", cfg, backend)
            if kernel is not None:
                run_sgemm(f"sgemm-default[{backend}, {cfg.describe()}]", kernel, sgemm_sizes)
    print(f"{launches} launches, {bad} wrong results")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
