"""`regtile presets`: every named config: the SGEMM seed ladder, in order, then the SGEMV kernels."""
from __future__ import annotations

import json

from ..codegen.emit import kernel_kind
from ..codegen.presets import all_preset_names, get_preset
from .options import command_parser


DESCRIPTION = """List every named config that --preset accepts: the optimisation ladder of the seeds
(SGEMM), in order, then the shape-specialised SGEMV kernels."""
EXAMPLES = """examples:
  regtile presets
  regtile presets --json"""


def register(sub) -> None:
    p = command_parser(sub, "presets", "list the named configs (the SGEMM ladder in order, then SGEMV)",
                       DESCRIPTION, EXAMPLES)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args) -> int:
    presets = [get_preset(n) for n in all_preset_names()]
    if args.json:
        print(json.dumps([{"name": p.name, "kind": kernel_kind(p.config), "summary": p.summary,
                           "config": p.config.to_dict()} for p in presets], indent=2))
        return 0
    width = max(len(p.name) for p in presets)
    kind = None
    for p in presets:
        if kernel_kind(p.config) != kind:
            kind = kernel_kind(p.config)
            print(f"{'' if kind == 'sgemm' else chr(10)}{kind.upper()}")
        print(f"  {p.name:<{width}}  {p.summary}")
        print(f"  {'':<{width}}  {p.config.describe()}")
    return 0
