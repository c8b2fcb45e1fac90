"""Nsight Compute's per-instruction stall samples, read from the source page as CSV (`ncu -i REP --page source --csv
--print-source sass`; lab/device_runs/session17_d.sh): per kernel, the samples by stall reason and by opcode, and
the instructions that hold the most samples of a reason.

    python3 -m lab.experiments.ncu_source_stalls SOURCE_CSV [REASON ...]   (default: long_sb short_sb wait)
"""
import collections
import csv

from . import program

REASONS = ("wait", "long_sb", "short_sb", "mio", "lg", "barrier", "branch_resolving", "no_inst", "not_selected",
           "selected", "math", "dispatch")
ALL = "Warp Stall Sampling (All Samples)"


def kernels(path):
    """[(kernel name, header, rows)] of the source page's CSV, a section a kernel."""
    from regtile.tools.datafiles import open_text
    out = []
    with open_text(path) as f:  # SOURCE_CSV or SOURCE_CSV.gz (docs/data keeps them gzipped)
        for row in csv.reader(f):
            if row and row[0] == "Kernel Name":
                out.append((row[1], None, []))
            elif row and row[0] == "Address":
                out[-1] = (out[-1][0], row, out[-1][2])
            elif out and row:
                out[-1][2].append(row)
    return out


def report(path, reasons):
    for name, header, rows in kernels(path):
        ix = {c: i for i, c in enumerate(header)}

        def num(r, col):
            return float(r[ix[col]].replace(",", "") or 0)
        total = sum(num(r, ALL) for r in rows)
        print(f"== {name}: {total:.0f} samples")
        print("  by reason (% of samples): " + ", ".join(
            f"{s} {100 * sum(num(r, 'stall_' + s) for r in rows) / total:.1f}" for s in REASONS))
        by_op = collections.Counter()
        for r in rows:
            words = [w for w in r[ix["Source"]].split() if not w.startswith("@")]
            by_op[words[0].split(".")[0] if words else "?"] += num(r, ALL)
        print("  by opcode (% of samples): " + ", ".join(f"{k} {100 * v / total:.1f}" for k, v in by_op.most_common(8)))
        for s in reasons:
            top = sorted(rows, key=lambda r: -num(r, "stall_" + s))[:4]
            print(f"  most {s}: " + "; ".join(f"{100 * num(r, 'stall_' + s) / total:.2f}% {r[ix['Source']].strip()[:48]}"
                                               for r in top))


def run(argv):
    report(argv[0], argv[1:] or ["long_sb", "short_sb", "wait"])


main = program(run, "SOURCE_CSV [REASON ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
