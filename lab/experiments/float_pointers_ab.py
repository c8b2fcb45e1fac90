"""How the unaligned rows' float copies form their line pointers (codegen/ptx_unaligned.FLOAT_POINTERS; issue 20,
session 36).

The float copies (config.unaligned_rows) read each float of a k-tile from its own line.  Until session 36 each line's
pointer was stepped from the line before: a serial IMAD.WIDE chain in the SASS, each load's address waiting on the one
before.  Nsight Compute on NT 4099x4093x4091 with the float copies on wide-128x256 (docs/data/session36/d_117db78)
counted 0.25 warps stalled on "wait" a issued instruction against 0.14 with the vector floats, where the float copies
had taken away the vector floats' lg_throttle (0.06) and long_scoreboard (0.12) stalls.  "first" forms every line's
pointer from float 0's by one multiply-add.

For each [LAYOUT:]MxNxK: the plan regtile.sgemm builds, its kernel generated with "chained" and with "first"
pointers; where the plan runs the vector floats (the 8x16 / 16x8 members) its config with the float copies instead,
both ways ("rows_chained", "rows_first").  Against cuBLAS in the layout, checked against float64 (C NaN-poisoned),
then timed interleaved.  Writes float_pointers_ab.json under $OUT.

    python3 -m lab.experiments.float_pointers_ab [LAYOUT:MxNxK ...]
"""
from lab.experiments import shapes_program, time_plans

DEFAULT = ["NN:5555x555x5555", "NN:513x129x16383", "NN:127x511x257", "NN:1000x1001x333", "NN:777x777x777",
           "NN:4096x257x4096", "NT:255x257x65537", "NT:1023x1025x1023", "NT:2999x7001x211", "NT:1111x3333x2222",
           "NT:513x129x16383", "NT:4099x4093x4091", "NT:8191x8193x1025", "NT:6143x2047x3071", "NN:4095x4095x4095"]


def one(torch, bench, m, n, k):
    from regtile.codegen import ptx_unaligned
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched
    operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
    lib = GemmPlan(m, n, k, *operands)
    row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b], "plan": lib.describe()}
    cfg = lib.config
    if lib.gemv is not None or lib.backend != "ptx" or not (cfg.unaligned_rows or cfg.unaligned_vectors):
        return row, f"no float copies ({lib.describe()[:60]})"
    forms = {"": cfg} if cfg.unaligned_rows else {"rows_": cfg.replace(unaligned_rows=True, unaligned_vectors=False)}
    plans = {} if cfg.unaligned_rows else {"lib": lib}
    for prefix, form in forms.items():
        for how in ("chained", "first"):
            with patched(ptx_unaligned, "FLOAT_POINTERS", how):
                plans[prefix + how] = GemmPlan(m, n, k, *operands, config=form, backend="ptx")
    return time_plans(torch, bench, plans, row, lib.describe()[:60])


main = shapes_program(__name__, DEFAULT, "float_pointers_ab.json", one, "[LAYOUT:]MxNxK shapes")

if __name__ == "__main__":
    import sys
    sys.exit(main())
