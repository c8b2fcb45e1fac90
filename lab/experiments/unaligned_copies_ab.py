"""Unaligned rows on the big tiles (issue 20): the vector floats against the float copies, session 11.

Where lda or ldb is not a multiple of 4, heuristic.for_rows gives the 8x16 / 16x8 thread tiles and the k16
members the unchecked vector floats (config.unaligned_vectors: each float4's four floats by four 4-byte loads,
the float4's registers and shared-memory stores), the smaller ones the float copies (config.unaligned_rows:
a float a thread, consecutive threads on consecutive floats inside K; codegen/ptx_unaligned.py).  The float
copies were 7-9% slower on the 128x256 member at e3feb62 (231 -> 245 registers).  What changed the question:
a warp's 4-byte load of the vector floats touches as many 128-byte lines as its float4 did - on A (lanes on
16 rows) 16 lines, four times a k-tile instead of once - and the main loop of the 8x16 tiles already keeps
the L1 / shared-memory pipeline busy with its fragment loads (48 LDS.128 a k-tile); the float copies touch
4-5 lines a load on A and 1-2 on B.

For each shape: the plan regtile.sgemm builds ("lib"), the same config with the float copies instead of the
vector floats where its rows are unaligned ("floats"), and sq-128x128-edges with for_rows' copies ("sq128"),
against cuBLAS, interleaved kernel against kernel on tools/shape_sweep's ShapeBench (each checked against
float64 first, C NaN-poisoned).  Writes unaligned_copies_ab.json under $OUT.

    python3 -m lab.experiments.unaligned_copies_ab [MxNxK ...]
    ncu --profile-from-start off --metrics ... python3 -m lab.experiments.unaligned_copies_ab ncu MxNxK
        one call each of "lib", "floats" and cuBLAS (in that order) between cudaProfilerStart / Stop,
        each warmed up twice first (unchecked)
"""
from . import check_and_time_interleaved, over_shapes, program, versus
from .held_registers import registers

DEFAULT = ["8191x8193x1025", "4099x4093x4091", "6143x2047x3071", "4097x4097x4097", "2049x2047x1025",
           "8192x8192x1024"]


def plans_of(m, n, k):
    """({name: GemmPlan}, the JSON row so far): "lib", and "floats" / "sq128" where they differ from it."""
    from regtile.codegen.config import ConfigError
    from regtile.codegen.heuristic import for_columns, for_rows, member_config
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx":
        return {"lib": lib}, row
    configs = {}
    if lib.config.unaligned_vectors:
        try:
            configs["floats"] = lib.config.replace(unaligned_vectors=False, unaligned_rows=True)
        except ConfigError as e:
            row["floats_refused"] = str(e)
    sq, backend = member_config("sq-128x128-edges", m, n, k, 132)
    sq = for_columns(for_rows(sq, backend, k, n), backend, n)
    if sq != lib.config:
        configs["sq128"] = sq
    plans = {"lib": lib}
    plans.update({name: GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend="ptx")
                  for name, cfg in configs.items()})
    return plans, row


def one(torch, bench, m, n, k):
    plans, row = plans_of(m, n, k)
    if plans["lib"].gemv is not None or plans["lib"].backend != "ptx":
        return row, f"not a PTX plan ({row['config']})"
    lib = plans["lib"]
    fns = dict(cublas=bench.cublas(), **{name: bench.library(plan) for name, plan in plans.items()})
    check, u = check_and_time_interleaved(torch, bench, fns, tuple(plans))
    row.update(check=check, us=u, registers={name: registers(p.kernel.artifact) for name, p in plans.items()},
               configs={name: p.config.describe() for name, p in plans.items()})
    return row, versus(u, check, plans) + f"  [{lib.kernel.label}]"


def profile(spec: str) -> None:
    """The ncu target: one call each of the plans and of cuBLAS between cudaProfilerStart / Stop."""
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    torch = _setup_torch()
    m, n, k = (int(v) for v in spec.split("x"))
    plans, _ = plans_of(m, n, k)
    bench = ShapeBench(torch, m, n, k)
    fns = dict({name: bench.library(plan) for name, plan in plans.items() if name != "sq128"},
               cublas=bench.cublas())
    for fn in fns.values():
        fn(0)
        fn(0)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for name, fn in fns.items():
        fn(0)
        torch.cuda.synchronize()
        print("profiled", name, flush=True)
    torch.cuda.cudart().cudaProfilerStop()
    bench.close()


def run(argv):
    if argv[:1] == ["ncu"]:
        return profile(argv[1])
    over_shapes(argv, DEFAULT, "unaligned_copies_ab.json", one)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
