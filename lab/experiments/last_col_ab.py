"""C's last column fused into the last tile column (config.last_col, codegen/ptx_last_col.py): the plan
regtile.sgemm builds for the shape (operand_forms.for_columns gives it where N % BN == 1) against the same
kernel without it (a tile column one column wide), and cuBLAS, interleaved kernel against kernel on
tools/shape_sweep's ShapeBench (each checked against float64 first, C NaN-poisoned).  Writes
last_col_ab.json under $OUT.

    python3 -m lab.experiments.last_col_ab [MxNxK ...]
"""
from . import shapes_program, time_plans

DEFAULT = ["255x257x65537", "1023x1025x1023", "513x129x16383", "8191x8193x1025", "2048x2049x2048",
           "1000x1025x1000", "300x129x50000", "4096x257x4096"]


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    plan = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": plan.config.describe() if plan.gemv is None else "GEMV",
           "last_col": bool(plan.gemv is None and plan.config.last_col)}
    if not row["last_col"]:
        return row, f"the plan does not fuse the last column ({row['config']})"
    without = GemmPlan(m, n, k, False, False, k, n, n, config=plan.config.replace(last_col=False), backend="ptx")
    return time_plans(torch, bench, {"last_col": plan, "without": without}, row, plan.kernel.label)


main = shapes_program(__name__, DEFAULT, "last_col_ab.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
