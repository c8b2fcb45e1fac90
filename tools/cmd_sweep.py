"""`regtile sweep`: the performance sweep over the issue's shapes, or the SASS pass's
before/after table (tools/sweep.py); cuBLAS timed in the same run."""
from __future__ import annotations

import json

from . import progress
from .options import UsageError, command_parser
from .outpaths import check_writable_file


DESCRIPTION = """--shapes: for each shape of the performance sweep (square 1024..8192, skinny, ragged),
time a fixed, named set of generated kernels (and split-K variants where the tuner's rule offers them)
against cuBLAS and print the best per shape with the command that rebuilds it. --pass-table: each kernel
with and without the SASS register-bank pass. Prints a markdown table (device, driver, date and commit
in its header). Needs a GPU."""
EXAMPLES = """examples:
  regtile sweep --shapes --out docs/sweep.md --json docs/data/sweep.json
  regtile sweep --pass-table --sizes 4096,8192"""


def register(sub) -> None:
    p = command_parser(sub, "sweep", "the shape sweep (best generated kernel per shape vs cuBLAS) or the SASS pass table (GPU)",
                       DESCRIPTION, EXAMPLES)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--shapes", action="store_true", help="the shape sweep")
    g.add_argument("--pass-table", action="store_true", help="the SASS pass: before/after per kernel")
    p.add_argument("--sizes", default="4096,8192", help="--pass-table: cube sizes (default 4096,8192)")
    p.add_argument("--repeat", type=int, default=10, help="timed launches per kernel (median; default 10)")
    p.add_argument("--json", metavar="FILE", help="also write the raw rows to FILE")
    p.add_argument("--out", metavar="FILE", help="also write the markdown table to FILE")
    p.set_defaults(handler=run)


def run(args) -> int:
    from .cmd_bench import _parse_sizes
    from . import sweep
    if args.repeat < 1:
        raise UsageError(f"--repeat {args.repeat}: must be >= 1")
    sizes = _parse_sizes(args.sizes)
    for flag in ("out", "json"):
        if getattr(args, flag):
            check_writable_file(f"--{flag}", getattr(args, flag))  # before the sweep, not after it
    from ..runtime import driver
    from .cmd_bench import header
    dev = driver.device()
    if args.shapes:
        rows = sweep.sweep_shapes(args.repeat, progress.status)
        text = sweep.shapes_table(rows, header(dev))
    else:
        rows = sweep.pass_table(sizes, args.repeat, progress.status)
        text = sweep.pass_markdown(rows, sizes, header(dev))
    progress.clear()
    print(text)
    try:
        if args.out:
            with open(args.out, "w") as f:
                f.write(text + "\n")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"device": dev.name, "rows": rows}, f, indent=1)
    except OSError as e:
        raise UsageError(f"cannot write the results ({e.strerror or e}); the table is printed above") from None
    return 0
