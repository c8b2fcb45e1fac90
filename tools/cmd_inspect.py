"""`regtile inspect`: config, resources, the main loop's SASS mix, and the bank analyses."""
from __future__ import annotations

import importlib
import json

from ..codegen.config import SgemmConfig
from ..codegen.emit import describe
from ..codegen.plan import make_plan
from ..sass.disasm import listing as loop_listing
from .artifacts import Built, build
from . import progress
from .options import (UsageError, add_kernel_args, add_totals_size_args, backend_from_args, check_sizes,
                      command_parser, config_from_args, fill_totals_sizes)

SHOW = ("cuda", "ptx", "sass", "loop")
DESCRIPTION = """Compile one kernel (no GPU needed) and report: its config and launch geometry;
registers, spills, stack and shared memory (ptxas); the SASS instruction mix of the main loop (FFMA;
LDS, STS, LDG by width; BAR); and, where available, the shared-memory and register-bank analyses. --show
prints an artifact instead."""
EXAMPLES = """examples:
  regtile inspect --preset zorder
  regtile inspect --preset zorder --json
  regtile inspect --preset vec4 --m 2048 --n 2048 --k 2048
  regtile inspect --preset zorder --show sass
  regtile inspect --preset zorder --show cuda
  regtile inspect --preset zorder --backend ptx
  regtile inspect --preset zorder --compare-backends
  regtile inspect --preset zorder --min-blocks 1 --backend ptx --rank-orders
  regtile inspect --preset zorder --backend ptx --sass-pass
  regtile inspect --member wide-128x256 --show sass     (a shape-family member, as `regtile run` names it)
  regtile inspect --member fused-32x32                  (the fused split-K kernel)"""


