"""Offline (no GPU): what unaligned rows cost each member, from the ragged grids and their aligned partners timed
in the same kind of run on the same device (session 29, H200: docs/data/shape-candidates-session29-fit-ragged_c4b6d78
.json and -fit-ragged-big_5334ae0.json against -pair-aligned_88eef27.json; benchmarks/shapes.py aligned_partners:
each ragged point's aligned point before its moves, M + 1, N & ~3, K & ~3).  Per member, the geometric mean over the
pairs of its time on the ragged shape over its time on the partner, each over heuristic.model_time's ratio of the two
shapes (their padding and waves), overall and by size (below 1 GFLOP, below 8.6, above).

  python3 -m lab.experiments.unaligned_factors [RAGGED.json,...] [PAIRS.json]

Session 29: 1.07 (sq-32x32) to 1.25 (plain-64x64); above 8.6 GFLOP sq-128x128 1.071, tall-256x128 1.115,
wide-128x256-noedge 1.103, wide-128x256 1.122, wide-64x128-k16 1.099, tall-128x64-k16 1.136.  Tried as a factor on
heuristic.model_time for unaligned queries (and so on the table's transfer between classes): the ragged grids left out
a shape at a time 5.7% -> 5.4% over the fastest member (in sample: the factors come from those grids), the held-out
sets' 26 unaligned shapes unchanged at 3.1% (their mispicks - 129x4097x513, 50x50x50000, 3001x3001x64,
2999x7001x211 - are not the model's alignment), held-out 1+2 0.4% -> 0.5%.  Not taken."""
import math

from lab.experiments import program

D = "docs/data/"
RAGGED = [D + "shape-candidates-session29-fit-ragged_c4b6d78.json", D + "shape-candidates-session29-fit-ragged-big_5334ae0.json"]
PAIRS = D + "shape-candidates-session29-pair-aligned_88eef27.json"


def factors(ragged, partners, sm_count=132):
    """{member: {band: [log ratio, ...]}} over the pairs (band "all" and by GFLOP)."""
    from regtile.codegen import heuristic as h
    from regtile.codegen import heuristic_fit as hf
    by_key = {(r["m"], r["n"], r["k"]): r for r in partners}
    out = {}
    for r in ragged:
        a = by_key.get((r["m"] + 1, r["n"] & ~3, r["k"] & ~3))
        if a is None:
            continue
        tr, ta = hf.timed_members(r), hf.timed_members(a)
        flop = 2.0 * r["m"] * r["n"] * r["k"]
        band = "<1G" if flop < 1e9 else ("<8.6G" if flop < 8.6e9 else ">8.6G")
        for name in tr.keys() & ta.keys():
            shape_ratio = (h.model_time(name, r["m"], r["n"], r["k"], sm_count)
                           / h.model_time(name, a["m"], a["n"], a["k"], sm_count))
            x = math.log(tr[name] / ta[name] / shape_ratio)
            for b in ("all", band):
                out.setdefault(name, {}).setdefault(b, []).append(x)
    return out


def run(argv):
    ragged_paths = argv[0].split(",") if argv else RAGGED
    pairs_path = argv[1] if len(argv) > 1 else PAIRS
    from regtile.tools.datafiles import load_json
    ragged = [r for p in ragged_paths for r in load_json(p)["rows"]]
    partners = load_json(pairs_path)["rows"]
    geo = lambda xs: math.exp(sum(xs) / len(xs))  # noqa: E731
    f = factors(ragged, partners)
    for name in sorted(f, key=lambda n: geo(f[n]["all"])):
        bands = "  ".join(f"{b} x{geo(f[name][b]):.3f} ({len(f[name][b])})" for b in ("<1G", "<8.6G", ">8.6G")
                          if b in f[name])
        print(f"{name:22s} x{geo(f[name]['all']):.3f} over {len(f[name]['all'])} pairs;  {bands}")


main = program(run, "RAGGED.json[,...] PAIRS.json (default: session 29's runs)")

if __name__ == "__main__":
    import sys
    sys.exit(main())
