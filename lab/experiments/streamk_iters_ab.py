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
itself launched without programmatic dependent launch ("plain") and with its trigger kernel letting the next kernel be
scheduled where the library's does not (trigger_switch: stream-K's ranges kernel, the PTX one-pass kernel, the CUDA C
split-K partial kernel; "late", at its exit, where the library's triggers at entry; "early", at its entry, where at
exit).  Session 38 measured the ranges kernel's (docs/data/session38/e_a4c736a: "late" then) and took the trigger at
exit; with pdl=1 the one-pass and split-K plans are timed too.  With graph=1 every variant is timed as a CUDA graph
of 20 calls on its own stream (lab/experiments.time_plans_graphs; "us_stream": the same calls from Python), not by
shape_sweep's back-to-back batches.  With pdl=1 also, for a PTX plan with after=1, its trigger kernel triggering
at its entry "before" and "after" its griddepcontrol.wait (emit_ptx.PDL_TRIGGER_AFTER_WAIT; session 39: at 5e6f424
the one-pass kernel's "lib" triggered before it and c_5e6f424 names that variant "after" alone; since 4a19691 the
one-pass "after" is "lib", the ranges kernel's "before" is "early"); for a CUDA C split-K plan with mid=1, its partial
kernel's trigger after its main loop, before its stores ("mid"); with partial=1 its partial kernel launched plainly
("plain_partial": splitk.PARTIAL_PROGRAMMATIC False: the library's form until j_5ba4120 but for its trigger, now
ahead of the split's K-range arithmetic rather than after it); with fused=1 a fused split-K plan (backend fusedk),
programmatic with no trigger since session 40, also launched plainly ("plain") and with the trigger right after its
wait ("wait_trigger"; pdl=1 not needed.  At a258874 / ea44d3f, before the library took the form, fused=1 timed
"programmatic", that trigger, and fused_exit=1 "programmatic_exit", the library's form now).  Writes
streamk_iters_ab.json under $OUT.

    python3 -m lab.experiments.streamk_iters_ab [iters=16,32] [two=1] [pdl=1 iters= [after=1] [mid=1] [partial=1]] [fused=1] [graph=1] [LAYOUT:]MxNxK ...
"""
from lab.experiments import over_shapes, patched_plan, program, take_option, time_plans, time_plans_graphs

SHAPES = ["TN:3072x64x512", "TN:384x768x384", "TN:768x512x512", "TN:512x512x512"]


def bound_with(owner, name: str, value):
    """A GemmPlan class whose launches are bound (a stream's first call: the stream-K work list, the launch configs)
    with owner.`name` set to `value`: codegen/streamk.MIN_ITERS (the ranges' least k-tiles), runtime/driver.PROGRAMMATIC
    (False: plain launches, no programmatic dependent launch)."""
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched

    class BoundPlan(GemmPlan):
        def _bind(self, stream):
            with patched(owner, name, value):
                return super()._bind(stream)
    return BoundPlan


def iters_plan(min_iters: int):
    from regtile.codegen import streamk
    return bound_with(streamk, "MIN_ITERS", min_iters)


def plain_plan():
    from regtile.runtime import driver
    return bound_with(driver, "PROGRAMMATIC", False)


def trigger_switch(cfg, backend: str):
    """(name, patches) that turn around where the plan's trigger kernel lets the next kernel be scheduled
    (griddepcontrol.launch_dependents): the PTX stream-K ranges kernel ("items" in codegen/emit_ptx.
    PDL_TRIGGER_AT_ENTRY), the PTX one-pass kernel ("grid" there), the CUDA C split-K partial kernel (codegen/splitk.
    PDL_TRIGGER, whose dependent is its reduce kernel).  name: "late" where the library's triggers at entry (the
    variant at exit), "early" where at exit (the variant at entry, before its wait: session 38's form); patches:
    (owner, attribute, value) for patched_plan.  None where the plan has no such kernel."""
    from regtile.codegen import emit_ptx
    if backend == "ptx":
        tiles = "items" if cfg.stream_k else "grid"
        now = emit_ptx.PDL_TRIGGER_AT_ENTRY
        if tiles in now:
            return "late", ((emit_ptx, "PDL_TRIGGER_AT_ENTRY", tuple(t for t in now if t != tiles)),)
        return "early", ((emit_ptx, "PDL_TRIGGER_AT_ENTRY", now + (tiles,)), (emit_ptx, "PDL_TRIGGER_AFTER_WAIT", False))
    if backend == "cuda" and cfg.split_k > 1:  # the library's partial kernel triggers at its entry
        return "late", no_partial_trigger()
    return None


def no_partial_trigger():
    """Patches that take the CUDA C split-K partial kernel's trigger out of its first lines (its wait stays where it
    is programmatic): codegen/splitk.partial_pdl's PDL_ENTRY and PDL_TRIGGER."""
    from regtile.codegen import kernel, splitk
    return ((splitk, "PDL_ENTRY", kernel.PDL_WAIT), (splitk, "PDL_TRIGGER", ()))


def entry_trigger_patches(cfg, after_wait: bool):
    """The PTX `cfg`'s trigger kernel (the one-pass kernel, or stream-K's ranges kernel) triggering at its entry:
    right after its griddepcontrol.wait (after_wait: emit_ptx.PDL_TRIGGER_AFTER_WAIT, the next call's blocks
    scheduled once this call's have all passed the wait) or before it (from their entry)."""
    from regtile.codegen import emit_ptx
    tiles = "items" if cfg.stream_k else "grid"
    return ((emit_ptx, "PDL_TRIGGER_AT_ENTRY", tuple(set(emit_ptx.PDL_TRIGGER_AT_ENTRY) | {tiles})),
            (emit_ptx, "PDL_TRIGGER_AFTER_WAIT", after_wait))


def mid_trigger_patches():
    """The CUDA C split-K partial kernel letting its reduce be scheduled after its main loop, before its stores
    (codegen/splitk.partial_store_setup), not at its entry (splitk.PDL_TRIGGER)."""
    from regtile.codegen import kernel, splitk
    store_setup = splitk.partial_store_setup
    return no_partial_trigger() + (
        (splitk, "partial_store_setup", lambda vec: store_setup(vec) + list(kernel.PDL_TRIGGER)),)


def fused_plain_patches():
    """The fused split-K kernel launched plainly, no wait (codegen/emit_fusedk.PROGRAMMATIC False: the library's form
    until session 40)."""
    from regtile.codegen import emit_fusedk
    return ((emit_fusedk, "PROGRAMMATIC", False),)


def fused_wait_trigger_patches():
    """The fused split-K kernel programmatic with the trigger right after its wait (kernel.PDL_ENTRY), where the
    library's has none (emit_fusedk.ENTRY: the next call scheduled as its blocks exit).  Session 40 (a_a258874,
    d_ea44d3f, where it was "programmatic"): the NN 128x16 / 128x32 members 12-53% slower than launched plainly."""
    from regtile.codegen import emit_fusedk, kernel
    return ((emit_fusedk, "ENTRY", kernel.PDL_ENTRY),)


def plain_partial_patches():
    """The CUDA C split-K partial kernel launched plainly, triggering at its entry (no wait:
    codegen/splitk.PARTIAL_PROGRAMMATIC False: the form before session 39's j_5ba4120, its trigger ahead of the K-range
    arithmetic instead of after it - a different schedule in the sm_90 cubin, the same place in the kernel's work)."""
    from regtile.codegen import splitk
    return ((splitk, "PARTIAL_PROGRAMMATIC", False),)


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
    graphs = take_option(argv, "graph") == "1"
    after = take_option(argv, "after") == "1"
    mid = take_option(argv, "mid") == "1"
    partial = take_option(argv, "partial") == "1"
    fused = take_option(argv, "fused") == "1"

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
        lib = GemmPlan(m, n, k, *operands)
        row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b], "plan": lib.describe()}
        cfg, backend = lib.config, lib.backend
        switch = trigger_switch(cfg, backend) if pdl and lib.gemv is None else None
        fused_ab = fused and lib.gemv is None and backend == "fusedk"
        if lib.gemv is not None or not (backend == "ptx" and cfg.stream_k or switch or fused_ab):
            return row, f"not a stream-K member{' nor a split-K or one-pass one' if pdl else ''} ({lib.describe()[:60]})"
        plans = {"lib": lib}
        if fused_ab:
            fused_variants = {"plain": fused_plain_patches, "wait_trigger": fused_wait_trigger_patches}
            for name, patches in fused_variants.items():
                plans[name] = patched_plan(m, n, k, operands, patches(), cfg, backend)
            if len({plans[name].kernel.artifact.cubin for name in ("lib", *fused_variants)}) < 1 + len(fused_variants):
                raise RuntimeError("a fused variant with another's kernel: the emitted text was cached?")
        if cfg.stream_k:
            for it in iters:
                plans[f"i{it}"] = iters_plan(it)(m, n, k, *operands, config=cfg, backend=backend)
        if switch:
            plans["plain"] = plain_plan()(m, n, k, *operands, config=cfg, backend=backend)
            variants = {switch[0]: switch[1]}
            if after and backend == "ptx":
                variants.update(before=entry_trigger_patches(cfg, False), after=entry_trigger_patches(cfg, True))
            if mid and backend == "cuda":
                variants["mid"] = mid_trigger_patches()
            if partial and backend == "cuda":
                variants["plain_partial"] = plain_partial_patches()
            for name, patches in variants.items():
                plans[name] = patched_plan(m, n, k, operands, patches, cfg, backend)
            cubins = {name: plans[name].kernel.artifact.cubin for name in ("lib", *variants)}
            if len(set(cubins.values())) < len(cubins) - (1 if after and backend == "ptx" else 0):
                raise RuntimeError(f"variants with the plan's kernel: {sorted(cubins)} (the emitted text was cached?)")
        if iters and cfg.stream_k:
            plans["whole"] = iters_plan(k + 1)(m, n, k, *operands, config=cfg, backend=backend)
        if cfg.stages > 2 and not pdl:
            two = cfg.replace(stages=2)
            plans["two"] = GemmPlan(m, n, k, *operands, config=two, backend=backend)
            if both:
                for it in iters:
                    plans[f"two_i{it}"] = iters_plan(it)(m, n, k, *operands, config=two, backend=backend)
        row, line = (time_plans_graphs if graphs else time_plans)(torch, bench, plans, row, lib.describe()[:60])
        row["ranges"] = {name: ranges_of(p) for name, p in plans.items()}
        return row, line + "  ranges " + " ".join(f"{nm}={r}" for nm, r in row["ranges"].items())

    over_shapes(argv, SHAPES, "streamk_iters_ab.json", one)


main = program(run, "[iters=A,B] [two=1] [pdl=1 iters= [after=1] [mid=1] [partial=1]] [fused=1] [graph=1] [LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
