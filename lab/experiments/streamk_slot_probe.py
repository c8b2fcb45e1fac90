"""Where do the stream-K ranges lose? step times + cuBLAS, several shapes."""
import sys

from . import best_config, cublas_ms, load_ptx, program, save, time_kernel, time_steps, workloads


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.codegen.presets import get_preset
    Z2 = get_preset("zorder-256x128").config.replace(sass_pass=True)
    K = {"W": load_ptx(best_config()), "W-SK": load_ptx(best_config(stream_k=True)),
         "Z2": load_ptx(Z2), "Z2-SK": load_ptx(Z2.replace(stream_k=True))}
    jobs = [((8192, 128, 8192), ("Z2", "Z2-SK")), ((33792, 128, 2048), ("Z2", "Z2-SK")),
            ((4097, 4097, 4097), ("W", "W-SK")), ((4096, 4096, 4097), ("W", "W-SK")),
            ((4096, 4096, 4096), ("W", "W-SK")), ((1536, 2816, 4096), ("W",))]
    out = {}
    for shape, work in workloads(dict(jobs)):
        for rnd in range(3):
            out.setdefault(f"{shape} cublas", []).append(cublas_ms(work))
            for name in dict(jobs)[shape]:
                out.setdefault(f"{shape} {name}", []).append(time_kernel(K[name], work, rnd).ms)
                if "SK" in name and rnd == 0:
                    time_steps(out, f"{shape} {name}", K[name], work)
    save(out, "probe1.json")


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
