"""Where the GEMV and few-vector kernels let the next kernel be scheduled (issue 20, session 39).

Their kernels triggered before their griddepcontrol.wait (codegen/emit_sgemv.GEMV_ENTRY, where the problem is small
enough; codegen/emit_fewvec.FEWVEC_ENTRY and its prefetching main kernel, always).  A call's blocks, scheduled while
the call before still runs, then let the call after them be scheduled too.  Session 39 found that pile-up costing
the one-pass PTX SGEMM kernel (docs/data/session39/c_5e6f424) and moved its trigger after its wait
(emit_ptx.PDL_TRIGGER_AFTER_WAIT).  Here the same move for the kernels of regtile.sgemm's GEMV and few-vector routes:
for each [LAYOUT:]MxNxK that regtile.sgemm sends to one, the plan it builds ("lib") against the same route built with
every GEMV and few-vector trigger before its kernel's wait ("before") and right after it ("after"; the GEMV
trigger's size condition kept; the prefetching main kernel's prefetch hints stay first), against cuBLAS in the
layout, each checked against float64 (C NaN-poisoned), timed back to back as the sweep times them (shape_sweep's
batches), or with graph=1 as CUDA graphs of 20 calls (lab/experiments.time_plans_graphs).  One of the two forms is
the library's for each kernel: at 1c2f30f (e_1c2f30f, which timed "lib" and "after" alone) "before" for both; since
c935cab the few-vector kernels' "after", the GEMV kernels' "before".  Writes gemv_trigger_ab.json under $OUT.

    python3 -m lab.experiments.gemv_trigger_ab [graph=1] [LAYOUT:]MxNxK ...
"""
from lab.experiments import (gemv_route_plan, over_shapes, patched_plan, program, take_option, time_plans,
                             time_plans_graphs)

SHAPES = ["NN:1x4096x4096", "NN:4096x1x4096", "NN:8x4096x4096", "TN:4096x16x4096"]


def trigger_form_plan(m, n, k, operands, after_wait: bool):
    """regtile.sgemm's plan for the shape, built with every GEMV and few-vector kernel's trigger right after its wait
    (after_wait) or right before it, and with fresh route caches (the plans the library cached hold its own form)."""
    from regtile.codegen import emit_fewvec, emit_sgemv, kernel
    from regtile.runtime import fewvec, gemv
    from regtile.runtime.plan_store import PlanCache
    wait, trigger = kernel.PDL_WAIT, kernel.PDL_TRIGGER
    gemv_trigger = emit_sgemv.GEMV_ENTRY[:len(emit_sgemv.GEMV_ENTRY) - len(wait)]
    assert emit_sgemv.GEMV_ENTRY == gemv_trigger + wait, "GEMV_ENTRY is no longer trigger + wait"
    both = (lambda t: wait + t) if after_wait else (lambda t: t + wait)
    return patched_plan(m, n, k, operands, (
        (emit_sgemv, "GEMV_ENTRY", both(gemv_trigger)),
        # the few-vector kernels' first lines, and the prefetching main kernel's lines after its prefetch hints
        (emit_fewvec, "FEWVEC_ENTRY", both(trigger)), (emit_fewvec, "PDL_ENTRY", both(trigger)),
        (gemv, "_plans", {}), (fewvec, "plan_cache", PlanCache())))


def run(argv):
    graphs = take_option(argv, "graph") == "1"

    def one(torch, bench, m, n, k):
        lib, operands, row, skip = gemv_route_plan(bench, m, n, k)
        if skip:
            return row, skip
        plans = {"lib": lib, "before": trigger_form_plan(m, n, k, operands, False),
                 "after": trigger_form_plan(m, n, k, operands, True)}
        if plans["before"].kernel.artifact.cubin == plans["after"].kernel.artifact.cubin:
            raise RuntimeError("the two trigger forms compiled to one kernel: the emitted text did not change")
        return (time_plans_graphs if graphs else time_plans)(torch, bench, plans, row, lib.describe()[:60])

    over_shapes(argv, SHAPES, "gemv_trigger_ab.json", one)


main = program(run, "[graph=1] [LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
