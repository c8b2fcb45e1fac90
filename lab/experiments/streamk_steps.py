"""Stream-K step times: each launch of the SgemmLaunch alone (timing only)."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import json, os, statistics
    from regtile.codegen.presets import get_preset
    from regtile.runtime import bench, driver
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.sgemm_launch import SgemmLaunch
    z = get_preset("zorder").config
    best = z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True)
    ks = {"one-pass": driver.load(compile_config(best, "sm_90", backend="ptx")),
          "stream-K": driver.load(compile_config(best.replace(stream_k=True), "sm_90", backend="ptx"))}
    out = {}
    for shape in [(1536, 2816, 4096), (4096, 4096, 4096), (8192, 8192, 8192)]:
        m, n, k = shape
        work = bench.GemmWorkload(m, n, k)
        try:
            for rnd in range(3):
                for name, kern in ks.items():
                    r = bench.check_and_time(bench.kernel_launcher(kern, work, 1.0, 0.0), work, 1.0, 0.0, 20, check=(rnd == 0))
                    out.setdefault(f"{shape} {name}", []).append(r.ms)
                    if rnd == 0: assert r.ok, (shape, name, r.rel_err)
                ws = work.workspace(1 << 28)
                L = SgemmLaunch(ks["stream-K"], m, n, k, 1.0, work.a[0].ptr, k, work.b[0].ptr, n, 0.0, work.c[0].ptr, n, ws)
                out[f"{shape} plan"] = L.plan.describe()
                for j, (kk, grid, packed) in enumerate(L.steps):  # each launch alone
                    one = lambda i, s, kk=kk, grid=grid, packed=packed: kk.launch(grid, (), s, packed=packed)
                    r = bench.check_and_time(one, work, 1.0, 0.0, 20, check=False)
                    out.setdefault(f"{shape} step {j} {kk.label} grid {grid}", []).append(r.ms)
        finally:
            work.close()
    for key, v in out.items():
        print(key, v if isinstance(v, str) else f"{statistics.median(v):.4f} ms")
    json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "sk_probe.json"), "w"), indent=1)


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
