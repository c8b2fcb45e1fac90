"""`regtile plot`: pictures of committed benchmark tables (tools/plots.py; matplotlib)."""
from __future__ import annotations

from pathlib import Path

from .options import UsageError, command_parser
from .outpaths import check_writable_file


DESCRIPTION = """Draw a markdown table written by `regtile bench` as a PNG: `ladder` draws TFLOP/s per
kernel and size, cuBLAS beside them. Needs matplotlib (pip install 'regtile[plot]'); no GPU."""
EXAMPLES = """examples:
  regtile plot ladder docs/ladder.md --out docs/ladder.png"""


def register(sub) -> None:
    p = command_parser(sub, "plot", "draw a benchmark table as a PNG (e.g. docs/ladder.md; needs matplotlib)",
                       DESCRIPTION, EXAMPLES)
    p.add_argument("kind", choices=["ladder"], help="what to draw: ladder (a `regtile bench --ladder` table)")
    p.add_argument("table", type=Path, help="the markdown file holding the table")
    p.add_argument("--out", type=Path, required=True, metavar="PNG", help="the PNG to write")
    p.set_defaults(handler=run)


def run(args) -> int:
    from . import plots
    if not args.table.is_file():
        raise UsageError(f"{args.table}: no such file")
    check_writable_file("--out", args.out)
    plots.ladder(args.table, args.out)
    return 0
