"""Float4 loads on an op T strip that reaches past N (issue 20, session 47).

The op T kernels of the GEMV and few-vector routes (templates/t_columns.cu.j2) sweep column strips of up to 128
columns.  Before session 47 a block read float4s only where its whole strip lay inside N, so a matrix narrower than
its strip (MoE routers' 60 columns on a 64-column strip, 80-112 on a 128-column one) read scalars throughout, and a
ragged last strip (1000 = 7 x 128 + 104) read scalars in its block.  Now, where N is a multiple of 4, every thread's
four columns lie all inside N or all past it, and the block reads float4s (emit_sgemv.VEC_BLOCK_TEST; kernels with
fewer than emit_sgemv.PAST_N_MIN_UNROLL rows in flight a thread keep the test of before).  Run b_78a0360 timed this
with the clamp in every kernel.

For each [LAYOUT:]MxNxK that regtile.sgemm sends to a GEMV or few-vector route: its plan ("lib", the float4 test
of now) against the same route built with the test of before ("whole": a whole strip inside N), against cuBLAS in
the layout, each checked against float64 (C NaN-poisoned), timed interleaved back to back as the sweep times them
(shape_sweep's rotating sets).  Writes partial_strip_ab.json under $OUT.

    python3 -m lab.experiments.partial_strip_ab [LAYOUT:]MxNxK ...     (GPU)
"""
from lab.experiments import gemv_route_plan, over_shapes, patched_plan, program, time_plans

# m == 1 (a GEMV, op T over B): MoE routers of 60 experts (Qwen1.5-MoE; decode), heads of 80-100 columns over long
# contexts, a ragged last strip (1000 columns: 104 of 128); few vectors (op T over B): a router over 6-16 tokens,
# held-out 6x4544x4544 (its last strip 64 of 128), 8 x 80 columns over 500000 rows
SHAPES = ["NN:1x60x2048", "NN:1x60x65536", "NN:1x80x262144", "NN:1x100x262144", "NN:1x1000x65536",
          "NN:6x4544x4544", "NN:8x80x500000", "NN:16x96x65536", "NN:1x7680x2560"]


def whole_strip_plan(m, n, k, operands):
    """regtile.sgemm's plan for the shape, its op T kernels built with the float4 test of before (emit_sgemv's
    WHOLE_STRIP_TEST and WHOLE_STRIP_LOAD_COLUMN, what kernels with fewer than PAST_N_MIN_UNROLL rows in flight
    still use), with
    fresh route caches (the plans the library cached hold the test of now)."""
    from regtile.codegen import emit_sgemv
    from regtile.runtime import fewvec, gemv
    from regtile.runtime.plan_store import PlanCache
    return patched_plan(m, n, k, operands, ((emit_sgemv, "VEC_BLOCK_TEST", emit_sgemv.WHOLE_STRIP_TEST),
                                            (emit_sgemv, "VEC_LOAD_COLUMN", emit_sgemv.WHOLE_STRIP_LOAD_COLUMN),
                                            (gemv, "_plans", {}), (fewvec, "plan_cache", PlanCache())))


def run(argv):
    def one(torch, bench, m, n, k):
        lib, operands, row, skip = gemv_route_plan(bench, m, n, k)
        if skip:
            return row, skip
        plans = {"lib": lib, "whole": whole_strip_plan(m, n, k, operands)}
        row["same_kernel"] = plans["lib"].kernel.artifact.cubin == plans["whole"].kernel.artifact.cubin
        return time_plans(torch, bench, plans, row, lib.describe()[:60])

    over_shapes(argv, SHAPES, "partial_strip_ab.json", one)


main = program(run, "[LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
