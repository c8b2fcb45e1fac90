"""Where a kernel's warps wait, per SASS instruction: a summary of Nsight Compute's
source page (warp-state sampling).

    ncu --set full -k regex:regtile -c 1 -o rep python3 launch.py     (device)
    ncu -i rep.ncu-rep --page source --csv --print-source sass > src.csv
    python3 -m regtile.lab.ncu_source src.csv [--top 15] [--json]

What the samples mean (Nsight Compute's warp-state sampling): at a fixed interval each
sub-partition's scheduler reports one of its warps and the reason it did not issue
(`selected` = it issued).  "Not issued" samples are those taken in a cycle in which the
scheduler issued nothing at all: the cycles a kernel loses outright.  A warp's stall
that another warp covers (it issued meanwhile) costs nothing; the not-issued column is
the one that says where issue slots go unused.  Cycles in which a sub-partition holds no
warp at all (a grid's last partial wave) are not sampled.

Prints: samples by stall reason (all and not issued), by opcode, and the instructions
with the most not-issued samples.  No GPU needed.
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Sequence


@dataclass
class SourceSummary:
    kernel: str
    samples: float
    not_issued: float
    by_reason: Dict[str, float]  # reason -> share of all samples
    by_reason_not_issued: Dict[str, float]
    by_opcode: Dict[str, float]  # opcode -> share of all samples
    by_opcode_not_issued: Dict[str, float]
    hottest: List[dict] = field(default_factory=list)  # most not-issued samples first

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def _num(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def _opcode(sass: str) -> str:
    words = sass.split()
    if not words:
        return "?"
    op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    return op.split(".")[0]


def summarize(lines: Sequence[str], top: int = 15) -> SourceSummary:
    """Parse the CSV text of `ncu -i REP --page source --csv --print-source sass`."""
    rows = list(csv.reader(lines))
    kernel = ""
    while rows and (not rows[0] or rows[0][0] != "Address"):
        if rows[0] and rows[0][0] == "Kernel Name" and len(rows[0]) > 1:
            kernel = rows[0][1]
        rows = rows[1:]
    if not rows:
        raise ValueError("no 'Address' header: not an Nsight Compute source-page CSV (--page source --csv)")
    header, data = rows[0], rows[1:]
    ix = {h: i for i, h in enumerate(header)}
    for need in ("Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)"):
        if need not in ix:
            raise ValueError(f"column {need!r} missing: collect with --set full (or the SourceCounters section)")
    reasons = [h for h in header if h.startswith("stall_") and not h.endswith("(Not Issued)")]
    total = sum(_num(r[ix["Warp Stall Sampling (All Samples)"]]) for r in data)
    not_issued = sum(_num(r[ix["Warp Stall Sampling (Not-issued Samples)"]]) for r in data)
    if total <= 0:
        raise ValueError("the CSV holds no warp-state samples")
    by_reason, by_reason_ni = collections.Counter(), collections.Counter()
    by_op, by_op_ni = collections.Counter(), collections.Counter()
    hottest = []
    for r in data:
        sass = r[ix["Source"]].strip()
        op = _opcode(sass)
        ni_here = 0.0
        for h in reasons:
            v = _num(r[ix[h]])
            by_reason[h[6:]] += v
            by_op[op] += v
            n_col = ix.get(h + " (Not Issued)")
            if n_col is None and h == "stall_sleep":  # ncu names that one stall_sleeping (Not Issued)
                n_col = ix.get("stall_sleeping (Not Issued)")
            vn = _num(r[n_col]) if n_col is not None else 0.0
            by_reason_ni[h[6:]] += vn
            by_op_ni[op] += vn
            ni_here += vn
        if ni_here:
            hottest.append({"address": r[ix["Address"]], "sass": sass, "not_issued": ni_here / total})
    hottest.sort(key=lambda h: -h["not_issued"])

    def share(c: collections.Counter) -> Dict[str, float]:
        return {k: v / total for k, v in c.most_common() if v}
    return SourceSummary(kernel, total, not_issued, share(by_reason), share(by_reason_ni), share(by_op),
                         share(by_op_ni), hottest[:top])


def render(s: SourceSummary) -> str:
    out = [f"kernel {s.kernel or '?'}: {s.samples:.0f} warp samples, {100 * s.not_issued / s.samples:.2f}% taken in "
           f"cycles with no instruction issued", "", f"  {'stall reason':<20}{'all':>8}{'not issued':>12}"]
    for k, v in s.by_reason.items():
        out.append(f"  {k:<20}{100 * v:>7.2f}%{100 * s.by_reason_not_issued.get(k, 0):>11.2f}%")
    out += ["", f"  {'opcode':<20}{'all':>8}{'not issued':>12}"]
    for k, v in list(s.by_opcode.items())[:12]:
        out.append(f"  {k:<20}{100 * v:>7.2f}%{100 * s.by_opcode_not_issued.get(k, 0):>11.2f}%")
    out += ["", "  most not-issued samples:"]
    for h in s.hottest:
        out.append(f"  {100 * h['not_issued']:6.2f}%  {h['sass']}")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.lab.ncu_source", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", help="ncu -i REP --page source --csv --print-source sass > FILE")
    p.add_argument("--top", type=int, default=15, help="instructions listed (default 15)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    from regtile.tools.datafiles import open_text
    try:
        with open_text(args.csv, newline="") as f:  # FILE or FILE.gz (docs/data keeps them gzipped)
            s = summarize(f.read().splitlines(), args.top)
    except (OSError, ValueError) as e:
        print(f"ncu_source: error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(s.to_dict(), indent=1) if args.json else render(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
