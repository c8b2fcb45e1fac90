"""Stream-K step times: each launch of the SgemmLaunch alone (timing only)."""
import sys

from . import best_config, load_ptx, program, save, time_kernel, time_steps, workloads


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    ks = {"one-pass": load_ptx(best_config()), "stream-K": load_ptx(best_config(stream_k=True))}
    out = {}
    for shape, work in workloads([(1536, 2816, 4096), (4096, 4096, 4096), (8192, 8192, 8192)]):
        for rnd in range(3):
            for name, kern in ks.items():
                out.setdefault(f"{shape} {name}", []).append(time_kernel(kern, work, rnd).ms)
            time_steps(out, f"{shape}", ks["stream-K"], work)  # each launch alone
    save(out, "sk_probe.json")


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
