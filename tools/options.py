"""Command-line flags shared by the subcommands: a kernel chosen by preset or by config flags."""
from __future__ import annotations

import argparse

from ..codegen.config import ConfigError, SgemmConfig, flat_fields
from ..codegen.edges import edge_config
from ..errors import InputError
from ..codegen.emit import BACKENDS
from ..codegen.hardware import DEFAULT_ARCH, SUPPORTED_ARCHS
from ..codegen.kernel import INT_MAX
from ..codegen.presets import FAMILY, all_preset_names, get_preset
from ..codegen.sgemv_config import SgemvConfig


class UsageError(InputError):
    """Bad command-line input: printed as one line, exit status 2."""


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def command_parser(sub, name: str, help: str, description: str, epilog: str) -> argparse.ArgumentParser:
    """One subcommand's parser (every cmd_*.py's register): its one-line `help`, its
    `description` (prose over several lines, printed as one paragraph) and its `epilog`
    (the examples, printed as written)."""
    return sub.add_parser(name, help=help, description=description.replace("\n", " "), epilog=epilog,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def switch_flags(parser: argparse.ArgumentParser) -> set:
    """The positive option strings (--sass-pass) of every on/off switch of the parser and
    its subcommands: the switches normalize_switches rewrites."""
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse.BooleanOptionalAction):
            found.update(o for o in action.option_strings if not o.startswith("--no-"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= switch_flags(sub)
    return found


def normalize_switches(argv, switches: set) -> list:
    """On/off config fields are switches, `--split-tile` / `--no-split-tile`, on every
    command.  The older `--split-tile true|false` (or `=true`) is still read, as the switch
    it means; any other word after a switch is refused, naming both forms."""
    out, i = [], 0
    argv = list(argv)
    while i < len(argv):
        tok = argv[i]
        flag, eq, value = tok.partition("=")
        if flag in switches:
            if not eq and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                value, eq = argv[i + 1], "="
                i += 1
            if eq:
                v = value.strip().lower()
                if v not in _TRUE + _FALSE:
                    raise UsageError(f"{flag} is a switch: write {flag} or --no-{flag[2:]} (got {value!r})")
                tok = flag if v in _TRUE else "--no-" + flag[2:]
        out.append(tok)
        i += 1
    return out


def _warps(s: str):
    try:
        m, n = (int(x) for x in s.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MxN (e.g. 4x2), got {s!r}") from None
    return (m, n)


_FLAG_TYPES = {"warps": _warps}
_EDGE = edge_config()
_HELP = {
    "bm": "block tile rows", "bn": "block tile columns", "bk": "k-step of the block tile",
    "tm": "thread tile rows", "tn": "thread tile columns", "warps": "warp layout MxN, e.g. 4x2",
    "mapping": "lane order inside a warp: linear or zorder", "split_tile": "thread tile in 4x4 pieces",
    "stages": "shared-memory stages: 0, 1, 2, or 3-4 (a cp.async ring, --backend ptx)", "a_transposed": "store A transposed in shared memory",
    "pad_a": "floats of padding per As row", "pad_b": "floats of padding per Bs row",
    "vec": "vector width of global and fragment loads: 1 or 4",
    "frag_regs": "hold fragments in registers", "min_blocks": "blocks per SM for __launch_bounds__ (caps registers)",
    "ffma_order": "FFMA order of a k-slice: zigzag, colzig, swirl, rowmajor", "reg_prefetch": "double-buffer fragments in registers",
    "sass_pass": "sm_90: rewrite the cubin with the SASS register-bank pass (FFMA order and register renaming so "
                 "that main-loop FFMAs read <= 1 uncached register per bank; sass/bank_pass.py)",
    "split_k": "split-K: K ranges over blockIdx.z (1..32), partials in an S x M x N workspace summed by a reduce "
               "kernel; for shapes whose M x N tiles leave SMs idle (default 1: one pass)",
    "stream_k": "PTX backend: whole waves of tiles, then the last partial wave's tiles in even K ranges over every "
                "SM, each split tile summed in K order by its first piece (codegen/streamk.py)",
    "edge_split": "PTX backend: where C's ragged edges leave padding tiles, this kernel takes the tile-aligned "
                  f"interior and a {_EDGE.bm}x{_EDGE.bn} stream-K kernel the bottom and right strips (codegen/edges.py)",
}


_SGEMV_HELP = {
    "rows_per_warp": "SGEMV rows per warp (1..32; 32/rows lanes a row)",
    "warps_per_block": "SGEMV warps per block", "unroll": "SGEMV vector loads in flight per lane",
}


def add_kernel_args(p: argparse.ArgumentParser, arch: bool = True, arch_from_device: bool = False,
                    backend: bool = False) -> None:
    """--preset NAME, or config flags (each overrides the preset's value when both are given).
    backend=True adds --backend cuda|ptx (read it with backend_from_args)."""
    g = p.add_argument_group("kernel", "a preset, and/or config fields (a flag overrides the preset's value)")
    g.add_argument("--preset", choices=all_preset_names(), metavar="NAME",
                   help=f"named config: {', '.join(all_preset_names())}")
    g.add_argument("--member", choices=tuple(FAMILY), metavar="NAME",
                   help="a member of the SGEMM shape family (codegen/presets.py FAMILY, the names `regtile run "
                        "--m --n --k` and the shape sweep print), on its own backend unless --backend is given")
    g.add_argument("--kernel", choices=("sgemm", "sgemv"), default=None,
                   help="kernel family for config flags without a preset (default sgemm)")
    for f in flat_fields():  # the three parts' fields, spelt flat
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):  # a switch: --split-tile / --no-split-tile (None: the preset's)
            g.add_argument(flag, dest=f"cfg_{f.name}", action=argparse.BooleanOptionalAction, default=None,
                           help=_HELP.get(f.name))
            continue
        typ = _FLAG_TYPES.get(f.name) or (str if f.name in ("mapping", "ffma_order") else int)
        g.add_argument(flag, dest=f"cfg_{f.name}", type=typ, default=None, metavar=f.name.upper(),
                       help=_HELP.get(f.name))
    gv = p.add_argument_group("sgemv kernel", "SGEMV config fields (--vec is shared)")
    for name, help_text in _SGEMV_HELP.items():
        gv.add_argument("--" + name.replace("_", "-"), dest=f"sv_{name}", type=int, default=None,
                        metavar=name.upper(), help=help_text)
    if backend:
        p.add_argument("--backend", choices=BACKENDS, default=None,
                       help="kernel text: cuda (CUDA C through NVRTC, default) or ptx (PTX from the same plan, "
                            "through nvJitLink; SGEMM with register fragments); fusedk: the fused split-K "
                            "kernel of the fused-* members (its own template)")
    if arch:
        p.add_argument("--arch", default=None if arch_from_device else DEFAULT_ARCH, choices=SUPPORTED_ARCHS,
                       help="target architecture (default: the GPU's)" if arch_from_device
                       else f"target architecture (default {DEFAULT_ARCH})")


def kernel_given(args: argparse.Namespace) -> bool:
    """A preset or any config flag on the command line (else a command may choose the kernel)."""
    return bool(args.preset) or bool(getattr(args, "member", None)) or any(v is not None for k, v in vars(args).items()
                                    if k.startswith(("cfg_", "sv_")))


def config_from_args(args: argparse.Namespace):
    """(name, config) from --preset and/or config flags; ConfigError when refused.
    The config is an SgemmConfig, or an SgemvConfig for sgemv presets / --kernel sgemv."""
    overrides = {k[4:]: v for k, v in vars(args).items() if k.startswith("cfg_") and v is not None}
    sv = {k[3:]: v for k, v in vars(args).items() if k.startswith("sv_") and v is not None}
    kind = getattr(args, "kernel", None)
    member = getattr(args, "member", None)
    if member:
        if args.preset:
            raise UsageError(f"--preset {args.preset} and --member {member}: choose one kernel")
        if sv or kind == "sgemv":
            raise UsageError(f"--member {member} is an SGEMM family member; SGEMV flags do not apply")
        base = FAMILY[member].config
        cfg = _override(base, overrides)
        return (member if cfg == base else member + "-custom"), cfg
    if args.preset:
        kind = "sgemv" if isinstance(get_preset(args.preset).config, SgemvConfig) else "sgemm"
        if getattr(args, "kernel", None) not in (None, kind):
            raise UsageError(f"--preset {args.preset} is an {kind} kernel, not --kernel {args.kernel}")
    elif kind is None:
        kind = "sgemv" if sv else "sgemm"
    if kind == "sgemv":
        return _sgemv_config(args, overrides, sv)
    if sv:
        raise UsageError(f"--{next(iter(sv)).replace('_', '-')} is an SGEMV flag; add --kernel sgemv "
                         f"or choose an sgemv preset")
    if args.preset:
        base = get_preset(args.preset).config
        cfg = _override(base, overrides)
        return (args.preset if cfg == base else args.preset + "-custom"), cfg
    if not overrides:
        raise UsageError("choose a kernel: --preset NAME or config flags (e.g. --bm 128 --bn 128 --tm 8 --tn 8)")
    if "warps" not in overrides:
        overrides["warps"] = None
    return "custom", SgemmConfig(**overrides)


def _override(base: SgemmConfig, overrides: dict) -> SgemmConfig:
    """The preset with the flags' fields.  A new tile size with the preset's warp layout
    that no longer fits it takes the default layout for the tile, unless --warps was given."""
    try:
        return base.replace(**overrides)
    except ConfigError as e:
        if "warps" in overrides or base.warps is None or "warps" not in str(e):
            raise
        return base.replace(**overrides, warps=None)


def backend_from_args(args: argparse.Namespace) -> str:
    """The --backend of a command that offers it; "cuda" for the others."""
    member = getattr(args, "member", None)
    return getattr(args, "backend", None) or (FAMILY[member].backend if member else "cuda")


def _sgemv_config(args, overrides: dict, sv: dict):
    vec = overrides.pop("vec", None)
    if overrides:
        flag = "--" + next(iter(overrides)).replace("_", "-")
        raise UsageError(f"{flag} is an SGEMM flag; SGEMV kernels take --rows-per-warp, --warps-per-block, "
                         f"--unroll and --vec")
    if vec is not None:
        sv["vec"] = vec
    if args.preset:
        base = get_preset(args.preset).config
        cfg = base.replace(**sv)
        return (args.preset if cfg == base else args.preset + "-custom"), cfg
    return "custom-sgemv", SgemvConfig(**sv)


TOTALS_SIZE = 4096


def add_totals_size_args(p: argparse.ArgumentParser) -> None:
    """--m/--n/--k of the problem the static analyses' totals are scaled to (None until
    fill_totals_sizes: an SGEMV kernel refuses a --k it would ignore)."""
    for dim in "mnk":
        p.add_argument(f"--{dim}", type=int, default=None,
                       help=f"problem {dim.upper()} for the analyses' totals (default {TOTALS_SIZE})"
                            + ("; SGEMM only" if dim == "k" else ""))


def fill_totals_sizes(args, sgemv: bool) -> None:
    """The analyses' sizes: --k refused for an SGEMV kernel (it has no K), defaults filled."""
    if sgemv and args.k is not None:
        raise UsageError(f"--k {args.k}: an SGEMV kernel has no K (y = alpha*A*x + beta*y, A is M x N); "
                         f"drop --k")
    check_sizes(args)
    for dim in "mnk":
        if getattr(args, dim) is None:
            setattr(args, dim, TOTALS_SIZE)


def check_size(flag: str, value) -> None:
    """A problem size: 1 .. INT_MAX (the kernels' M, N, K are 32-bit ints)."""
    if value is None:
        return
    if value < 1:
        raise UsageError(f"{flag} {value}: sizes must be >= 1")
    if value > INT_MAX:
        raise UsageError(f"{flag} {value}: sizes must be at most {INT_MAX} (the kernels take M, N and K "
                         f"as 32-bit ints)")


def check_sizes(args, dims: str = "mnk") -> None:
    for dim in dims:
        check_size(f"--{dim}", getattr(args, dim))
