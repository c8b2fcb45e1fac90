"""Experiment (issue 9): fewer loaded floats per FFMA.  A TM x TN thread tile reads TM + TN
floats per k for TM * TN FFMAs; the fragment loads cost the data they return
(lab/experiments/lds_latency_experiment.py), so 12x12 (0.167 floats an FFMA) against 8x16 (0.1875).
PTX 192x192x16 12x12, warps 4x2, no register prefetch, one block an SM, SASS pass and stream-K,
against the best kernel (128x256x8 8x16), interleaved with cuBLAS.  Validation's register
estimate (266) refuses the 12x12 config; ptxas gives it 248 registers and no spills (the
compile stage's spill guard still checks), so the estimate is lifted for this script only.
Sizes: 3072 and 6144 are multiples of 192; 4096 and 8192 waste 6% and 1.6% on edge tiles."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.codegen.tile_config import TileConfig
    from regtile.codegen.presets import get_preset
    from regtile.runtime.compiler import compile_config
    from regtile.tools import interleave

    z = get_preset("zorder").config
    best = z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True)
    estimate = TileConfig.register_estimate  # the tile validates its registers
    TileConfig.register_estimate = lambda self: min(estimate(self), 240)
    t12 = z.replace(bm=192, bn=192, bk=16, tm=12, tn=12, warps=(4, 2), min_blocks=1, reg_prefetch=False,
                    sass_pass=True, stream_k=True)
    TileConfig.register_estimate = estimate
    arts = {"ptx 128x256x8 8x16 +pass stream-K": compile_config(best, "sm_90", backend="ptx"),
            "ptx 192x192x16 12x12 +pass stream-K": compile_config(t12, "sm_90", backend="ptx")}
    for name, art in arts.items():
        print(name, art.resources.registers, "registers", flush=True)
    if "--dry" in argv:
        return
    interleave.run(arts, interleave.sizes_from(argv, (3072, 6144, 4096, 8192)), "tile12x12.json")


main = program(_run, "sizes (default 3072 6144 4096 8192), or --dry: build on the CPU only")

if __name__ == "__main__":
    sys.exit(main())
