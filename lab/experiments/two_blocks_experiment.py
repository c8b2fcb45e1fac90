"""Experiment (issue 9): two independent blocks per SM instead of one.

Source-level samples of the best kernel (PTX 128x256 8x16 + pass, one 256-thread block per SM,
two warps per sub-partition, both from the same block) put the cycles in which nothing issues
on the loop head (uniform math, edge-path branches, LDG), the LDS/STS burst and the barrier:
both warps of a sub-partition reach those together.  Prediction: the same 8x16 thread tile in
128-thread blocks (128x128 or 64x256), two blocks an SM (233-240 registers fit twice), lets
the two warps of a sub-partition drift apart, so one's non-FFMA phase meets the other's FFMAs:
a few % more issue, minus a third more global->shared copies per FFMA.
Interleaved with cuBLAS: 5 rounds x (cuBLAS 20 launches, each kernel 20 launches).
"""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.codegen.presets import get_preset
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config

    dev = driver.device()
    z = get_preset("zorder").config
    variants = {
        "128x256 8x16 4x2 mb1 +pass": z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True),
        "128x128 8x16 2x2 mb2 +pass": z.replace(bn=128, tn=16, warps=(2, 2), min_blocks=2, sass_pass=True),
        "128x128 8x16 4x1 mb2 +pass": z.replace(bn=128, tn=16, warps=(4, 1), min_blocks=2, sass_pass=True),
        "128x128 8x16 4x1 mb2": z.replace(bn=128, tn=16, warps=(4, 1), min_blocks=2),
        "64x256 8x16 2x2 mb2 +pass": z.replace(bm=64, bn=256, tn=16, warps=(2, 2), min_blocks=2, sass_pass=True),
    }
    arts = {name: compile_config(c, dev.arch, backend="ptx") for name, c in variants.items()}
    for name, a in arts.items():
        print(f"{name:30s} {a.resources.registers} registers", flush=True)
    from regtile.tools import interleave
    interleave.run(arts, interleave.sizes_from(argv, (4096, 8192)), "two_blocks.json")


main = program(_run, "sizes (default 4096 8192)")

if __name__ == "__main__":
    sys.exit(main())
