"""Repacking rules through regtile.sgemm's plan (codegen/repack.py, session 43): for each [LAYOUT:]MxNxK the plan
with each rule of `rules=` (which stored operands the plan copies into padded rows with templates/pack_rows.cu.j2's
kernel before its GEMM: AB, A or B, each only where its rows are unaligned; REPACK_MIN_HARMONIC off), the plan that
reads every operand in place ("inplace") and cuBLAS, every plan checked against float64 (C NaN-poisoned), then timed
interleaved kernel against kernel on tools/shape_sweep's ShapeBench.  "lib": the plan as committed.  Session 42
timed TT / TN with torch's copies only (repack_ab, f_8358846); this times the plan's own copy kernel.  Writes
repack_rule_ab.json under $OUT.

    python3 -m lab.experiments.repack_rule_ab [rules=AB,B | rules=none] [LAYOUT:]MxNxK ...   (none: lib and inplace)
"""
from . import checked_row, over_shapes, patched_plan, program, take_option

DEFAULT = ["TT:2049x2047x1025", "TT:4001x4003x4007", "NN:2049x2047x1025"]


def one(torch, bench, m, n, k, rules=("AB",)):
    from regtile.codegen import repack
    from regtile.runtime.plans import GemmPlan
    layout = ("T" if bench.trans_a else "N") + ("T" if bench.trans_b else "N")
    ops = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
    plans = {"lib": GemmPlan(m, n, k, *ops)}
    plans["inplace"] = patched_plan(m, n, k, ops, [(repack, "REPACK_OPERANDS", {})])
    for rule in rules:
        plan = patched_plan(m, n, k, ops, [(repack, "REPACK_OPERANDS", {layout: rule}),
                                           (repack, "REPACK_MIN_HARMONIC", 0)])
        if plan.repack is not None:  # the rule's operands' rows all unaligned
            plans[f"copy {rule}"] = plan
    row = {"m": m, "n": n, "k": k, "layout": layout, "plans": {name: p.describe() for name, p in plans.items()}}
    fns = dict(cublas=bench.cublas(), **{name: bench.library(p) for name, p in plans.items()})
    return checked_row(torch, bench, fns, row)


def run(argv):
    rules = tuple(r for r in (take_option(argv, "rules") or "AB").split(",") if r != "none")
    over_shapes(argv, DEFAULT, "repack_rule_ab.json", lambda *a: one(*a, rules=rules))


main = program(run, "[LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
