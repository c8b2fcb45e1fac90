"""Where stream-K starts to pay (codegen/streamk.py MAX_LAST_WAVE_FILL): 4096^3 (last wave 88%
full) and 6144^3 (73%), stream-K with the fix-up and the limit raised vs the one-pass kernel,
interleaved with cuBLAS."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.codegen import streamk
    from regtile.codegen.presets import get_preset
    from regtile.runtime.compiler import compile_config
    from regtile.tools import interleave
    streamk.MAX_LAST_WAVE_FILL = 0.95
    z = get_preset("zorder").config
    best = z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True)
    arts = {"one-pass": compile_config(best, "sm_90", backend="ptx"),
            "stream-K (fill limit 0.95)": compile_config(best.replace(stream_k=True), "sm_90", backend="ptx")}
    interleave.run(arts, [4096, 6144], "sk_fill.json")


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
