"""Best kernel vs cuBLAS, interleaved: 5 rounds x (cuBLAS 20 launches, kernel 20 launches)
(runtime/bench.interleave_with_cublas)."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import json, os
    from regtile.codegen.presets import get_preset
    from regtile.runtime import bench, driver
    from regtile.runtime.compiler import compile_config
    dev = driver.device()
    z = get_preset("zorder").config
    kernels = {"ptx 128x256 8x16 +pass": (z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True), "ptx"),
               "ptx 128x256 8x16": (z.replace(bn=256, tn=16, min_blocks=1), "ptx")}
    loaded = {name: driver.load(compile_config(c, dev.arch, backend=b), name) for name, (c, b) in kernels.items()}
    out = {S: bench.interleave_with_cublas(loaded, S, progress=lambda m: print(m, flush=True)) for S in (4096, 8192)}
    print(json.dumps(out, indent=1))
    json.dump({"device": dev.name, "result": out}, open(os.path.join(os.environ.get("OUT", "."), "interleave.json"), "w"), indent=1)


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
