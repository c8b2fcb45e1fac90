"""Unaligned rows on the big tiles (issue 20): the vector floats against the float copies, session 11.

Where lda or ldb is not a multiple of 4, operand_forms.for_rows gives the 8x16 / 16x8 thread tiles and the k16
members the unchecked vector floats (config.unaligned_vectors: each float4's four floats by four 4-byte loads,
the float4's registers and shared-memory stores), the smaller ones the float copies (config.unaligned_rows:
a float a thread, consecutive threads on consecutive floats inside K; codegen/ptx_unaligned.py).  The float
copies were 7-9% slower on the 128x256 member at e3feb62 (231 -> 245 registers).  What changed the question:
a warp's 4-byte load of the vector floats touches as many 128-byte lines as its float4 did - on A (lanes on
16 rows) 16 lines, four times a k-tile instead of once - and the main loop of the 8x16 tiles already keeps
the L1 / shared-memory pipeline busy with its fragment loads (48 LDS.128 a k-tile); the float copies touch
4-5 lines a load on A and 1-2 on B.

Measured at 6741b5f (docs/data/unaligned_copies_ab_2026-11-27_6741b5f.log): the float copies 8-11% slower
on the 128x256 member (8191x8193x1025 3371.8 against 3045.5 us), and Nsight Compute put the L1 at 49% of
its peak with the vector floats (the fragment loads are not crowded out); what they cost is the "wait" and
long-scoreboard stalls (0.20 and 0.14 a issued instruction against cuBLAS's 0.02 and 0.04).  Since then the
vector floats' test sits ahead of the float4 path's branch (emit_ptx.load_float4_or_edge); "after" is the
test where it was (behind that branch, as it ran at 6741b5f: after_float4 below).

For each shape: the plan regtile.sgemm builds ("lib"), and of the variants named by `variants=` (default
"after"): the same config with the float copies instead of the vector floats where its rows are unaligned
("floats"), sq-128x128-edges with for_rows' copies ("sq128"), the vector floats' test behind the float4
path's branch ("after"), against cuBLAS, interleaved kernel against kernel on tools/shape_sweep's ShapeBench (each checked against
float64 first, C NaN-poisoned).  Writes unaligned_copies_ab.json under $OUT.

    python3 -m lab.experiments.unaligned_copies_ab [variants=after,floats,sq128] [MxNxK ...]
    ncu --profile-from-start off --metrics ... python3 -m lab.experiments.unaligned_copies_ab ncu MxNxK
        one call each of "lib", "floats" and cuBLAS (in that order) between cudaProfilerStart / Stop,
        each warmed up twice first (unchecked)
"""
import contextlib

from . import member_for_shape, over_shapes, program, take_option, time_plans
from .fixup_ab import patched

DEFAULT = ["8191x8193x1025", "4099x4093x4091", "6143x2047x3071", "4097x4097x4097", "2049x2047x1025",
           "1023x1025x1023", "255x257x65537", "1009x1013x1019"]
VARIANTS = ["after"]


@contextlib.contextmanager
def after():
    """The kernels built inside emit the vector floats' test as it ran until 6741b5f (after_float4, and no
    per-tile floats predicate)."""
    from regtile.codegen.emit_ptx import _Kernel
    with patched(_Kernel, "load_float4_or_edge", after_float4), patched(_Kernel, "floats_setup", lambda self, op: None):
        yield


def after_float4(self, loads, copies, ptrs, k0, kend, edge, done):
    """emit_ptx.load_float4_or_edge as it ran until 6741b5f: the float4 path's test and branch, then from
    `edge` the vector floats' test (kend <= K and block_ok) and its branch, then the checked loads."""
    b, operand = self.b, loads.operand
    self.float4_loads([(loads, copies, ptrs)], self.tile_ok[operand], kend, edge, done)
    b.place(edge)
    if self.prog.unaligned_vectors:
        inside = self.setp("le", kend, self.p[loads.k_dim.bound], self.block_ok[operand] or "")
        checked = b.label(f"{operand.lower()}_checked")
        b.emit(f"@!{inside} bra.uni {checked};")
        self._load_unaligned_unchecked(loads, copies, ptrs, done)
        b.place(checked)
    self.checked_loads(loads, copies, ptrs, k0, done)


def plans_of(m, n, k):
    """({name: GemmPlan}, the JSON row so far): "lib", and "floats" / "sq128" where they differ from it."""
    from regtile.codegen.config import ConfigError
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx":
        return {"lib": lib}, row
    configs = {}
    if lib.config.unaligned_vectors and "floats" in VARIANTS:
        try:
            configs["floats"] = lib.config.replace(unaligned_vectors=False, unaligned_rows=True)
        except ConfigError as e:
            row["floats_refused"] = str(e)
    sq, _ = member_for_shape("sq-128x128-edges", m, n, k)
    if sq != lib.config and "sq128" in VARIANTS:
        configs["sq128"] = sq
    if lib.config.unaligned_vectors and "after" in VARIANTS:
        configs["after"] = lib.config
    plans = {"lib": lib}
    for name, cfg in configs.items():
        with after() if name == "after" else contextlib.nullcontext():
            plans[name] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend="ptx")
    return plans, row


def one(torch, bench, m, n, k):
    plans, row = plans_of(m, n, k)
    if plans["lib"].gemv is not None or plans["lib"].backend != "ptx":
        return row, f"not a PTX plan ({row['config']})"
    lib = plans["lib"]
    row.update(configs={name: p.config.describe() for name, p in plans.items()})
    return time_plans(torch, bench, plans, row, lib.kernel.label)


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
    variants = take_option(argv, "variants")
    if variants:
        VARIANTS[:] = variants.split(",")
    if argv[:1] == ["ncu"]:
        return profile(argv[1])
    over_shapes(argv, DEFAULT, "unaligned_copies_ab.json", one)


main = program(run, "[variants=after,floats,sq128] [MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
