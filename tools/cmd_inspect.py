"""`regtile inspect`: config, resources, the main loop's SASS mix, and the bank analyses."""
from __future__ import annotations

import argparse
import importlib
import json

from ..codegen.config import SgemmConfig
from ..codegen.plan import make_plan
from .artifacts import Built, build
from .options import add_kernel_args, add_totals_size_args, check_sizes, config_from_args

SHOW = ("cuda", "ptx", "sass", "loop")


def register(sub) -> None:
    p = sub.add_parser(
        "inspect", help="show a kernel's config, resources, main-loop SASS mix and bank analyses",
        description="Compile one kernel (no GPU needed) and report: its config and launch geometry; "
                    "registers, spills, stack and shared memory (ptxas); the SASS instruction mix of the "
                    "main loop (FFMA; LDS, STS, LDG by width; BAR); and, where available, the "
                    "shared-memory and register-bank analyses. --show prints an artifact instead.",
        epilog="examples:\n  regtile inspect --preset zorder\n  regtile inspect --preset zorder --json\n"
               "  regtile inspect --preset vec4 --m 2048 --n 2048 --k 2048\n"
               "  regtile inspect --preset zorder --show sass\n  regtile inspect --preset zorder --show cuda",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_kernel_args(p)
    add_totals_size_args(p)
    p.add_argument("--show", choices=SHOW, help="print one artifact: CUDA C, PTX, SASS, or the main loop's SASS")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _optional(module: str):
    """An analysis module of the package, or None when this build has none."""
    try:
        return importlib.import_module(f"regtile.{module}")
    except ModuleNotFoundError:
        return None


def analyses(built: Built, m: int, n: int, k: int) -> dict:
    out = {}
    smem = _optional("codegen.smem_banks")
    if smem is not None and isinstance(built.config, SgemmConfig):
        # the main loop's LDS/STS by width: the model follows ptxas's merges of scalar accesses
        out["smem_banks"] = smem.analyze(make_plan(built.config), m, n, k, built.loop_mix() or None)
    regs = _optional("runtime.reg_banks")
    if regs is not None:
        out["register_banks"] = regs.analyze(built.sass, built.artifact.arch)
    return out


def run(args) -> int:
    check_sizes(args)
    label, cfg = config_from_args(args)
    built = build(label, cfg, args.arch)
    if args.show:
        print({"cuda": built.source.text, "ptx": built.artifact.ptx, "sass": built.sass_text,
               "loop": "\n".join(i.text for i in built.sass.loop_instructions())}[args.show])
        return 0
    reports = analyses(built, args.m, args.n, args.k)
    summary = built.summary()
    if args.json:
        summary["analyses"] = {name: r.to_dict() for name, r in reports.items()}
        print(json.dumps(summary, indent=2))
        return 0
    res = built.artifact.resources
    geo = built.source.geometry
    print(f"kernel    {built.source.name}  ({label}, {built.artifact.arch}, {built.artifact.compiler})")
    print(f"config    {cfg.describe()}")
    print(f"launch    block {geo.block}, grid {geo.describe()}, "
          f"{geo.dynamic_smem_bytes} bytes dynamic shared memory")
    print(f"resources {res.registers} registers, spill stores {res.spill_store_bytes} B, "
          f"spill loads {res.spill_load_bytes} B, stack frame {res.stack_frame_bytes} B, "
          f"barriers {res.barriers} -> {'spill-free' if res.spill_free else 'SPILLS'}")
    mix = summary["main_loop"]["instruction_mix"]
    expected = summary["main_loop"]["ffma_per_ktile_expected"]
    print(f"main loop {', '.join(f'{k} {v}' for k, v in mix.items()) or '(no loop found)'}")
    if expected is not None:
        print(f"          FFMA per iteration {mix.get('FFMA', 0)} (plan: {expected} per k-tile)")
    for name, rep in reports.items():
        print()
        print(rep.render_text())
    return 0
