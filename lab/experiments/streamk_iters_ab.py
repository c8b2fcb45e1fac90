"""Stream-K's range length on TN's cp.async ring (issue 20, session 38).

A stream-K member whose tiles leave block slots free cuts each tile's K into ranges of at least MIN_ITERS (8) k-tiles
(codegen/streamk.py plan_stream_k).  In TN the small 4x4 members run the cp.async ring of four stages where the whole
K holds more than 16 k-tiles (operand_forms.for_ring) - but their ranges kernel runs pieces of about 8 k-tiles, where
the ring lost in session 37.  The layout candidates run of session 38 (docs/data/session38/a_fe7883a) saw the stream-K
members' ring lose 13-15% (geometric mean) to their one-pass forms (plain-32x32, plain-32x64) against NN's ratios.

For each [LAYOUT:]MxNxK: the plan regtile.sgemm builds ("lib"); where it runs a stream-K member, its config with the
stream-K plan built at each min_iters of `iters=` ("iN"; "lib" is i8), its two-stage loop at 8 ("two", where the plan
runs the ring; with two=1 also at each min_iters, "two_iN") and the ring with no ranges at all ("whole": min_iters above K's k-tiles: whole tiles, the one-pass
member's work), against cuBLAS in the layout, each checked against float64 (C NaN-poisoned) and timed interleaved.
Each row keeps every plan's count of ranges.  With pdl=1 (and iters= empty: no ranges variants) the plan against
itself launched without programmatic dependent launch ("plain") and with its ranges kernel triggering the next kernel
as it exits rather than at its entry ("late", codegen/emit_ptx.PDL_TRIGGER_AT_ENTRY): session 38 found the back-to-back
times of some stream-K plans 30-60% above their plain launches' (session38_d).  Writes streamk_iters_ab.json under $OUT.

    python3 -m lab.experiments.streamk_iters_ab [iters=16,32] [two=1] [pdl=1 iters=] [LAYOUT:]MxNxK ...
"""
from lab.experiments import over_shapes, program, take_option, time_plans

SHAPES = ["TN:3072x64x512", "TN:384x768x384", "TN:768x512x512", "TN:512x512x512"]


def iters_plan(min_iters: int):
    """A GemmPlan class whose stream-K work lists are built with `min_iters` (codegen/streamk.MIN_ITERS, read when a
    stream's launches are first bound)."""
    from regtile.codegen import streamk
    from regtile.runtime.plans import GemmPlan

    class ItersPlan(GemmPlan):
        def _bind(self, stream):
            kept, streamk.MIN_ITERS = streamk.MIN_ITERS, min_iters
            try:
                return super()._bind(stream)
            finally:
                streamk.MIN_ITERS = kept
    return ItersPlan


def plain_plan():
    """A GemmPlan class whose launches are plain (no programmatic dependent launch: runtime/driver.PROGRAMMATIC, read
    when a stream's launches are first bound)."""
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan

    class PlainPlan(GemmPlan):
        def _bind(self, stream):
            kept, driver.PROGRAMMATIC = driver.PROGRAMMATIC, False
            try:
                return super()._bind(stream)
            finally:
                driver.PROGRAMMATIC = kept
    return PlainPlan


def late_trigger_plan(m, n, k, operands, cfg):
    """A GemmPlan of `cfg` whose ranges kernel does not trigger the next kernel at its entry (codegen/emit_ptx.
    PDL_TRIGGER_AT_ENTRY without "items": it triggers as it exits), compiled as the plan is built."""
    from regtile.codegen import emit_ptx
    from regtile.runtime.plans import GemmPlan
    kept = emit_ptx.PDL_TRIGGER_AT_ENTRY
    emit_ptx.PDL_TRIGGER_AT_ENTRY = tuple(t for t in kept if t != "items")
    try:
        return GemmPlan(m, n, k, *operands, config=cfg, backend="ptx")
    finally:
        emit_ptx.PDL_TRIGGER_AT_ENTRY = kept


def ranges_of(plan) -> int:
    """The K ranges the plan's stream-K launch runs (0: whole tiles only, or not stream-K)."""
    for bound in plan._bound.values():
        for s in bound.keep[1]:
            if getattr(s, "plan", None) is not None:
                return s.plan.ranges
    return 0


def run(argv):
    given = take_option(argv, "iters")  # "iters=" (empty): no range variants (session38_e ran 16,32: `or` took "")
    iters = [int(v) for v in ("16,32" if given is None else given).split(",") if v]
    both = take_option(argv, "two") == "1"
    pdl = take_option(argv, "pdl") == "1"

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
        lib = GemmPlan(m, n, k, *operands)
        row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b], "plan": lib.describe()}
        if lib.gemv is not None or lib.backend != "ptx" or not lib.config.stream_k:
            return row, f"not a stream-K member ({lib.describe()[:60]})"
        cfg = lib.config
        plans = {"lib": lib}
        for it in iters:
            plans[f"i{it}"] = iters_plan(it)(m, n, k, *operands, config=cfg, backend="ptx")
        if pdl:
            plans["plain"] = plain_plan()(m, n, k, *operands, config=cfg, backend="ptx")
            plans["late"] = late_trigger_plan(m, n, k, operands, cfg)
            if lib.kernel.artifact.cubin == plans["late"].kernel.artifact.cubin:
                raise RuntimeError("the late trigger's kernel is the plan's: emit_ptx's text was cached")
        if iters:
            plans["whole"] = iters_plan(k + 1)(m, n, k, *operands, config=cfg, backend="ptx")
        if cfg.stages > 2 and not pdl:
            two = cfg.replace(stages=2)
            plans["two"] = GemmPlan(m, n, k, *operands, config=two, backend="ptx")
            if both:
                for it in iters:
                    plans[f"two_i{it}"] = iters_plan(it)(m, n, k, *operands, config=two, backend="ptx")
        row, line = time_plans(torch, bench, plans, row, lib.describe()[:60])
        row["ranges"] = {name: ranges_of(p) for name, p in plans.items()}
        return row, line + "  ranges " + " ".join(f"{nm}={r}" for nm, r in row["ranges"].items())

    over_shapes(argv, SHAPES, "streamk_iters_ab.json", one)


main = program(run, "[iters=A,B] [LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
