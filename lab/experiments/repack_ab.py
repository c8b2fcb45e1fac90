"""Unaligned rows: the library's plan as committed against repacking the unaligned operand(s) into
16-byte aligned rows first (session 6 prototype: torch's strided copy as the repack, then the plan the
library builds for the aligned leading dimensions), and cuBLAS, interleaved kernel against kernel on
tools/shape_sweep's ShapeBench (every variant checked against float64 first, C NaN-poisoned).  The
"repack alone" line times the copies by themselves.  Writes repack_ab.json under $OUT.

    python3 -m lab.experiments.repack_ab [MxNxK ...]
"""
from . import check_and_time_interleaved, over_shapes, program

DEFAULT = ["8191x8193x1025", "4099x4093x4091", "6143x2047x3071", "1023x1025x1023", "1009x1013x1019",
           "2049x2047x1025", "513x129x16383", "255x257x65537", "127x511x257", "3x5x7"]


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    lda, ldb = -(-k // 4) * 4, -(-n // 4) * 4
    plan = GemmPlan(m, n, k, False, False, k, n, n)
    aligned = GemmPlan(m, n, k, False, False, lda, ldb, n)
    ap = [torch.zeros(m, lda, device="cuda") for _ in range(bench.sets)] if lda != k else None
    bp = [torch.zeros(k, ldb, device="cuda") for _ in range(bench.sets)] if ldb != n else None
    a, b, c = bench.a, bench.b, bench.c

    def repack(i):
        if ap is not None:
            ap[i][:, :k].copy_(a[i])
        if bp is not None:
            bp[i][:, :n].copy_(b[i])

    def repacked(i):
        repack(i)
        aligned.launch((ap[i] if ap is not None else a[i]).data_ptr(), (bp[i] if bp is not None else b[i]).data_ptr(),
                       c[i].data_ptr(), 1.0, 0.0, 0)

    fns = {"cublas": bench.cublas(), "library": bench.library(plan), "repacked": repacked, "repack alone": repack}
    check, us = check_and_time_interleaved(torch, bench, fns, ("library", "repacked"))
    row = {"m": m, "n": n, "k": k, "library": plan.describe(), "aligned": aligned.describe(), "check": check,
           "us": us}
    cb = us["cublas"]
    return row, (f"cuBLAS {cb:.1f}  library {us['library']:.1f} (x{cb / us['library']:.3f})  "
                 f"repacked {us['repacked']:.1f} (x{cb / us['repacked']:.3f}; copies {us['repack alone']:.1f})"
                 f"  ok {check['library']['ok']}/{check['repacked']['ok']}  {aligned.describe()[:60]}")


def run(argv):
    over_shapes(argv, DEFAULT, "repack_ab.json", one)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
