"""Skinny n = 16 in NN (session 34): would the fused split-K kernel (cp.async ring, no staging registers) stream
row-major A nearer the copy bandwidth than skinny-n16-k32?  That member reads A's rows 128 bytes a k-tile (BK 32) and
its register staging caps BK there (tile_config.MAX_COPIES_PER_THREAD: BK x TM x TN / (4 BN) copies a thread);
2048x16x32768 ran at 66.7% of copy in NN and 85% in TN on it (A^T's rows 512 bytes a k: session 31).  The fused
kernel copies by cp.async into its ring, so the cap (staging registers) does not bind it: this experiment lifts it
(monkeypatched) and times fused 128x16 / 64x16 / 256x16 tiles with BK 32-128 at several splits, against
regtile.sgemm's plan, skinny-n16-k32 and cuBLAS, each checked against float64 first, interleaved in one run.

  python3 -m lab.experiments.fused_n16 [LAYOUT:]MxNxK ...   (default: the suite's and held-out n = 16 shapes in NN)
  splits=a,b  the split counts to time besides each tile's one-wave split (default 8,16)
  tiles=a,b   the tiles (TILES' labels) to time (default all)
  ncu=1       each variant launched twice and not timed, the given splits only (run under Nsight Compute)
Besides: the one-wave split (the most splits whose blocks, tiles x split, all fit on the SMs at once, by shared
memory) and the two-a-SM split (the most whose blocks are at most two an SM).
The register rule is lifted too (tile_config.TileConfig.register_estimate counts 8 registers a copy; the lean copies
keep one pointer an operand).

Writes fused_n16.json under $OUT: per shape {cublas_us, lib_us, kernels {name: {ok, rel_err, us, split, regs}}}.
"""
import time

from lab.experiments import layout_spec, member_for_shape, program, take_option, time_members, write_out

DEFAULT = ["NN:2048x16x32768", "NN:8192x16x8192", "NN:4096x16x4096", "NN:16384x16x4096", "NN:4096x16x16384",
           "TN:2048x16x32768"]
# (label, tile fields): the fused member's config (presets._f) with these
TILES = {
    "f128x16k32": dict(bm=128, bn=16, tm=4, tn=4, bk=32),
    "f128x16k64": dict(bm=128, bn=16, tm=4, tn=4, bk=64),
    "f64x16k64": dict(bm=64, bn=16, tm=4, tn=4, bk=64),
    "f256x16k32": dict(bm=256, bn=16, tm=8, tn=4, bk=32),
    "f64x16k128": dict(bm=64, bn=16, tm=4, tn=4, bk=128),
    "f128x16k128": dict(bm=128, bn=16, tm=4, tn=4, bk=128),
    "f32x16k128": dict(bm=32, bn=16, tm=4, tn=4, bk=128),
    # and skinny m: B's rows read 512 (1024) bytes a k
    "f16x128k32": dict(bm=16, bn=128, tm=4, tn=4, bk=32, warps=(1, 4)),
    "f16x256k64": dict(bm=16, bn=256, tm=4, tn=4, bk=64, warps=(1, 8)),
}
SMEM_SM = 228 * 1024  # shared memory an SM (H100/H200), 1 KB of it reserved a block


def run(argv):
    from regtile.codegen import tile_config
    tile_config.MAX_COPIES_PER_THREAD = 64  # cp.async copies: no staging registers (the point of the experiment)
    tile_config.TileConfig.register_estimate = lambda self: self.tm * self.tn + 64  # accumulators and the rest
    from regtile.codegen.config import ConfigError
    from regtile.codegen.layouts import with_layout
    from regtile.codegen.operand_forms import for_operands
    from regtile.codegen.presets import _f
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_many
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    t0 = time.time()
    from regtile.codegen.emit_fusedk import depth, stage_bytes
    splits = [int(s) for s in (take_option(argv, "splits") or "8,16").split(",")]
    only = take_option(argv, "tiles")
    ncu = take_option(argv, "ncu") == "1"
    tiles = {lb: t for lb, t in TILES.items() if not only or lb in only.split(",")}
    specs = argv or DEFAULT
    torch = _setup_torch()
    dev = driver.device()
    jobs = []
    for spec in specs:
        layout, m, n, k, ta, tb, lda, ldb = layout_spec(spec)
        members = {"skinny-n16-k32": member_for_shape("skinny-n16-k32", m, n, k, dev.sm_count, ta, tb)}
        for label, tile in tiles.items():
            base = _f(**tile)
            per_sm = SMEM_SM // (depth(base) * stage_bytes(base) + 1024)
            tiles_mn = -(-m // base.bm) * -(-n // base.bn)
            fit, two = (max(1, b * dev.sm_count // tiles_mn) for b in (per_sm, 2))
            for s in sorted(set(splits + ([] if ncu else [fit, two]))):
                try:
                    c = with_layout(_f(**tile).replace(split_k=s), ta, tb)
                    c = for_operands(c, "fusedk", lda, ldb, m, n, k=k)
                except ConfigError as e:
                    print(f"{spec} {label}/s{s}: refused ({str(e)[:120]})", flush=True)
                    continue
                if k // c.bk < 2 * s or s > 32:
                    continue  # splits of fewer than two k-tiles
                members[f"{label}/s{s}"] = (c, "fusedk")
        jobs.append((spec, layout, m, n, k, members))
    compile_many(list({v for *_, members in jobs for v in members.values()}), dev.arch, 16)
    print(f"compiled in {time.time() - t0:.0f} s", flush=True)
    rows = []
    for spec, layout, m, n, k, members in jobs:
        bench = ShapeBench(torch, m, n, k, layout=layout)
        if ncu:
            for name, (cfg, be) in members.items():
                fn = bench.library(GemmPlan(m, n, k, bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n, config=cfg,
                                            backend=be))
                fn(0), fn(0)
                torch.cuda.synchronize()
                print(f"{spec} {name}: launched twice", flush=True)
            bench.close()
            continue
        try:
            check, us, plans = time_members(torch, bench, members, spec)
        finally:
            bench.close()
        gb = 4 * (m * k + k * n + m * n) / 1e3
        row = {"layout": layout, "m": m, "n": n, "k": k, "cublas_us": us["cublas"], "lib_us": us["lib"],
               "kernels": {nm: dict(check[nm], us=us[nm], gbs=round(gb / us[nm], 1)) for nm in plans if nm in us}}
        rows.append(row)
        write_out("fused_n16.json", {"device": dev.name, "sm_count": dev.sm_count, "rows": rows})
        print(f"{spec}: cuBLAS {us['cublas']:.1f}  lib {us['lib']:.1f} ({gb / us['lib']:.0f} GB/s)", flush=True)
        for nm in sorted((nm for nm in plans if nm in us), key=us.get):
            print(f"   {nm:22s} {us[nm]:8.1f} us {gb / us[nm]:6.0f} GB/s {'ok' if check[nm]['ok'] else 'WRONG'}",
                  flush=True)


main = program(run, "[LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
