"""The edge vector path (config.edge_vector_path) now that it shapes only last k-tiles (session 28): every PTX member
but the two 128x256 ones has it on (presets.py; issue 20's third round measured it taking 2000^3 from 0.83x to 0.96x
cuBLAS when the edge tiles took the checked copies on every k-tile).  Since the clamp (session 8) and the tiles
across a ragged vector bound (session 28, ptx_edges.clamp_setup) an edge tile takes the checked copies on its last
k-tile only, while the path still changes how ptxas allocates the whole kernel (the 128x256 members ran 3-6%
slower with it on aligned shapes, which is why they never took it).  For each shape: the plan regtile.sgemm builds
("lib") against the same config with the path off ("off"), and cuBLAS, interleaved kernel against kernel on
tools/shape_sweep's ShapeBench (each checked against float64 first, C NaN-poisoned).  Writes
edge_vector_path_off_ab.json under $OUT.

    python3 -m lab.experiments.edge_vector_path_off_ab [MxNxK ...]
"""
from . import over_shapes, program, time_plans

DEFAULT = ["512x4096x16384", "8192x128x8192", "700x5124x2048", "1000x1000x1000", "2047x4097x1023", "5555x555x5555"]


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx" or not lib.config.edge_vector_path:
        return row, f"no edge vector path to turn off ({row['config']}, {lib.backend})"
    off = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config.replace(edge_vector_path=False), backend="ptx")
    return time_plans(torch, bench, {"lib": lib, "off": off}, row, lib.kernel.label)


def run(argv):
    over_shapes(argv, DEFAULT, "edge_vector_path_off_ab.json", one)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    raise SystemExit(main())
