"""Launch every preset once at small and edge sizes, for compute-sanitizer.

On the device machine:
    compute-sanitizer --tool memcheck  --error-exitcode 9 python3 -m regtile.tools.sanitize
    compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m regtile.tools.sanitize
Each launch is also checked against float64 (every element written), so a run
that the sanitizer passes is a run that computed the right thing.  `--backend`
picks the CUDA C (default) or PTX backend where the build has one; `--sass-pass` runs the
SGEMM presets as rewritten by the SASS register-bank pass.
"""
from __future__ import annotations

import argparse
import sys

SGEMM_SIZES = ((1, 1, 1), (7, 33, 5), (129, 127, 65), (257, 255, 33))
SGEMV_SIZES = ((1, 1), (33, 7), (129, 130), (257, 16))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.tools.sanitize", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", default="cuda", choices=("cuda", "ptx"))
    p.add_argument("--presets", help="comma-separated presets (default: all)")
    p.add_argument("--sass-pass", action="store_true",
                   help="SGEMM presets rewritten by the SASS register-bank pass (sm_90; SGEMV skipped)")
    args = p.parse_args(argv)
    from ..codegen.presets import all_preset_names, get_preset
    from ..codegen.sgemv_config import SgemvConfig
    from ..runtime import bench, driver
    from ..runtime.compiler import compile_source
    names = args.presets.split(",") if args.presets else list(all_preset_names())
    bad = 0
    for name in names:
        cfg = get_preset(name).config
        if args.sass_pass:
            if isinstance(cfg, SgemvConfig):
                continue  # the pass rewrites SGEMM main loops
            cfg = cfg.replace(sass_pass=True)
        if args.backend == "ptx":
            from ..codegen import emit as _emit
            try:
                src = _emit.emit(cfg, backend="ptx")
            except Exception as e:  # a config the PTX backend refuses
                print(f"{name}: skipped on the PTX backend ({e})")
                continue
        else:
            from ..codegen.emit import emit
            src = emit(cfg, backend="cuda")
        kernel = driver.load(compile_source(src, driver.device().arch), name)
        if isinstance(cfg, SgemvConfig):
            for m, n in SGEMV_SIZES:
                work = bench.GemvWorkload(m, n, sets=1)
                r = bench.check_and_time_gemv(bench.gemv_kernel_launcher(kernel, work, 0.5, 0.25), work, 0.5, 0.25,
                                              repeat=0)
                work.close()
                bad += not r["ok"]
                print(f"{name} {m}x{n}: {'ok' if r['ok'] else 'WRONG'}", flush=True)
        else:
            for m, n, k in SGEMM_SIZES:
                work = bench.GemmWorkload(m, n, k, sets=1)
                r = bench.check_and_time(bench.kernel_launcher(kernel, work, 0.5, 0.25), work, 0.5, 0.25, repeat=0)
                work.close()
                bad += not r.ok
                print(f"{name} {m}x{n}x{k}: {'ok' if r.ok else 'WRONG'}", flush=True)
    print(f"{bad} wrong results")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
