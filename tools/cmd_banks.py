"""`regtile banks`: a warp's lanes over the thread tile, the banks each shared-memory
access of one k-slice touches, and the shared-memory bank model's totals (no GPU,
no compile).  --sass compiles and adds the register-bank analysis of the SASS."""
from __future__ import annotations

import json

from ..codegen.config import SgemmConfig
from ..codegen.plan import make_plan
from ..codegen.smem_banks import analyze as smem_analyze
from . import pictures, progress
from .options import (UsageError, add_kernel_args, add_totals_size_args, backend_from_args, check_sizes,
                      command_parser, config_from_args, fill_totals_sizes)


DESCRIPTION = """Text pictures of one warp's lanes over its warp tile and of the banks each
shared-memory store and fragment load of one k-slice touches (digit = distinct 4-byte words in that
bank: 1 is one wavefront, 2+ serialize), then the static model's wavefronts and bank conflicts for an M
x N x K problem in Nsight Compute's metric names. Run it on two presets to compare mappings (linear vs
zorder)."""
EXAMPLES = """examples:
  regtile banks --preset vec4
  regtile banks --preset zorder
  regtile banks --preset pad --kslice 3 --warp 1
  regtile banks --preset zorder --png zorder-banks.png   (needs matplotlib)
  regtile banks --preset zorder --sass                   (compiles; register banks too)"""


def register(sub) -> None:
    p = command_parser(sub, "banks", "draw a config's lane mapping and shared-memory banks; bank-conflict totals",
                       DESCRIPTION, EXAMPLES)
    add_kernel_args(p)
    p.add_argument("--kslice", type=int, default=0, help="k-slice whose fragment loads are drawn (default 0)")
    p.add_argument("--warp", type=int, default=0, help="warp of the block to draw (default 0)")
    add_totals_size_args(p)
    p.add_argument("--png", metavar="FILE", help="also draw the pictures into a PNG (needs matplotlib)")
    p.add_argument("--sass", action="store_true",
                   help="compile (NVRTC, no GPU) and add the register-bank analysis of the main loop and a "
                        "check of the model's LDS/STS widths against the SASS")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _sass_part(label, cfg, arch, report, backend: str) -> dict:
    from ..sass import banks as reg_banks
    from .artifacts import build
    with progress.task(f"compiling {label} for {arch} ({backend})"):
        built = build(label, cfg, arch, backend=backend)
    mix = built.loop_mix()
    sass_widths = {k: v for k, v in mix.items() if k.startswith(("LDS", "STS"))}
    return {"register_banks": reg_banks.analyze(built.sass, arch),
            "widths": {"model": report.instructions_per_ktile(), "sass_main_loop": sass_widths}}


def run(args) -> int:
    check_sizes(args)
    label, cfg = config_from_args(args)
    if not isinstance(cfg, SgemmConfig):
        raise UsageError(f"banks draws an SGEMM kernel's lanes and shared-memory tiles; {label} is an SGEMV "
                         f"kernel (no shared-memory tiles): try `regtile inspect` on it")
    fill_totals_sizes(args, sgemv=False)
    warps = cfg.threads // 32
    if not 0 <= args.warp < warps:
        raise UsageError(f"--warp {args.warp}: the block has warps 0..{warps - 1}")
    if cfg.stages and not 0 <= args.kslice < cfg.bk:
        raise UsageError(f"--kslice {args.kslice}: this config has k-slices 0..{cfg.bk - 1}")
    if args.png:
        from .outpaths import check_writable_file
        check_writable_file("--png", args.png)
    plan = make_plan(cfg)
    report = smem_analyze(plan, args.m, args.n, args.k)
    png = None
    if args.png:
        try:
            png = pictures.write_png(plan, args.png, args.kslice, args.warp, title=f"{label}: {cfg.describe()}")
        except pictures.PlotUnavailable as e:
            raise UsageError(str(e)) from None
    # a family member compiles on its own backend (the PTX members' stream-K, clamps and SASS pass have no CUDA C form)
    extra = _sass_part(label, cfg, args.arch, report, backend_from_args(args)) if args.sass else None
    if args.json:
        out = {"label": label, "config": cfg.to_dict(), "lane_grid": pictures.lane_grid(cfg, args.warp)[0],
               "smem_banks": report.to_dict()}
        if extra:
            out["register_banks"] = extra["register_banks"].to_dict()
            out["widths"] = extra["widths"]
        if png:
            out["png"] = png
        print(json.dumps(out, indent=2))
        return 0
    print(f"{label}: {cfg.describe()}")
    print()
    print(pictures.render_all(plan, args.kslice, args.warp))
    print()
    print(report.render_text())
    if extra:
        print()
        print(extra["register_banks"].render_text())
        w = extra["widths"]
        same = w["model"] == w["sass_main_loop"]
        print(f"\nshared-memory instructions per k-tile: model {w['model']}, SASS main loop {w['sass_main_loop']}"
              + ("" if same else "  <- differ: ptxas merged or split accesses, the model's wavefronts are for "
                                 "the plan's widths"))
    if png:
        print(f"\nwrote {png}")
    return 0
