"""Where do the stream-K ranges lose? step times + cuBLAS, several shapes."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import json, os, statistics, sys
    from regtile.codegen.presets import get_preset
    from regtile.runtime import bench, driver
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.sgemm_launch import SgemmLaunch
    z = get_preset("zorder").config
    W = z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True)
    Z2 = get_preset("zorder-256x128").config.replace(sass_pass=True)
    K = {"W": driver.load(compile_config(W, "sm_90", backend="ptx")),
         "W-SK": driver.load(compile_config(W.replace(stream_k=True), "sm_90", backend="ptx")),
         "Z2": driver.load(compile_config(Z2, "sm_90", backend="ptx")),
         "Z2-SK": driver.load(compile_config(Z2.replace(stream_k=True), "sm_90", backend="ptx"))}
    jobs = [((8192, 128, 8192), ("Z2", "Z2-SK")), ((33792, 128, 2048), ("Z2", "Z2-SK")),
            ((4097, 4097, 4097), ("W", "W-SK")), ((4096, 4096, 4097), ("W", "W-SK")),
            ((4096, 4096, 4096), ("W", "W-SK")), ((1536, 2816, 4096), ("W",))]
    out = {}
    for shape, names in jobs:
        m, n, k = shape
        work = bench.GemmWorkload(m, n, k)
        try:
            for rnd in range(3):
                c, _ = bench.measure_cublas(work, repeat=20, check=False)
                out.setdefault(f"{shape} cublas", []).append(c.ms)
                for name in names:
                    kern = K[name]
                    r = bench.check_and_time(bench.kernel_launcher(kern, work, 1.0, 0.0), work, 1.0, 0.0, 20, check=(rnd == 0))
                    out.setdefault(f"{shape} {name}", []).append(r.ms)
                    if rnd == 0: assert r.ok, (shape, name, r.rel_err)
                    if "SK" not in name or rnd: continue
                    ws = work.workspace(1 << 28)
                    L = SgemmLaunch(kern, m, n, k, 1.0, work.a[0].ptr, k, work.b[0].ptr, n, 0.0, work.c[0].ptr, n, ws)
                    out[f"{shape} {name} plan"] = L.plan.describe()
                    for j, (kk, grid, packed) in enumerate(L.steps):
                        one = lambda i, s, kk=kk, grid=grid, packed=packed: kk.launch(grid, (), s, packed=packed)
                        r = bench.check_and_time(one, work, 1.0, 0.0, 20, check=False)
                        out.setdefault(f"{shape} {name} step {j} {kk.label} grid {grid}", []).append(r.ms)
        finally:
            work.close()
    for key, v in out.items():
        print(key, v if isinstance(v, str) else f"{statistics.median(v):.4f} ms  {[round(x,4) for x in v]}", flush=True)
    json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "probe1.json"), "w"), indent=1)


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
