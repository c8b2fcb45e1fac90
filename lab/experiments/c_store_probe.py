"""Does C's leading dimension cost the unaligned shapes their time?  The same kernel, on the same aligned A and B,
storing into C with ldc = N (16-byte aligned rows: the float4 stores), N + 4 (aligned, padded) and N + 1 (rows
off 16 bytes: every float stored alone, and a warp's store touching many sectors a little), timed interleaved
with cuBLAS (into an aligned C).  Shapes with N % 4 == 0; members by name (default: the heuristic's member and
wide-64x128-k16).

  python3 -m lab.experiments.c_store_probe [members=a,b] [MxNxK ...]
"""
from lab.experiments import member_for_shape, over_shapes, program, take_option

DEFAULT = ["3000x3000x64", "2048x4096x64", "3000x7000x212", "1024x50256x768", "2048x4096x1024", "8192x8192x1024"]


def one(members):
    def measure(torch, bench, m, n, k):
        from regtile.codegen.heuristic import choose_member
        from regtile.runtime import driver
        from regtile.runtime.compiler import compile_config
        from regtile.tools.shape_sweep import time_interleaved
        names = members or [choose_member(m, n, k, 132), "wide-64x128-k16"]
        wide = {ldc: [torch.empty(m, ldc, device="cuda") for _ in range(bench.sets)] for ldc in (n + 4, n + 1)}
        fns = {"cublas": bench.cublas()}
        for name in dict.fromkeys(names):
            cfg, backend = member_for_shape(name, m, n, k)
            kern = driver.load(compile_config(cfg, "sm_90", backend=backend))
            fns[f"{name} ldc=N"] = bench.regtile(kern)
            for ldc, cs in wide.items():
                fns[f"{name} ldc=N+{ldc - n}"] = bench.regtile(kern, cs, ldc)
        times = time_interleaved(torch, fns, bench.sets, 5)
        us = {label: sorted(t)[len(t) // 2] for label, t in times.items()}
        line = "  ".join(f"{label} {v:.1f}" for label, v in us.items())
        return {"m": m, "n": n, "k": k, "us": us}, line
    return measure


def run(argv):
    members = take_option(argv, "members")
    over_shapes(argv, DEFAULT, "c_store_probe.json", one(members.split(",") if members else None))


main = program(run, "members=a,b, then MxNxK shapes")

if __name__ == "__main__":
    import sys
    sys.exit(main())
