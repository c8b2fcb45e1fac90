"""Where a ragged shape's time goes, on the member regtile.sgemm picks for it: the same member (its split for the
shape) on the packed operands as the plan runs it, then with one operand's rows, or all three's, padded to 16 bytes
(its forms regenerated for those leading dimensions: operand_forms.for_operands with ldc), and on the aligned
shape M, N, K rounded up to multiples of 4 (same tiles, no unaligned row) in a bench of its own.  Every variant is
checked against float64 (lab/experiments.check_view: its C NaN-poisoned, a padded C's padding columns untouched) and timed interleaved with
cuBLAS on tools/shape_sweep's ShapeBench; the aligned shape's line gives its time scaled to the ragged shape's
FLOPs too.  Writes ragged_cost_ab.json under $OUT.

    python3 -m lab.experiments.ragged_cost_ab [MxNxK ...]
"""
from . import check_view, over_shapes, program

DEFAULT = ["2047x4097x1023", "1023x4095x2047", "1111x3333x2222", "5555x555x5555", "2999x7001x211",
           "333x777x999", "100x1000x10000", "129x4097x513"]
PITCHES = {"A": (1, 0, 0), "B": (0, 1, 0), "C": (0, 0, 1), "all": (1, 1, 1)}


def _up4(v: int) -> int:
    return -(-v // 4) * 4


def _member_plan(name, m, n, k, lda, ldb, ldc):
    """A GemmPlan of member `name` (its split for M x N x K) generated for these leading dimensions."""
    from regtile.codegen.heuristic import member_config
    from regtile.codegen.operand_forms import for_operands
    from regtile.runtime.plans import GemmPlan
    cfg, backend = member_config(name, m, n, k, 132)
    cfg = for_operands(cfg, backend, lda, ldb, m, n, ldc)
    return GemmPlan(m, n, k, False, False, lda, ldb, ldc, config=cfg, backend=backend)


def one(torch, bench, m, n, k):
    import statistics
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, time_interleaved
    from regtile.codegen.heuristic import choose_member
    plan = GemmPlan(m, n, k, False, False, k, n, n)
    name = choose_member(m, n, k, 132)
    fns, check = {"cublas": bench.cublas(), "plan": bench.library(plan)}, {}
    c0 = {"plan": bench.c[0]}  # the C buffer each variant writes in set 0, for its check
    row = {"m": m, "n": n, "k": k, "member": name, "plan": plan.describe(), "variants": {}}
    # the padded copies stay alive until the timing is done: the launches hold raw pointers (session 27 e freed
    # them at the next variant, and the caching allocator handed their memory on: "B WRONG", rel err 1.41)
    keep = []
    for label, (pa, pb, pc) in PITCHES.items():
        lda, ldb, ldc = (_up4(k) if pa else k), (_up4(n) if pb else n), (_up4(n) if pc else n)
        if (lda, ldb, ldc) == (k, n, n):
            continue
        p = _member_plan(name, m, n, k, lda, ldb, ldc)
        row["variants"][label] = f"lda {lda} ldb {ldb} ldc {ldc}: {p.describe()} c_staged {p.config.c_staged}"
        a = [torch.zeros(m, lda, device="cuda") for _ in range(bench.sets)] if lda != k else None
        b = [torch.zeros(k, ldb, device="cuda") for _ in range(bench.sets)] if ldb != n else None
        c = [torch.empty(m, ldc, device="cuda") for _ in range(bench.sets)] if ldc != n else None
        keep.append((a, b, c))
        for i in range(bench.sets):
            if a is not None:
                a[i][:, :k].copy_(bench.a[i])
            if b is not None:
                b[i][:, :n].copy_(bench.b[i])
        ap = [(a or bench.a)[i].data_ptr() for i in range(bench.sets)]
        bp = [(b or bench.b)[i].data_ptr() for i in range(bench.sets)]
        cp = [(c or bench.c)[i].data_ptr() for i in range(bench.sets)]
        fns[label] = lambda i, p=p, ap=ap, bp=bp, cp=cp: p.launch(ap[i], bp[i], cp[i], 1.0, 0.0, 0)
        c0[label] = (c or bench.c)[0]
    for label, c in c0.items():
        check[label] = check_view(torch, fns[label], c, m, n, bench.reference())
    times = time_interleaved(torch, fns, bench.sets, 5)
    us = {label: round(statistics.median(t), 2) for label, t in times.items()}
    # the aligned shape (every extent rounded up to 4): the same member's split for it, packed, in its own bench
    m4, n4, k4 = _up4(m), _up4(n), _up4(k)
    aligned = ShapeBench(torch, m4, n4, k4)
    try:
        p4 = _member_plan(name, m4, n4, k4, k4, n4, n4)
        afns = {"cublas": aligned.cublas(), "member": aligned.library(p4)}
        ok, err, unwritten = aligned.check(afns["member"])
        check["aligned"] = {"ok": ok, "rel_err": err, "unwritten": unwritten}
        atimes = time_interleaved(torch, afns, aligned.sets, 5)
    finally:
        aligned.close()
    scale = (m * n * k) / (m4 * n4 * k4)
    row["aligned"] = {"shape": f"{m4}x{n4}x{k4}", "plan": p4.describe(),
                      "us": {label: round(statistics.median(t), 2) for label, t in atimes.items()}}
    row.update(check=check, us=us)
    au = row["aligned"]["us"]
    line = (f"{name}: cuBLAS {us['cublas']:.1f}  plan {us['plan']:.1f}  "
            + "  ".join(f"pitch {label} {us[label]:.1f}" for label in PITCHES if label in us)
            + f"  | aligned {m4}x{n4}x{k4}: member {au['member']:.1f} (scaled {au['member'] * scale:.1f}), "
              f"cuBLAS {au['cublas']:.1f} (scaled {au['cublas'] * scale:.1f})"
            + "".join(f"  {label} WRONG" for label, v in check.items() if not v["ok"]))
    return row, line


def run(argv):
    over_shapes(argv, DEFAULT, "ragged_cost_ab.json", one)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
