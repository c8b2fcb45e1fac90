"""Nsight Compute launch target: one SGEMM launch of a kernel (with or without the SASS pass),
through CuPy, for `ncu ... python3 -m lab.experiments.ncu_sass_pass_launch KERNEL PASS SIZE`
(lab/device_runs/ncu_sass_pass_2026-11-22.sh; docs/sass-pass.md)."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import numpy as np, cupy as cp
    from regtile.codegen.presets import get_preset
    from regtile.codegen.emit import emit
    from regtile.runtime.compiler import compile_source
    which, sp, S = argv[0], argv[1] == "1", int(argv[2])
    z = get_preset("zorder").config
    cfg, backend = {"p128x256": (z.replace(bn=256, tn=16, min_blocks=1), "ptx"), "pzorder": (z, "ptx"),
                    "czorder": (z, "cuda")}[which]
    src = emit(cfg.replace(sass_pass=sp), backend); art = compile_source(src, "sm_90")
    p = f"/tmp/{src.name}_{int(sp)}.cubin"; open(p, "wb").write(art.cubin)
    mod = cp.RawModule(path=p); k = mod.get_function(src.name)
    g = src.geometry
    if g.dynamic_smem_bytes > 48 * 1024:
        k.max_dynamic_shared_size_bytes = g.dynamic_smem_bytes
    A = cp.random.standard_normal((S, S), dtype=cp.float32); B = cp.random.standard_normal((S, S), dtype=cp.float32)
    C = cp.empty((S, S), dtype=cp.float32)
    for _ in range(2):
        k(g.grid(S, S), g.block, (np.int32(S), np.int32(S), np.int32(S), np.float32(1), A, np.int32(S), B, np.int32(S), np.float32(0), C, np.int32(S)), shared_mem=g.dynamic_smem_bytes)
    cp.cuda.Device().synchronize()


main = program(_run, "KERNEL PASS SIZE: p128x256|pzorder|czorder, 0|1, e.g. 4096")

if __name__ == "__main__":
    sys.exit(main())
