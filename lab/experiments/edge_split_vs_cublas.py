"""Edge split (codegen/edges.py): the best kernel with and without it on ragged cubes,
interleaved with cuBLAS (runtime/bench.interleave_with_cublas via tools/interleave.run).
Sizes from the command line (default 2049 3000 4097 5000)."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.codegen.presets import get_preset
    from regtile.runtime.compiler import compile_config
    from regtile.tools import interleave

    z = get_preset("zorder").config
    best = z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True)
    variants = {
        "ptx 128x256 8x16 +pass stream-K": best,
        "ptx 128x256 8x16 +pass stream-K edges": best.replace(edge_split=True),
    }
    arts = {name: compile_config(cfg, "sm_90", backend="ptx") for name, cfg in variants.items()}
    interleave.run(arts, interleave.sizes_from(argv, (2049, 3000, 4097, 5000)), "edge_split_vs_cublas.json")


main = program(_run, "sizes (default 2049 3000 4097 5000)")

if __name__ == "__main__":
    sys.exit(main())
