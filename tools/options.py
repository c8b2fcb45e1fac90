"""Command-line flags shared by the subcommands: a kernel chosen by preset or by config flags."""
from __future__ import annotations

import argparse
import dataclasses

from ..codegen.config import SgemmConfig
from ..codegen.hardware import DEFAULT_ARCH, SUPPORTED_ARCHS
from ..codegen.presets import get_preset, preset_names


class UsageError(ValueError):
    """Bad command-line input: printed as one line, exit status 2."""


def _bool(s: str) -> bool:
    v = s.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {s!r}")


def _warps(s: str):
    try:
        m, n = (int(x) for x in s.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MxN (e.g. 4x2), got {s!r}") from None
    return (m, n)


_FLAG_TYPES = {"warps": _warps}
_HELP = {
    "bm": "block tile rows", "bn": "block tile columns", "bk": "k-step of the block tile",
    "tm": "thread tile rows", "tn": "thread tile columns", "warps": "warp layout MxN, e.g. 4x2",
    "mapping": "lane order inside a warp: linear or zorder", "split_tile": "thread tile in 4x4 pieces",
    "stages": "shared-memory stages: 0, 1 or 2", "a_transposed": "store A transposed in shared memory",
    "pad_a": "floats of padding per As row", "pad_b": "floats of padding per Bs row",
    "vec": "vector width of global and fragment loads: 1 or 4",
    "frag_regs": "hold fragments in registers", "min_blocks": "blocks per SM for __launch_bounds__ (caps registers)", "reg_prefetch": "double-buffer fragments in registers",
}


def add_kernel_args(p: argparse.ArgumentParser, arch: bool = True) -> None:
    """--preset NAME, or config flags (each overrides the preset's value when both are given)."""
    g = p.add_argument_group("kernel", "a preset, and/or config fields (a flag overrides the preset's value)")
    g.add_argument("--preset", choices=preset_names(), metavar="NAME",
                   help=f"named config: {', '.join(preset_names())}")
    for f in dataclasses.fields(SgemmConfig):
        flag = "--" + f.name.replace("_", "-")
        typ = _FLAG_TYPES.get(f.name) or (_bool if f.type in ("bool", bool) else
                                          str if f.name == "mapping" else int)
        g.add_argument(flag, dest=f"cfg_{f.name}", type=typ, default=None, metavar=f.name.upper(),
                       help=_HELP.get(f.name))
    if arch:
        p.add_argument("--arch", default=DEFAULT_ARCH, choices=SUPPORTED_ARCHS,
                       help=f"target architecture (default {DEFAULT_ARCH})")


def config_from_args(args: argparse.Namespace):
    """(name, SgemmConfig) from --preset and/or config flags; ConfigError when refused."""
    overrides = {k[4:]: v for k, v in vars(args).items() if k.startswith("cfg_") and v is not None}
    if args.preset:
        base = get_preset(args.preset).config
        name = args.preset
        if overrides:
            return name + "-custom", base.replace(**overrides)
        return name, base
    if not overrides:
        raise UsageError("choose a kernel: --preset NAME or config flags (e.g. --bm 128 --bn 128 --tm 8 --tn 8)")
    if "warps" not in overrides:
        overrides["warps"] = None
    return "custom", SgemmConfig(**overrides)
