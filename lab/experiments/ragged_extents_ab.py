"""Which ragged extent costs the time: one family member (NAME, or the one regtile.sgemm picks for the aligned
shape) on sub-problems of one aligned bench, M4 x N4 x K4 (every extent a multiple of 4, rows packed at those
widths): the whole, then M, N or K trimmed by 1-3 to the ragged shape's own extent, then all three - every variant
on the same 16-byte aligned rows (lda = K4, ldb = ldc = N4), its config generated for them (operand_forms), so
only the extents differ.  Session 27 e (ragged_cost_ab) measured 1023x4095x2047 with aligned rows at 372.2 us and
1024x4096x2048 at 330.0 on wide-128x256-noedge: 11% for the ragged extents alone.  Every variant checked against
float64 on its sub-problem (C NaN-poisoned, the columns beyond its N kept), timed interleaved with cuBLAS on the
whole.  Writes ragged_extents_ab.json under $OUT.

    python3 -m lab.experiments.ragged_extents_ab [member=NAME] [MxNxK ...]   (the ragged shapes)
"""
from . import check_view, over_shapes, program, take_option

DEFAULT = ["1023x4095x2047", "1111x3333x2222", "2047x4097x1023", "5555x555x5555"]


def _up4(v: int) -> int:
    return -(-v // 4) * 4


def one(torch, bench, m4, n4, k4, ragged, member=None):
    """bench: the aligned M4 x N4 x K4; ragged: (m, n, k) of the shape whose extents are tried."""
    import statistics
    from regtile.codegen.heuristic import choose_member, member_config
    from regtile.codegen.operand_forms import for_operands
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import time_interleaved
    m, n, k = ragged
    name = member or choose_member(m, n, k, 132)
    shapes = {"aligned": (m4, n4, k4), "M": (m, n4, k4), "N": (m4, n, k4), "K": (m4, n4, k), "MNK": (m, n, k)}
    fns, check, row = {"cublas": bench.cublas()}, {}, {"shape": f"{m}x{n}x{k}", "member": name, "variants": {}}
    for label, (mm, nn, kk) in shapes.items():
        if label != "aligned" and (mm, nn, kk) == (m4, n4, k4):
            continue
        cfg, backend = member_config(name, mm, nn, kk, 132)
        cfg = for_operands(cfg, backend, k4, n4, mm, nn, n4)
        plan = GemmPlan(mm, nn, kk, False, False, k4, n4, n4, config=cfg, backend=backend)
        row["variants"][label] = f"{mm}x{nn}x{kk}: {plan.describe()}"
        fns[label] = lambda i, p=plan: p.launch(bench.a[i].data_ptr(), bench.b[i].data_ptr(), bench.c[i].data_ptr(),
                                                1.0, 0.0, 0)
        ref = bench.a[0][:mm, :kk].double() @ bench.b[0][:kk, :nn].double()
        check[label] = check_view(torch, fns[label], bench.c[0], mm, nn, ref)
    times = time_interleaved(torch, fns, bench.sets, 5)
    us = {label: round(statistics.median(t), 2) for label, t in times.items()}
    row.update(check=check, us=us)
    line = f"{name}: cuBLAS ({m4}x{n4}x{k4}) {us['cublas']:.1f}  " + "  ".join(
        f"{label} {us[label]:.1f}{' WRONG' if not check[label]['ok'] else ''}" for label in shapes if label in us)
    return row, line


def run(argv):
    member = take_option(argv, "member")
    shapes = argv or DEFAULT

    def each(torch, bench, m4, n4, k4):
        return one(torch, bench, m4, n4, k4, ragged[(m4, n4, k4)], member)
    ragged = {}
    aligned = []
    for spec in shapes:
        m, n, k = (int(v) for v in spec.split("x"))
        key = (_up4(m), _up4(n), _up4(k))
        ragged[key] = (m, n, k)
        aligned.append("x".join(str(v) for v in key))
    over_shapes(aligned, aligned, "ragged_extents_ab.json", each)


main = program(run, "[member=NAME] [MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
