"""One test and one branch for both operands' unaligned floats (issue 20, session 17): emit_ptx.load_tile's
both_floats against each operand's own tests and branches ("per_operand", as every unaligned_vectors kernel ran
until then: the both_floats_ok predicate is left in its text unused, and ptxas drops it).

On 4099x4093x4091 (wide-128x256-noedge, lda 4091, ldb 4093) each operand's own test put three taken branches and
two predicate-to-branch waits ahead of the FFMAs of every k-tile (sm_90 SASS, `regtile inspect --show loop`);
with one test ptxas predicates the twelve float loads as it does both_float4's three float4s.  For each shape:
the plan regtile.sgemm builds ("lib") and the same config per operand, against cuBLAS, interleaved kernel against
kernel on tools/shape_sweep's ShapeBench (each checked against float64 first, C NaN-poisoned).  Writes
both_floats_ab.json under $OUT.

    python3 -m lab.experiments.both_floats_ab [MxNxK ...]
"""
import contextlib

from . import over_shapes, program, time_plans
from .fixup_ab import patched

# the suite's shapes on unaligned_vectors kernels, then held-out ones (odd leading dimensions at mid sizes)
DEFAULT = ["4099x4093x4091", "8191x8193x1025", "6143x2047x3071", "4097x4097x4097", "2049x2047x1025",
           "1009x1013x1019", "2047x4097x1023", "1023x4095x2047", "1111x3333x2222", "5555x555x5555",
           "2999x7001x211", "333x33333x333", "4095x4095x4095", "8191x511x2047"]


@contextlib.contextmanager
def per_operand():
    """Kernels built inside test and branch each operand on its own (float4_or_edge for A, then for B)."""
    from regtile.codegen.emit_ptx import _Kernel

    def each(self, k0, tiled):
        for loads, copies, ptrs in tiled:
            self.float4_or_edge(k0, loads, copies, ptrs)
    with patched(_Kernel, "both_floats", each):
        yield


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx" or not lib.config.unaligned_vectors:
        return row, f"not an unaligned_vectors PTX plan ({row['config']})"
    with per_operand():
        other = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config, backend="ptx")
    return time_plans(torch, bench, {"lib": lib, "per_operand": other}, row, lib.kernel.label)


def run(argv):
    over_shapes(argv, DEFAULT, "both_floats_ab.json", one)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
