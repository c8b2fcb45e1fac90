"""Repacking rules through regtile.sgemm's plan (codegen/repack.py, session 43): for each [LAYOUT:]MxNxK the plan
with each rule of `rules=` (which stored operands the plan copies into padded rows with templates/pack_rows.cu.j2's
kernel before its GEMM: AB, A or B, where all of the rule's operands have unaligned rows, else none; whatever
m n / (m + n) and the GEMM's size: a RepackRule with min_work 0, REPACK_MIN_MACS 0), the plan that
reads every operand in place ("inplace") and cuBLAS, every plan checked against float64 (C NaN-poisoned), then timed
interleaved kernel against kernel on tools/shape_sweep's ShapeBench.  "lib": the plan as committed.  Session 42
timed TT / TN with torch's copies only (repack_ab, f_8358846); this times the plan's own copy kernel.  With parts=1,
where "lib" repacks, its copies alone ("lib copies") and its GEMM alone on the copies ("lib gemm"; both unchecked):
what the launches between them cost is the rest.  Writes repack_rule_ab.json under $OUT.

    python3 -m lab.experiments.repack_rule_ab [rules=AB,B | rules=none] [parts=1] [plus=8] [LAYOUT:]MxNxK ...
    (rules=none: lib and inplace only; plus=P: the rules' copies padded to K rounded up to 4 plus P, not 4 - does a
    leading dimension of 4096, where 4089-4092 land, cost anything?)
"""
from . import checked_row, over_shapes, patched_plan, program, take_option

DEFAULT = ["TT:2049x2047x1025", "TT:4001x4003x4007", "NN:2049x2047x1025"]


def parts_of(plan, bench):
    """{"lib copies", "lib gemm"}: fn(i) launching a repacking plan's copies alone, or its GEMM alone, on set i (the
    plan's launches on the default stream: the copies first, GemmPlan._bind)."""
    launches = plan._bind(0).launches
    # the copy kernel's launches (one since 3f1e72b; session 43's e_3f1e72b counted one an operand, so its "lib
    # copies" ran the copy and the GEMM, its "lib gemm" nothing)
    ncopies = sum(launch.kernel is plan.pack_kernel for launch in launches)
    a, b, c = bench.a, bench.b, bench.c

    def run(part):
        return lambda i: [launch((a[i].data_ptr(), b[i].data_ptr(), c[i].data_ptr(), 1.0, 0.0), 0) for launch in part]
    return {"lib copies": run(launches[:ncopies]), "lib gemm": run(launches[ncopies:])}


def one(torch, bench, m, n, k, rules=("AB",), parts=False, plus=4):
    from regtile.codegen import repack
    from regtile.runtime.plans import GemmPlan
    layout = ("T" if bench.trans_a else "N") + ("T" if bench.trans_b else "N")
    ops = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
    plans = {"lib": GemmPlan(m, n, k, *ops)}
    # session 43's a-d patched REPACK_OPERANDS / REPACK_MIN_HARMONIC, since f one table of RepackRule's
    plans["inplace"] = patched_plan(m, n, k, ops, [(repack, "REPACK_RULES", {})])
    for rule in rules:
        padding = [] if plus == 4 else [(repack, "padded", lambda length: -(-length // 4) * 4 + plus)]
        forced = [(repack, "REPACK_RULES", {layout: (repack.RepackRule(rule, 0),)}), (repack, "REPACK_MIN_MACS", 0)]
        plan = patched_plan(m, n, k, ops, forced + padding)
        if plan.repack is not None:  # the rule's operands' rows all unaligned
            plans[f"copy {rule}"] = plan
    row = {"m": m, "n": n, "k": k, "layout": layout, "plans": {name: p.describe() for name, p in plans.items()}}
    fns = dict(cublas=bench.cublas(), **{name: bench.library(p) for name, p in plans.items()})
    if parts and plans["lib"].repack is not None:
        fns.update(parts_of(plans["lib"], bench))
    return checked_row(torch, bench, fns, row, unchecked=("lib copies", "lib gemm"))


def run(argv):
    rules = tuple(r for r in (take_option(argv, "rules") or "AB").split(",") if r != "none")
    parts = take_option(argv, "parts") == "1"
    plus = int(take_option(argv, "plus") or 4)
    over_shapes(argv, DEFAULT, "repack_rule_ab.json", lambda *a: one(*a, rules=rules, parts=parts, plus=plus))


main = program(run, "[LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
