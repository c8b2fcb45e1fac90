"""`regtile sanitize`: every preset launched once at small and edge sizes, each checked
against float64, for compute-sanitizer (tools/sanitize.py)."""
from __future__ import annotations

from . import sanitize
from .options import UsageError, command_parser


DESCRIPTION = """Launch every preset once at small sizes (odd dimensions: scalar paths) and edge sizes
(aligned rows: float4 paths at whole and partial tiles), each checked against float64. Run it under
compute-sanitizer (memcheck, racecheck, initcheck, synccheck). Needs a GPU. Exit status 1 when any
result is wrong."""
EXAMPLES = """examples:
  compute-sanitizer --tool memcheck --error-exitcode 9 regtile sanitize
  compute-sanitizer --tool racecheck --error-exitcode 9 regtile sanitize --backend ptx
  regtile sanitize --presets zorder,sgemv-n128 --sizes edge --auto"""


def register(sub) -> None:
    p = command_parser(sub, "sanitize", "launch every preset at small and edge sizes, for compute-sanitizer (GPU)",
                       DESCRIPTION, EXAMPLES)
    sanitize.add_args(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from ..codegen.presets import get_preset
    if args.presets:
        for name in args.presets.split(","):
            get_preset(name)  # an unknown name refused before any GPU work
    if args.split_k < 1:
        raise UsageError(f"--split-k {args.split_k}: must be >= 1")
    return sanitize.run(args)
