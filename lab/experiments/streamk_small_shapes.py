"""Stream-K's shortest range (codegen/streamk.py MIN_ITERS) on the sweep's small and skinny
shapes: PTX 64x64x8 4x8 and 64x64x16 8x8 with stream-K, MIN_ITERS 8 / 4 / 2, against cuBLAS
in the same rounds (5 rounds: cuBLAS, then every variant; 20 timed launches each)."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import json, os, statistics
    from regtile.codegen import streamk
    from regtile.codegen.presets import get_preset
    from regtile.runtime import bench, driver
    from regtile.runtime.compiler import compile_config

    z = get_preset("zorder").config
    cfgs = {"64x64x8 4x8": z.replace(bm=64, bn=64, tm=4, tn=8, warps=None, min_blocks=1, stream_k=True),
            "64x64x16 8x8": z.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1, stream_k=True)}
    kernels = {name: driver.load(compile_config(c, "sm_90", backend="ptx"), name) for name, c in cfgs.items()}
    out = {}
    for shape in [(127, 511, 257), (1024, 1024, 1024), (8192, 128, 8192)]:
        work = bench.GemmWorkload(*shape)
        try:
            for rnd in range(5):
                cub, _ = bench.measure_cublas(work, repeat=20, check=False)
                for name, kern in kernels.items():
                    for mi in (8, 4, 2):
                        streamk.MIN_ITERS = mi
                        r = bench.check_and_time(bench.kernel_launcher(kern, work, 1.0, 0.0), work, 1.0, 0.0, 20,
                                                 check=(rnd == 0))
                        assert rnd or r.ok, (shape, name, mi, r.rel_err, r.unwritten)
                        out.setdefault(f"{shape} {name} MIN_ITERS {mi}", []).append(cub.ms / r.ms)
        finally:
            work.close()
    streamk.MIN_ITERS = 8
    for key, v in out.items():
        print(f"{key}: x{statistics.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]", flush=True)
    json.dump({"device": driver.device().name, "x_cublas": out},
              open(os.path.join(os.environ.get("OUT", "."), "streamk_small_shapes.json"), "w"), indent=1)


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
