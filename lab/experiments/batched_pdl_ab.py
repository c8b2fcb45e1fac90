"""Where a batched GEMM kernel lets the next call be scheduled (issue 20, session 47).

The one-pass PTX kernels of single GEMMs trigger griddepcontrol.launch_dependents right after their wait
(emit_ptx.PDL_TRIGGER_AT_ENTRY, PDL_TRIGGER_AFTER_WAIT; sessions 38-39): the next call's blocks may take the block slots
this call's grid leaves free.  A batch whose blocks fill one wave only in part (NT 8 x 64x4096x14336 on
wide-64x128-k16: 256 blocks in 396 slots) then ran the next call's first blocks beside this one's, and their SMs
ended with more blocks than the rest: session 47's Nsight Compute run (c_cf63c31: one call, kernels serialised) timed
that batch at 1284.7 us, against 1571.2 interleaved back to back in run a_d03bf74 (torch.bmm 1318.8 / 1314.6).  Since
session 47 a batched one-pass kernel triggers at its exit (emit_ptx.PDL_BATCHED_AT_ENTRY False).

For each batched shape of the suites (lab/experiments/batched_sweep.BatchedBench): regtile.sgemm's own call ("lib")
against the same config built with the batched kernels triggering at entry as before ("entry": PDL_BATCHED_AT_ENTRY
True), and torch.bmm, each checked against float64 (C NaN-poisoned), then timed interleaved back to back
(batched_sweep's check_and_time).  Shapes whose call runs no one-pass PTX kernel (batched GEMVs, the split skinny
kernel) are skipped.  Writes batched_pdl_ab.json under $OUT (entry_over_lib: the time at entry over the library's).
Run d_0a8b858 timed it the other way round, before the change: "lib" triggering at entry, "exit" at exit
(exit_over_lib).

    python3 -m lab.experiments.batched_pdl_ab [suite=FILE ...] [budget=SECONDS]     (GPU)
"""
import json
import os
import sys
import time

from lab.experiments import program, take_option, write_out

SUITES = ("benchmarks/shapes-batched.json", "benchmarks/shapes-batched-heldout.json",
          "benchmarks/shapes-batched-heldout-2.json")


def entry_trigger_plan(p, cfg, backend):
    """A GemmPlan of `cfg` on the kernel-level problem `p`, its batched one-pass kernel triggering right after its wait
    (as single GEMMs' do), as before session 47."""
    from regtile.codegen import emit_ptx
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched
    with patched(emit_ptx, "PDL_BATCHED_AT_ENTRY", True):
        return GemmPlan(p.kernel_m, p.kernel_n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc, p.batch, p.strides,
                        config=cfg, backend=backend)


def run(argv) -> None:
    budget = float(take_option(argv, "budget") or 1e9)
    suites = [a.split("=", 1)[1] for a in argv if a.startswith("suite=")] or list(SUITES)
    import torch
    from regtile.runtime.plans import plan_cache
    from .batched_sweep import BatchedBench, check_and_time
    torch.backends.cuda.matmul.allow_tf32 = False
    t0 = time.time()
    rows = []
    shapes = [e for path in suites for e in json.load(open(path))]
    for idx, e in enumerate(shapes):
        if time.time() - t0 > budget:
            print(f"budget reached: {len(shapes) - idx} shapes left out", file=sys.stderr, flush=True)
            break
        label = f"{e['layout']} {e['batch']} x {e['m']}x{e['n']}x{e['k']}"
        bench = BatchedBench(torch, e, seed=idx)
        try:
            p = bench.problem()
            fns = {"bmm": bench.bmm(), "lib": bench.library()}
            fns["lib"](0)  # regtile.sgemm builds and caches its plan
            lib = next(q for q in plan_cache.values() if (q.m, q.n, q.k, q.batch, q.trans_a, q.trans_b)
                       == (p.kernel_m, p.kernel_n, p.k, p.batch, p.trans_a, p.trans_b))
            if lib.gemv is not None or lib.backend != "ptx":
                print(f"[{idx + 1}/{len(shapes)}] {label}: skipped ({'a GEMV' if lib.gemv else lib.backend} call)",
                      flush=True)
                continue
            entry_plan = entry_trigger_plan(p, lib.config, lib.backend)
            if entry_plan.kernel.artifact.cubin == lib.kernel.artifact.cubin:
                print(f"[{idx + 1}/{len(shapes)}] {label}: skipped (no entry trigger)", flush=True)
                continue
            fns["entry"] = bench.plan(entry_plan)
            check, us, retimed = check_and_time(torch, bench, fns)
        finally:
            bench.close()
        row = dict(e, us=us, check=check, retimed=retimed, config=lib.config.describe()[:80],
                   entry_over_lib=round(us["entry"] / us["lib"], 4))
        rows.append(row)
        write_out("batched_pdl_ab.json", {"device": torch.cuda.get_device_name(0),
                                          "commit": os.environ.get("REGTILE_COMMIT", "unknown"), "rows": rows})
        wrong = [n for n, c in check.items() if not c["ok"]]
        print(f"[{idx + 1}/{len(shapes)}] {label}: lib {us['lib']:.1f} us, entry {us['entry']:.1f} "
              f"({row['entry_over_lib']:.3f}), bmm {us['bmm']:.1f}" + (f"; WRONG {wrong}" if wrong else "")
              + f"  [{row['config'][:50]}]; {time.time() - t0:.0f} s", flush=True)


main = program(run, "[suite=FILE ...] [budget=SECONDS]")

if __name__ == "__main__":
    sys.exit(main())
