"""Where the GEMV and few-vector kernels let the next kernel be scheduled (issue 20, session 39).

Their kernels trigger before their griddepcontrol.wait (codegen/emit_sgemv.GEMV_ENTRY, where the problem is small
enough; codegen/emit_fewvec.FEWVEC_ENTRY and its prefetching main kernel, always).  A call's blocks, scheduled while
the call before still runs, then let the call after them be scheduled too.  Session 39 found that pile-up costing
the one-pass PTX SGEMM kernel (docs/data/session39/c_5e6f424) and moved its trigger after its wait
(emit_ptx.PDL_TRIGGER_AFTER_WAIT).  Here the same move for the kernels of regtile.sgemm's GEMV and few-vector routes:
for each [LAYOUT:]MxNxK that regtile.sgemm sends to one, the plan it builds ("lib") against the same route built
with every trigger right after its kernel's wait ("after"; the trigger's size condition kept), against cuBLAS in
the layout, each checked against float64 (C NaN-poisoned), timed back to back as the sweep times them (shape_sweep's
batches), or with graph=1 as CUDA graphs of 20 calls (lab/experiments.time_plans_graphs).  Writes
gemv_trigger_ab.json under $OUT.

    python3 -m lab.experiments.gemv_trigger_ab [graph=1] [LAYOUT:]MxNxK ...
"""
from contextlib import ExitStack

from lab.experiments import over_shapes, program, take_option, time_plans, time_plans_graphs

SHAPES = ["NN:1x4096x4096", "NN:4096x1x4096", "NN:8x4096x4096", "TN:4096x16x4096"]


def after_wait_plan(m, n, k, operands):
    """regtile.sgemm's plan for the shape, built with every GEMV and few-vector kernel's trigger after its wait, and
    with fresh route caches (the plans the library cached hold the kernels as they trigger now)."""
    from regtile.codegen import emit_fewvec, emit_sgemv, kernel
    from regtile.runtime import fewvec, gemv
    from regtile.runtime.plan_store import PlanCache
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched
    gemv_trigger = emit_sgemv.GEMV_ENTRY[:len(emit_sgemv.GEMV_ENTRY) - len(kernel.PDL_WAIT)]
    assert emit_sgemv.GEMV_ENTRY == gemv_trigger + kernel.PDL_WAIT, "GEMV_ENTRY is no longer trigger + wait"
    assert emit_fewvec.FEWVEC_ENTRY == kernel.PDL_TRIGGER + kernel.PDL_WAIT
    with ExitStack() as stack:
        for owner, name, value in (
                (emit_sgemv, "GEMV_ENTRY", kernel.PDL_WAIT + gemv_trigger),
                (emit_fewvec, "FEWVEC_ENTRY", kernel.PDL_WAIT + kernel.PDL_TRIGGER),
                # the prefetching main kernel: its entry (PDL_TRIGGER) empty, its wait followed by the trigger
                (emit_fewvec, "PDL_TRIGGER", ()),
                (emit_fewvec, "PDL_WAIT", kernel.PDL_WAIT + kernel.PDL_TRIGGER),
                (gemv, "_plans", {}), (fewvec, "plan_cache", PlanCache())):
            stack.enter_context(patched(owner, name, value))
        return GemmPlan(m, n, k, *operands)


def run(argv):
    graphs = take_option(argv, "graph") == "1"

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
        lib = GemmPlan(m, n, k, *operands)
        row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b], "plan": lib.describe()}
        if lib.gemv is None:
            return row, f"not a GEMV or few-vector route ({lib.describe()[:60]})"
        plans = {"lib": lib, "after": after_wait_plan(m, n, k, operands)}
        if plans["after"].kernel.artifact.cubin == lib.kernel.artifact.cubin:
            raise RuntimeError("the after-wait plan's kernel is the library's: the emitted text did not change")
        return (time_plans_graphs if graphs else time_plans)(torch, bench, plans, row, lib.describe()[:60])

    over_shapes(argv, SHAPES, "gemv_trigger_ab.json", one)


main = program(run, "[graph=1] [LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
