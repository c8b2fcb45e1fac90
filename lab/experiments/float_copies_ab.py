"""The unaligned rows' float copies on the big members, with the SASS pass (issue 20, session 36).

Where rows are not 16-byte aligned the 8x16 / 16x8 members load each vector's four floats (config.unaligned_vectors:
operand_forms.for_rows, UNALIGNED_MAX_THREAD_TILE).  On an operand whose rows run along K (A row-major, B^T) a warp's
load of float e then reads 16 rows, a line each, four loads for the same lines: on NT, where both operands are so, twelve
such loads a k-tile against the aligned kernel's three float4.  Nsight Compute (session 36, docs/data/session36):
regtile's NT 4099x4093x4091 at 79.7% issue with lg_throttle 0.06 and long_scoreboard 0.12 a issued instruction,
where its NN 4096^3 issues at 88.7% with neither.  The float copies (config.unaligned_rows) put consecutive threads on
consecutive floats of a line: a warp's load reads 4 rows of a k-tile's 8 floats.  Measured slower on those members in
NN (sessions 4 and 25, b_bdcdce0: 4099x4093x4091 2857 -> 3026 us); before session 36 never in NT.  Session 36
(docs/data/session36/c_9ebbf2a): slower on all nine shapes in the four layouts, NT included.

For each [LAYOUT:]MxNxK: the plan regtile.sgemm builds ("lib") and its config with the float copies instead ("rows"),
against cuBLAS in the layout, checked against float64 (C NaN-poisoned), then timed interleaved.  Writes
float_copies_ab.json under $OUT.

    python3 -m lab.experiments.float_copies_ab [LAYOUT:MxNxK ...]
"""
from lab.experiments import shapes_program, time_plans

DEFAULT = ["NT:2049x2047x1025", "NT:4099x4093x4091", "NT:6143x2047x3071", "NT:8191x8193x1025", "NT:1023x4095x2047",
           "NT:2047x4097x1023", "NN:4095x4095x4095", "NN:1023x4095x2047", "TN:2049x2047x1025", "TN:8191x8193x1025",
           "TT:4099x4093x4091"]


def float_copies_config(cfg):
    """`cfg` (a plan's config with the vector floats) with the float copies instead."""
    return cfg.replace(unaligned_rows=True, unaligned_vectors=False)


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
    lib = GemmPlan(m, n, k, *operands)
    row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b], "plan": lib.describe()}
    cfg = lib.config
    if lib.gemv is not None or lib.backend != "ptx" or not cfg.unaligned_vectors:
        return row, f"not the vector floats ({lib.describe()[:60]})"
    plans = {"lib": lib}
    try:
        plans["rows"] = GemmPlan(m, n, k, *operands, backend="ptx", config=float_copies_config(cfg))
    except Exception as e:  # the register rule's refusal: named, left out
        print(f"{m}x{n}x{k} rows: {type(e).__name__}: {e}", flush=True)
    return time_plans(torch, bench, plans, row, lib.describe()[:60])


main = shapes_program(__name__, DEFAULT, "float_copies_ab.json", one, "[LAYOUT:]MxNxK shapes")

if __name__ == "__main__":
    import sys
    sys.exit(main())
