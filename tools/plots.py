"""Plots of committed benchmark tables (matplotlib, the `plot` extra).

    regtile plot ladder docs/ladder.md --out docs/ladder.png
    (python3 -m regtile.tools.plots ..., main below: the older spelling, kept for scripts)
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple


def read_table(path: Path) -> List[Dict[str, str]]:
    """Rows of the first markdown table in a file, as dicts keyed by header."""
    lines: List[str] = []
    for ln in path.read_text().splitlines():
        if ln.strip().startswith("|"):
            lines.append(ln.strip())
        elif lines:
            break  # the first table ended
    if len(lines) < 3:
        raise SystemExit(f"{path}: no markdown table")
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, [c.strip() for c in ln.strip("|").split("|")])) for ln in lines[2:]]


def ladder(table: Path, out: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("plots need matplotlib: pip install 'regtile[plot]'") from None
    series: Dict[str, List[Tuple[int, float]]] = defaultdict(list)
    order: List[str] = []
    for row in read_table(table):
        if not row.get("TFLOP/s"):
            continue
        name, size = row["kernel"], int(row["M x N x K"].split("x")[0])
        if name not in order:
            order.append(name)
        series[name].append((size, float(row["TFLOP/s"])))
    sizes = sorted({s for pts in series.values() for s, _ in pts})
    fig, ax = plt.subplots(figsize=(10, 5))
    width = 0.8 / len(order)
    for i, name in enumerate(order):
        pts = dict(series[name])
        xs = [j + i * width for j, s in enumerate(sizes) if s in pts]
        color = "black" if name == "cuBLAS" else plt.cm.tab20(i / max(len(order), 1))
        ax.bar(xs, [pts[s] for s in sizes if s in pts], width, label=name, color=color)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(sizes))], [f"{s}^3" for s in sizes])
    ax.set_ylabel("TFLOP/s (FP32)")
    ax.set_title(f"regtile SGEMM ladder vs cuBLAS ({table.name})")
    ax.legend(ncol=4, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.tools.plots", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["ladder"])
    p.add_argument("table", type=Path)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    ladder(args.table, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
