"""The vector trim (codegen/edges.vector_trim): regtile's plan as committed against the same plan without the trim
and with the trim forced wherever it can be taken (edges.TRIM_SAVING raised), and cuBLAS, interleaved kernel against
kernel on tools/shape_sweep's ShapeBench with packed operands (each variant checked against float64 first, C
NaN-poisoned).  Writes vector_trim_ab.json under $OUT.

    python3 -m lab.experiments.vector_trim_ab [MxNxK ...]

Session 28 removed the trim (codegen/edges.vector_trim, GemmPlan's strip): with the tiles across a ragged vector bound
on the interior paths (ptx_edges.clamp_setup) the plan without it ran faster (docs/data/session28/b_6a14ca2:
1111x3333x2222 384.3 us against 391.6 with it, 1919x2929x3939 954.1 / 973.4, 1024x50257x768 1602.3 / 1617.2).  This
script needs a tree at 6a14ca2 or before.
"""
import contextlib

from . import checked_row, over_shapes, program

DEFAULT = ["1023x4095x2047", "1111x3333x2222", "2047x4097x1023", "4001x4003x4007", "1919x2929x3939", "1234x5678x910",
           "4095x4095x4095", "1024x50257x768", "4099x4093x4091", "6143x2047x3071", "5555x555x5555", "2999x7001x211",
           "8191x511x2047", "333x33333x333"]


@contextlib.contextmanager
def trim(mode: str):
    """Inside the block, GemmPlan's trim as `mode`: "off" never, "forced" wherever structurally possible."""
    from regtile.codegen import edges
    saved_fn, saved_saving = edges.vector_trim, edges.TRIM_SAVING
    if mode == "off":
        edges.vector_trim = lambda *a, **k: None
    elif mode == "forced":
        edges.TRIM_SAVING = 1e9
    try:
        yield
    finally:
        edges.vector_trim, edges.TRIM_SAVING = saved_fn, saved_saving


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    plans = {"plan": GemmPlan(m, n, k, False, False, k, n, n)}
    for mode in ("off", "forced"):
        with trim(mode):
            plans[mode] = GemmPlan(m, n, k, False, False, k, n, n)
    fns = {"cublas": bench.cublas(), **{name: bench.library(p) for name, p in plans.items()}}
    row, line = checked_row(torch, bench, fns, {"m": m, "n": n, "k": k,
                                                "plans": {name: p.describe() for name, p in plans.items()}})
    return row, line + f"  [{plans['plan'].describe()[-90:]}]"


def run(argv):
    over_shapes(argv, DEFAULT, "vector_trim_ab.json", one)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
