"""Issue 9, last-wave tail: the best kernel with and without stream-K (codegen/streamk.py),
interleaved with cuBLAS (runtime/bench.interleave_with_cublas via tools/interleave.run).
Sizes from the command line (default 3072 4096 4097 8192)."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.codegen.presets import get_preset
    from regtile.runtime.compiler import compile_config
    from regtile.tools import interleave

    z = get_preset("zorder").config
    best = z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True)
    variants = {
        "ptx 128x256 8x16 +pass": best,
        "ptx 128x256 8x16 +pass stream-K": best.replace(stream_k=True),
        "ptx zorder stream-K": z.replace(stream_k=True),
    }
    arts = {name: compile_config(cfg, "sm_90", backend="ptx") for name, cfg in variants.items()}
    for name, art in arts.items():
        print(name, art.resources.registers, "registers", flush=True)
    interleave.run(arts, interleave.sizes_from(argv, (3072, 4096, 4097, 8192)), "streamk_vs_cublas.json")


main = program(_run, "sizes (default 3072 4096 4097 8192)")

if __name__ == "__main__":
    sys.exit(main())
