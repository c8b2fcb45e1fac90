"""Unaligned rows: the library's plan as committed against repacking the unaligned operand(s) into
16-byte aligned rows first (session 6 prototype: torch's strided copy as the repack, then the plan the
library builds for the aligned leading dimensions), and cuBLAS, interleaved kernel against kernel on
tools/shape_sweep's ShapeBench (every variant checked against float64 first, C NaN-poisoned).  The
"repack alone" line times the copies by themselves.  Writes repack_ab.json under $OUT.

Session 14 added the paddings (pads=c4,c4+4,c32: the leading dimension rounded up to 4 floats, 4 more, or
32) and the aligned plan timed alone on the copies; session 26 a4 / b4 (A's or B's rows alone, to 4 floats) and
PAD-old (the plan's kernel without operand_forms.for_vector_edges).

    python3 -m lab.experiments.repack_ab [pads=c4,...] [[LAYOUT:]MxNxK ...]   (session 42: NT, TN, TT too)
"""
from . import check_and_time_interleaved, over_shapes, program, take_option

DEFAULT = ["8191x8193x1025", "4099x4093x4091", "6143x2047x3071", "1023x1025x1023", "1009x1013x1019",
           "2049x2047x1025", "513x129x16383", "255x257x65537", "127x511x257", "3x5x7"]


PADS = {"c4": lambda d: -(-d // 4) * 4, "c4+4": lambda d: -(-d // 4) * 4 + 4, "c32": lambda d: -(-d // 32) * 32}
# Session 26: one operand alone, rounded up to 4 floats (the other keeps its unaligned rows and the kernel's
# per-operand test sends it down the vector floats): which operand's copies cost the time.
ONLY = {"a4": "A", "b4": "B"}
# PAD-old: that padding with the plan's kernel as before operand_forms.for_vector_edges (edge_vector_path off).


def one(torch, bench, m, n, k, pads=("c4",)):
    """The plan as committed, then for each padding of the leading dimensions (PADS) the copies and the plan
    for the padded rows ("repacked NAME"), that plan alone on the copies ("aligned NAME": what the copies buy)
    and the copies alone ("copies NAME").  In any layout (session 42): A's stored rows are K long, or M long where
    op(A) = A^T; B's N long, or K long where op(B) = B^T."""
    from regtile.codegen.repack import stored_rows
    from regtile.runtime.plans import GemmPlan
    ta, tb = bench.trans_a, bench.trans_b
    plan = GemmPlan(m, n, k, ta, tb, bench.lda, bench.ldb, n)
    a, b, c = bench.a, bench.b, bench.c
    fns = {"cublas": bench.cublas(), "library": bench.library(plan)}
    checked, row = ["library"], {"m": m, "n": n, "k": k, "layout": ("T" if ta else "N") + ("T" if tb else "N"),
                                 "library": plan.describe(), "aligned": {}}
    (rows_a, len_a), (rows_b, len_b) = stored_rows(m, n, k, ta, tb)  # as stored: rows of len floats
    for pad in pads:
        base, old = pad.removesuffix("-old"), pad.endswith("-old")
        rule, only = (PADS["c4"], ONLY[base]) if base in ONLY else (PADS[base], None)
        lda = rule(len_a) if len_a % 4 and only in (None, "A") else len_a
        ldb = rule(len_b) if len_b % 4 and only in (None, "B") else len_b
        aligned = GemmPlan(m, n, k, ta, tb, lda, ldb, n)
        if old and aligned.gemv is None:
            aligned = GemmPlan(m, n, k, ta, tb, lda, ldb, n, config=aligned.config.replace(edge_vector_path=False),
                               backend=aligned.backend)
        row["aligned"][pad] = f"lda {lda} ldb {ldb}: {aligned.describe()}"
        ap = [torch.zeros(rows_a, lda, device="cuda") for _ in range(bench.sets)] if lda != len_a else None
        bp = [torch.zeros(rows_b, ldb, device="cuda") for _ in range(bench.sets)] if ldb != len_b else None

        def repack(i, ap=ap, bp=bp):
            if ap is not None:
                ap[i][:, :len_a].copy_(a[i])
            if bp is not None:
                bp[i][:, :len_b].copy_(b[i])

        def aligned_only(i, ap=ap, bp=bp, aligned=aligned):
            aligned.launch((ap[i] if ap is not None else a[i]).data_ptr(),
                           (bp[i] if bp is not None else b[i]).data_ptr(), c[i].data_ptr(), 1.0, 0.0, 0)

        def repacked(i, repack=repack, aligned_only=aligned_only):
            repack(i)
            aligned_only(i)

        fns.update({f"repacked {pad}": repacked, f"aligned {pad}": aligned_only, f"copies {pad}": repack})
        checked.append(f"repacked {pad}")
    check, us = check_and_time_interleaved(torch, bench, fns, tuple(checked))
    row.update(check=check, us=us)
    cb = us["cublas"]
    return row, (f"cuBLAS {cb:.1f}  library {us['library']:.1f} (x{cb / us['library']:.3f})  " + "  ".join(
        f"{pad}: repacked {us['repacked ' + pad]:.1f} (x{cb / us['repacked ' + pad]:.3f}; aligned "
        f"{us['aligned ' + pad]:.1f}, copies {us['copies ' + pad]:.1f}, ok {check['repacked ' + pad]['ok']})"
        for pad in pads) + f"  ok {check['library']['ok']}")


def run(argv):
    pads = tuple((take_option(argv, "pads") or "c4").split(","))
    over_shapes(argv, DEFAULT, "repack_ab.json", lambda *a: one(*a, pads=pads))


main = program(run, "[LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
