"""One test and one branch for both operands' float4 loads (issue 20, session 11): emit_ptx.load_tile's
both_float4 against each operand's own test and branch ("per_operand", as every kernel ran until then:
the both_ok predicate is left in its text unused, and ptxas drops it).

Each operand's branch waited 11-13 cycles on its predicate (PLOP3 -> BRA on sm_90) every k-tile; with one
test ptxas predicates the three float4 loads of wide-128x256's interior k-tile instead of branching
(regtile inspect --show loop).  For each shape: the plan regtile.sgemm builds ("lib") and the same config
per operand, against cuBLAS, interleaved kernel against kernel on tools/shape_sweep's ShapeBench (each
checked against float64 first, C NaN-poisoned).  Writes both_float4_ab.json under $OUT.

    python3 -m lab.experiments.both_float4_ab [MxNxK ...]
"""
import contextlib

from . import shapes_program, time_plans
from .fixup_ab import patched

DEFAULT = ["4096x4096x4096", "8192x128x8192", "512x16384x4096", "2048x4096x16384", "1024x1024x1024",
           "2048x2048x2048", "64x4096x4096", "128x2048x2048", "512x512x512", "1500x4224x176", "8192x8192x64",
           "7000x1760x1760"]


@contextlib.contextmanager
def per_operand():
    """Kernels built inside test and branch each operand on its own (float4_or_edge for A, then for B)."""
    from regtile.codegen.emit_ptx import _Kernel

    def each(self, k0, tiled):
        for loads, copies, ptrs in tiled:
            self.float4_or_edge(k0, loads, copies, ptrs)
    with patched(_Kernel, "both_float4", each):
        yield


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx":
        return row, f"not a PTX plan ({row['config']})"
    with per_operand():
        other = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config, backend="ptx")
    return time_plans(torch, bench, {"lib": lib, "per_operand": other}, row, lib.kernel.label)


main = shapes_program(__name__, DEFAULT, "both_float4_ab.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