def register(sub) -> None:
    p = command_parser(sub, "inspect", "show a kernel's config, resources, main-loop SASS mix and bank analyses",
                       DESCRIPTION, EXAMPLES)
    add_kernel_args(p, backend=True)
    add_totals_size_args(p)
    p.add_argument("--show", choices=SHOW, help="print one artifact: CUDA C, PTX, SASS, or the main loop's SASS "
                   "(offset, control code as CuAssembler writes it - [B waits : R read : W write scoreboard : yield "
                   ": S stall] - and the instruction) "
                                                "(with --backend ptx, ptx is the source as compiled; with --json, "
                                                "a JSON object whose 'text' is the artifact)")
    p.add_argument("--compare-backends", action="store_true",
                   help="SGEMM: build the config with both backends and print, side by side, resources, the main "
                        "loop's mix, how much of the planned FFMA order survived, and the SASS register maps "
                        "and register-bank conflicts")
    p.add_argument("--rank-orders", action="store_true",
                   help="SGEMM: build the config with each FFMA order (zigzag, colzig, swirl, rowmajor) on the "
                        "chosen backend and rank them by the register-bank model (bank-read bound, conflicts)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _optional(module: str):
    """An analysis module of the package, or None when this build has none."""
    try:
        return importlib.import_module(f"regtile.{module}")
    except ModuleNotFoundError:
        return None


# The shared-memory model (codegen/smem_banks.py) reads the kernel program's index functions; the fused split-K
# kernel is a template of its own (cp.async copies, A^T / B^T stage forms, B^T's swizzle), which it does not model.
FUSEDK_SMEM_NOTE = ("not modelled for the fused split-K kernel (backend fusedk: its own template, "
                    "codegen/emit_fusedk.py, whose copies are cp.async and whose B^T chunks are swizzled; "
                    "tests/codegen/test_fusedk.py checks the swizzle's bank groups)")


def analyses(built: Built, m: int, n: int, k: int) -> dict:
    out = {}
    smem = _optional("codegen.smem_banks")
    if smem is not None and isinstance(built.config, SgemmConfig) and built.backend != "fusedk":
        # the main loop's LDS/STS by width: the model follows ptxas's merges of scalar accesses
        out["smem_banks"] = smem.analyze(make_plan(built.config), m, n, k, built.loop_mix() or None)
    regs = _optional("sass.banks")
    if regs is not None:
        out["register_banks"] = regs.analyze(built.sass, built.artifact.arch)
    return out


def _compare_backends(args, label, cfg) -> int:
    from .backend_compare import plan_vs_sass, render_side_by_side
    if not isinstance(cfg, SgemmConfig):
        raise UsageError("--compare-backends compares the SGEMM backends; SGEMV has the CUDA C backend only")
    if args.show:
        raise UsageError("--compare-backends prints a report; drop --show (or use --backend with --show)")
    with progress.task(f"compiling {label} with both backends"):
        reports = [plan_vs_sass(build(label, cfg, args.arch, backend=b)) for b in ("cuda", "ptx")]
    if args.json:
        print(json.dumps({"label": label, "config": cfg.to_dict(), "arch": args.arch,
                          "backends": {r.backend: r.to_dict() for r in reports}}, indent=2))
    else:
        print(f"config    {cfg.describe()}")
        print(render_side_by_side(reports))
    return 0


def _rank_orders(args, label, cfg) -> int:
    from .backend_compare import ffma_order_variants, rank_ffma_orders, render_ranking
    if not isinstance(cfg, SgemmConfig):
        raise UsageError("--rank-orders ranks SGEMM FFMA orders; SGEMV has none")
    with progress.task(f"compiling {label} with each FFMA order"):
        ranked = rank_ffma_orders(label, cfg, args.arch, backend_from_args(args))
    refused = ffma_order_variants(cfg)[1]
    if args.json:
        print(json.dumps({"label": label, "arch": args.arch, "backend": backend_from_args(args),
                          "ranked": [r.to_dict() for r in ranked], "refused": refused}, indent=2))
    else:
        print(render_ranking(ranked))
        for order, why in refused.items():
            print(f"  {order:<10}refused by validation: {why.split(';')[0]}")
    return 0


def run(args) -> int:
    check_sizes(args)
    label, cfg = config_from_args(args)
    fill_totals_sizes(args, sgemv=not isinstance(cfg, SgemmConfig))
    if args.compare_backends and args.rank_orders:
        raise UsageError("--compare-backends and --rank-orders are separate reports; choose one")
    if args.rank_orders and args.show:
        raise UsageError("--rank-orders prints a ranking; drop --show")
    if args.compare_backends:
        return _compare_backends(args, label, cfg)
    if args.rank_orders:
        return _rank_orders(args, label, cfg)
    if args.show == "cuda" and backend_from_args(args) != "cuda":
        raise UsageError("--show cuda: the ptx backend has no CUDA C; use --show ptx")
    with progress.task(f"compiling {label} for {args.arch}"):
        built = build(label, cfg, args.arch, backend=backend_from_args(args))
    if args.show:
        text = {"cuda": built.source.text, "ptx": built.artifact.ptx, "sass": built.sass_text,
                "loop": loop_listing(built.sass.loop_instructions())}[args.show]
        if args.json:
            print(json.dumps({"label": label, "kernel": built.source.name, "arch": built.artifact.arch,
                              "backend": built.backend, "show": args.show, "text": text}, indent=2))
        else:
            print(text)
        return 0
    reports = analyses(built, args.m, args.n, args.k)
    summary = built.summary()
    survived = None
    if built.backend == "ptx":
        from .backend_compare import plan_vs_sass
        survived = plan_vs_sass(built)
    if args.json:
        summary["analyses"] = {name: r.to_dict() for name, r in reports.items()}
        if built.backend == "fusedk":
            summary["analyses"]["smem_banks"] = {"not_modelled": FUSEDK_SMEM_NOTE}
        if survived is not None:
            summary["plan_vs_sass"] = survived.to_dict()
        print(json.dumps(summary, indent=2))
        return 0
    res = built.artifact.resources
    geo = built.source.geometry
    print(f"kernel    {built.source.name}  ({label}, {built.artifact.arch}, {built.artifact.compiler})")
    print(f"config    {describe(cfg, built.backend)}")
    print(f"launch    block {geo.block}, grid {geo.describe()}, "
          f"{geo.dynamic_smem_bytes} bytes dynamic shared memory")
    if built.source.reduce is not None:
        red = summary["reduce"]
        rres = red["resources"]
        split_k = getattr(built.config, "split_k", None)  # SGEMM; an SGEMV's splits come from its plan
        what, grid, workspace = (
            ("split-K reduction", red['launch']['grid'], f"{split_k} x M x N floats") if split_k is not None else
            ("the splits' reduction, when the plan splits", "from the plan (runtime/gemv.py: outputs over outputs "
             "a block)", "splits x outputs floats"))
        print(f"then      {red['kernel']} ({what}, same module): block {tuple(red['launch']['block'])}, "
              f"grid {grid}, {rres['registers']} registers, "
              f"{'spill-free' if rres['spill_free'] else 'SPILLS'}; workspace {workspace}")
    if "edge" in summary:
        from ..codegen.edges import plan_for_source
        e = summary["edge"]
        eg = built.source.edge.geometry
        plan = plan_for_source(built.source, args.m, args.n)
        print(f"edges     {e['kernel']} (+ _ranges, same module): {eg.tile_m}x{eg.tile_n} stream-K, "
              f"{e['resources']['registers']} / {e['ranges_resources']['registers']} registers; "
              f"at M={args.m} N={args.n}: {plan.describe()}")
    print(f"resources {res.registers} registers, spill stores {res.spill_store_bytes} B, "
          f"spill loads {res.spill_load_bytes} B, stack frame {res.stack_frame_bytes} B, "
          f"barriers {res.barriers} -> {'spill-free' if res.spill_free else 'SPILLS'}")
    mix = summary["main_loop"]["instruction_mix"]
    expected = summary["main_loop"]["ffma_per_ktile_expected"]
    print(f"main loop {', '.join(f'{k} {v}' for k, v in mix.items()) or '(no loop found)'}")
    if expected is not None:
        print(f"          FFMA per iteration {mix.get('FFMA', 0)} (plan: {expected} per k-tile)")
    if built.backend == "fusedk":
        print()
        print(f"shared-memory banks: {FUSEDK_SMEM_NOTE}")
    for name, rep in reports.items():
        print()
        print(rep.render_text())
    if built.artifact.sass_pass is not None:
        print()
        print(built.artifact.sass_pass.render_text())
    if survived is not None:
        print()
        print(survived.render_text())
    return 0
