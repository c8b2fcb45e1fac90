"""`regtile presets`: the seed ladder, in order."""
from __future__ import annotations

import json

from ..codegen.presets import PRESETS


def register(sub) -> None:
    p = sub.add_parser("presets", help="list the named configs (the seed ladder, in order)",
                       description="List the named configs: the optimisation ladder of the seeds, in order.",
                       epilog="examples:\n  regtile presets\n  regtile presets --json")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args) -> int:
    if args.json:
        print(json.dumps([{"name": p.name, "summary": p.summary, "config": p.config.to_dict()}
                          for p in PRESETS.values()], indent=2))
        return 0
    width = max(len(n) for n in PRESETS)
    for p in PRESETS.values():
        print(f"{p.name:<{width}}  {p.summary}")
        print(f"{'':<{width}}  {p.config.describe()}")
    return 0
