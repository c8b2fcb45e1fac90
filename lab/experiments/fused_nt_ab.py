"""The fused split-K kernel on B^T (session 30): where regtile.sgemm's member for row-major A and B is a fused one,
nn.Linear's layout (NT: y = x W^T, B^T stored N x K) ran another member until now (the fused kernel read row-major B
only, session 30), and the suite's NT sweep had 32768x32x4096 at 0.844x cuBLAS's NT and
16384x32x16384 at 0.969x (docs/data/session30/c_4041268).  With trans_b the fused kernel copies B^T a float at a
time, lanes on consecutive n (templates/sgemm_fusedk.cu.j2).  Per shape, in the NT layout, checked against float64
and timed interleaved with cuBLAS's NT: the fused member on B^T ("fused-nt") against the unfused member regtile.sgemm
runs there ("unfused-nt"); then in NN the fused member against cuBLAS's NN, for what B^T costs it.  (At c454180 the
plans routed NT to the fused member, and "fused-nt" was regtile.sgemm's plan: the same kernel.)  Measured (H200,
docs/data/session30/d_c454180): fused-nt 0.56-0.84x cuBLAS's NT, slower than unfused-nt on five of the six shapes
(196x1152x384 the exception, 0.563 against 0.462): not routed.  (Session 33 replaced that B^T form with float4
copies into swizzled rows and routed fused picks in every layout: docs/shapes.md.)

  python3 -m lab.experiments.fused_nt_ab [MxNxK ...]   (default: the suite's and held-out sets' shapes whose
                                                        row-major member is fused)
"""
from lab.experiments import check_and_time_interleaved, program, registers, versus, write_out

DEFAULT = ["16384x32x16384", "32768x32x4096", "3136x64x576", "196x1152x384", "4096x32x11008", "8192x24x8192"]


def run(argv):
    from regtile.codegen import heuristic as h
    from regtile.codegen.layouts import with_layout
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    torch = _setup_torch()
    sms = driver.device().sm_count
    rows = []
    for spec in argv or DEFAULT:
        m, n, k = (int(v) for v in spec.split("x"))
        row = {"m": m, "n": n, "k": k, "member": h.choose_member(m, n, k, sms),
               "unfused": h.choose_member(m, n, k, sms, fused=False)}
        for layout in ("NT", "NN"):
            bench = ShapeBench(torch, m, n, k, layout=layout)
            try:
                tb = layout == "NT"
                cfg, be = h.choose_kernel(m, n, k, "sm_90", sms)  # the row-major member (fused), B^T where NT
                plans = {f"fused-{layout.lower()}": GemmPlan(m, n, k, False, tb, bench.lda, bench.ldb, n,
                                                             config=cfg.replace(trans_b=tb), backend=be)}
                if tb:  # the unfused members' best on NT (what regtile.sgemm ran there until session 33)
                    ucfg, ube = h.member_config(row["unfused"], m, n, k, sms)
                    plans["unfused-nt"] = GemmPlan(m, n, k, False, True, bench.lda, bench.ldb, n,
                                                   config=with_layout(ucfg, False, True), backend=ube)
                fns = dict(cublas=bench.cublas(), **{name: bench.library(p) for name, p in plans.items()})
                check, us = check_and_time_interleaved(torch, bench, fns, tuple(plans))
                row[layout] = {"check": check, "us": us, "kernels": {nm: p.kernel.label for nm, p in plans.items()},
                               "registers": {nm: registers(p.kernel.artifact) for nm, p in plans.items()}}
                print(f"{spec} {layout}: {versus(us, check, plans)}", flush=True)
            finally:
                bench.close()
        rows.append(row)
    write_out("fused_nt_ab.json", {"rows": rows})


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
