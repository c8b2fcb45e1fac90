"""Experiment (issue 9): does the fragment loads' schedule hold the best kernel back?

Source-level Nsight Compute samples of PTX 128x256 8x16 (docs/data, device run 1) put 5.8%
of warp samples on FFMAs waiting for an LDS (short scoreboard), concentrated on a few FFMAs
that read fragments ptxas loaded 17-64 instructions earlier, and 2% on back-to-back LDS.
`ld.volatile.shared` keeps ptxas from bunching the fragment loads (on the CPU: shortest
LDS-to-use distance 17 -> 38 instructions).  Variants are timed interleaved with cuBLAS:
5 rounds x (cuBLAS 20 launches, each kernel 20 launches), 4096^3 and 8192^3.
"""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import dataclasses
    from regtile.codegen.presets import get_preset
    from regtile.codegen.emit import emit
    from regtile.runtime import driver
    from regtile.runtime.compiler import check_spill_free, compile_source

    dev = driver.device()
    z = get_preset("zorder").config
    wide = z.replace(bn=256, tn=16, min_blocks=1)
    tall = get_preset("zorder-256x128").config.replace(min_blocks=1)


    def variant(cfg, vol, sass_pass):
        src = emit(cfg.replace(sass_pass=sass_pass), "ptx")
        if vol:
            src = dataclasses.replace(src, text=src.text.replace("ld.shared.v4.f32", "ld.volatile.shared.v4.f32"))
        return check_spill_free(compile_source(src, dev.arch), cfg)


    kernels = {
        "128x256 +pass": variant(wide, False, True),
        "128x256 vol +pass": variant(wide, True, True),
        "128x256 vol": variant(wide, True, False),
        "256x128 vol +pass": variant(tall, True, True),
    }
    for name, art in kernels.items():
        print(name, art.resources.registers, "registers", flush=True)
    from regtile.tools import interleave
    interleave.run(kernels, interleave.sizes_from(argv, (4096, 8192)), "lds_experiment.json")


main = program(_run, "sizes (default 4096 8192)")

if __name__ == "__main__":
    sys.exit(main())
