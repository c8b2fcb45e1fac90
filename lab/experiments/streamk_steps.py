"""Stream-K step times: each launch of the SgemmLaunch alone (timing only)."""
import sys

from . import best_config, load_ptx, program, save, time_kernel, time_steps


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.runtime import bench
    from regtile.runtime.sgemm_launch import SgemmLaunch
    ks = {"one-pass": load_ptx(best_config()), "stream-K": load_ptx(best_config(stream_k=True))}
    out = {}
    for shape in [(1536, 2816, 4096), (4096, 4096, 4096), (8192, 8192, 8192)]:
        m, n, k = shape
        work = bench.GemmWorkload(m, n, k)
        try:
            for rnd in range(3):
                for name, kern in ks.items():
                    out.setdefault(f"{shape} {name}", []).append(time_kernel(kern, work, rnd).ms)
                ws = work.workspace(1 << 28)
                L = SgemmLaunch(ks["stream-K"], m, n, k, 1.0, work.a[0].ptr, k, work.b[0].ptr, n, 0.0, work.c[0].ptr, n, ws)
                out[f"{shape} plan"] = L.plan.describe()
                for j, label, grid, ms in time_steps(L, work):  # each launch alone
                    out.setdefault(f"{shape} step {j} {label} grid {grid}", []).append(ms)
        finally:
            work.close()
    save(out, "sk_probe.json")


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
