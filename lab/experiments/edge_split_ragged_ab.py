"""Ragged shapes on the 128x256 8x16 kernels: the plan regtile.sgemm builds against wide-128x256-noedge (the ragged
row and column in its own tiles) and wide-128x256 with its edge split forced (codegen/edges.MIN_GAIN below zero:
the interior by the big kernel, the ragged strips by the 64x64 edge kernel, wherever there is an interior), and
cuBLAS, interleaved kernel against kernel on tools/shape_sweep's ShapeBench with packed operands (every variant
checked against float64 first, C NaN-poisoned).  Session 26 measured the ragged tiles of wide-128x256-noedge at
+8.6% on 4099x4093x4091 against the split member on 4099x4096x4091 (docs/shapes.md); the edge split's cost model
(edges.EDGE_COST, EDGE_TILE_COST) gives no split on most of these shapes.  Writes edge_split_ragged_ab.json under
$OUT.  `dry=1` compiles the kernels for sm_90 on this machine (no GPU) and prints each variant's split instead.

    python3 -m lab.experiments.edge_split_ragged_ab [dry=1] [MxNxK ...]
"""
import contextlib

from . import checked_row, member_for_shape, over_shapes, program, take_option

DEFAULT = ["4099x4093x4091", "4095x4095x4095", "1023x4095x2047", "1111x3333x2222", "3333x2222x1111",
           "2047x4097x1023", "6143x2047x3071", "1234x5678x910"]
FORCED_MIN_GAIN = -1.0  # any split beats the full grid


@contextlib.contextmanager
def forced_split():
    """codegen/edges.MIN_GAIN at FORCED_MIN_GAIN inside the block: an edge plan made there splits wherever C has
    a tile-aligned interior."""
    from regtile.codegen import edges
    saved, edges.MIN_GAIN = edges.MIN_GAIN, FORCED_MIN_GAIN
    try:
        yield
    finally:
        edges.MIN_GAIN = saved


def splits(m: int, n: int):
    """{variant: the edge plan's description} for the two members at M x N, the split as committed and forced."""
    from regtile.codegen import edges
    out = {}
    for name in ("wide-128x256-noedge", "wide-128x256"):
        cfg, _ = member_for_shape(name, m, n, 1024)
        if not cfg.edge_split:
            out[name] = "no edge split (the member has none)"
            continue
        out[name] = edges.plan_edges(m, n, cfg.bm, cfg.bn, *edges.EDGE_TILE).describe()
        with forced_split():
            out[name + " forced"] = edges.plan_edges(m, n, cfg.bm, cfg.bn, *edges.EDGE_TILE).describe()
    return out


def one(torch, bench, m, n, k):
    """The plan, the noedge member, the split member as committed and with its split forced, and cuBLAS."""
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.plans import GemmPlan
    plan = GemmPlan(m, n, k, False, False, k, n, n)
    fns = {"cublas": bench.cublas(), "plan": bench.library(plan)}
    row = {"m": m, "n": n, "k": k, "plan": plan.describe(), "splits": splits(m, n)}
    for name in ("wide-128x256-noedge", "wide-128x256"):
        cfg, backend = member_for_shape(name, m, n, k)
        kernel = driver.load(compile_config(cfg, driver.device().arch, backend=backend), name)
        fns[name] = bench.regtile(kernel)
        if cfg.edge_split:  # SgemmLaunch fixes its parts when it is built: force the split for these launches only
            with forced_split():
                fns[name + " forced"] = bench.regtile(kernel)
    return checked_row(torch, bench, fns, row)


def run(argv):
    if take_option(argv, "dry") == "1":
        from regtile.runtime.compiler import compile_config
        for spec in argv or DEFAULT:
            m, n, k = (int(v) for v in spec.split("x"))
            for name in ("wide-128x256-noedge", "wide-128x256"):
                compile_config(member_for_shape(name, m, n, k)[0], "sm_90", backend="ptx")
            print(spec, splits(m, n), flush=True)
        return
    over_shapes(argv, DEFAULT, "edge_split_ragged_ab.json", one)


main = program(run, "[dry=1] [MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
