"""A split's arrival in the fused kernel (session 34): __threadfence around the counter's atomicAdd (fence.sc.gpu:
MEMBAR.SC.GPU and an L1 invalidate, in every thread, before the arrival and after it) against a release / acquire RMW
by thread 0 between two barriers (emit_fusedk.RELEASE_ARRIVAL).  A fused-128x16 split's tail measured about 4 us
(docs/data/session34/j_5835829).  For each shape, the member regtile.sgemm picks (or the one named) at its split, built
both ways (the module constant set while each plan is built and loaded), each checked against float64 (C
NaN-poisoned), then timed interleaved with cuBLAS; split 1 (no arrival) as a control.

  python3 -m lab.experiments.fused_arrival_ab [MxNxK[:member] ...]   (at 741add2: the fence's path is gone since)

Writes fused_arrival_ab.json under $OUT: per shape {member, split, cublas_us, kernels {fence, release: {ok, rel_err,
us}}}.
"""
from lab.experiments import check_and_time_interleaved, program, write_out

DEFAULT = ["2048x16x32768", "8192x16x8192", "4096x16x4096", "512x16x8192", "4096x16x2048", "32768x16x2048",
           "16384x32x16384", "4096x32x11008", "2048x24x384", "768x256x512", "3136x64x576", "196x1152x384",
           "700x35x2048:fused-32x32", "65x33x4097:fused-32x32"]


def run(argv):
    from regtile.codegen import emit_fusedk
    from regtile.codegen import heuristic as h
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    if not hasattr(emit_fusedk, "RELEASE_ARRIVAL"):
        raise SystemExit("fused_arrival_ab: the fence's path was removed after this A/B (session 34); run it at 741add2")
    torch = _setup_torch()
    dev = driver.device()
    rows = []
    for spec in argv or DEFAULT:
        shape, _, member = spec.partition(":")
        m, n, k = (int(v) for v in shape.split("x"))
        member = member or h.choose_member(m, n, k, dev.sm_count)
        cfg, backend = h.member_config(member, m, n, k, dev.sm_count)
        bench = ShapeBench(torch, m, n, k)
        try:
            plans = {}
            for label, release in (("fence", False), ("release", True)):
                emit_fusedk.RELEASE_ARRIVAL = release
                plans[label] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
            emit_fusedk.RELEASE_ARRIVAL = True
            fns = dict(cublas=bench.cublas(), **{nm: bench.library(p) for nm, p in plans.items()})
            check, us = check_and_time_interleaved(torch, bench, fns, tuple(plans), rounds=7)
        finally:
            bench.close()
        rows.append({"m": m, "n": n, "k": k, "member": member, "split": cfg.split_k, "cublas_us": us["cublas"],
                     "kernels": {nm: dict(check[nm], us=us[nm]) for nm in plans}})
        write_out("fused_arrival_ab.json", {"device": dev.name, "rows": rows})
        ok = all(c["ok"] for c in check.values())
        print(f"{shape} {member} split {cfg.split_k}: fence {us['fence']:.2f}  release {us['release']:.2f} us "
              f"({us['release'] / us['fence'] - 1:+.1%})  cuBLAS {us['cublas']:.1f}{'' if ok else '  WRONG'}", flush=True)


main = program(run, "MxNxK[:member] ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
