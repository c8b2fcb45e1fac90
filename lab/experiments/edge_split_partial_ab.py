"""Partial edge splits on wide-128x256: the edge kernel takes only one ragged strip and the main kernel keeps the
other ragged dimension in its own (bounds-checked) edge tiles.  Session 27 measured the committed split (both
strips) at no gain anywhere: on 2047x4097x1023 it trims the interior to 1920 rows (240 tiles, 1.8 waves) and gives
a 127 x 4097 strip to the slow 64x64 kernel, to save one column of padding.  Variants, every one on the same
wide-128x256 module (codegen/edges.plan_edges replaced while its launches are built):

  noedge  wide-128x256-noedge, C's ragged row and column in the big kernel's own tiles
  both    the split as committed would make it, forced (main mi x ni, bottom strip, right strip)
  right   main m x ni (the ragged bottom rows in its tiles), the edge kernel on the right strip m x (n - ni)
  bottom  main mi x n (the ragged right columns in its tiles), the edge kernel on the bottom strip (m - mi) x n

beside the plan regtile.sgemm builds and cuBLAS, interleaved kernel against kernel on tools/shape_sweep's
ShapeBench with packed operands (every variant checked against float64 first, C NaN-poisoned).  A variant that
has no strip to split on a shape (n % 256 == 0 for `right`) is left out of its row.  Writes
edge_split_partial_ab.json under $OUT.  `dry=1` prints each variant's parts on the CPU.

    python3 -m lab.experiments.edge_split_partial_ab [dry=1] [MxNxK ...]
"""
import contextlib

from . import checked_row, member_for_shape, over_shapes, program, take_option

DEFAULT = ["2047x4097x1023", "4097x4097x4097", "8191x8193x1025", "1111x3333x2222", "3333x2222x1111",
           "1234x5678x910", "4099x4093x4091", "2999x7001x211"]
MODES = ("both", "right", "bottom")


def parts_for(mode: str, m: int, n: int, bm: int, bn: int):
    """The parts (codegen/edges.Part) of `mode` on M x N in BM x BN tiles; () where it has no strip to split."""
    from regtile.codegen.edges import Part
    mi, ni = m // bm * bm, n // bn * bn
    if mode == "both":
        if not mi or not ni or (mi == m and ni == n):
            return ()
        return tuple([Part("main", 0, 0, mi, ni)] + ([Part("edge", mi, 0, m - mi, n)] if m > mi else [])
                     + ([Part("edge", 0, ni, mi, n - ni)] if n > ni else []))
    if mode == "right":
        return (Part("main", 0, 0, m, ni), Part("edge", 0, ni, m, n - ni)) if ni and n > ni else ()
    if mode == "bottom":
        return (Part("main", 0, 0, mi, n), Part("edge", mi, 0, m - mi, n)) if mi and m > mi else ()
    raise ValueError(f"mode={mode!r}: one of {MODES}")


@contextlib.contextmanager
def forced_parts(mode: str):
    """codegen/edges.plan_edges returns `mode`'s parts inside the block (costs 0: the plan always splits)."""
    from regtile.codegen import edges
    saved = edges.plan_edges

    def plan(m, n, bm, bn, edge_bm, edge_bn):
        return edges.EdgePlan(m, n, parts_for(mode, m, n, bm, bn), 1.0, 0.0)
    edges.plan_edges = plan
    try:
        yield
    finally:
        edges.plan_edges = saved


def one(torch, bench, m, n, k):
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.plans import GemmPlan
    plan = GemmPlan(m, n, k, False, False, k, n, n)
    fns = {"cublas": bench.cublas(), "plan": bench.library(plan)}
    row = {"m": m, "n": n, "k": k, "plan": plan.describe(), "parts": {}}
    cfg, backend = member_for_shape("wide-128x256-noedge", m, n, k)
    fns["noedge"] = bench.regtile(driver.load(compile_config(cfg, driver.device().arch, backend=backend),
                                              "noedge"))
    cfg, backend = member_for_shape("wide-128x256", m, n, k)
    kernel = driver.load(compile_config(cfg, driver.device().arch, backend=backend), "wide-128x256")
    for mode in MODES:
        parts = parts_for(mode, m, n, cfg.bm, cfg.bn)
        if not parts:
            continue
        row["parts"][mode] = [list(p.__dict__.values()) for p in parts]
        with forced_parts(mode):  # SgemmLaunch takes its parts when it is built
            fns[mode] = bench.regtile(kernel)
    return checked_row(torch, bench, fns, row)


def run(argv):
    if take_option(argv, "dry") == "1":
        for spec in argv or DEFAULT:
            m, n, k = (int(v) for v in spec.split("x"))
            cfg, _ = member_for_shape("wide-128x256", m, n, k)
            print(spec, {mode: [(p.kernel, p.row0, p.col0, p.rows, p.cols) for p in parts_for(mode, m, n, cfg.bm,
                                                                                            cfg.bn)]
                         for mode in MODES}, flush=True)
        return
    over_shapes(argv, DEFAULT, "edge_split_partial_ab.json", one)


main = program(run, "[dry=1] [MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
