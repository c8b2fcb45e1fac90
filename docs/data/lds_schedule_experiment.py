"""Experiment (issue 9): does the fragment loads' schedule hold the best kernel back?

Source-level Nsight Compute samples of PTX 128x256 8x16 (docs/data, device run 1) put 5.8%
of warp samples on FFMAs waiting for an LDS (short scoreboard), concentrated on a few FFMAs
that read fragments ptxas loaded 17-64 instructions earlier, and 2% on back-to-back LDS.
`ld.volatile.shared` keeps ptxas from bunching the fragment loads (on the CPU: shortest
LDS-to-use distance 17 -> 38 instructions).  Variants are timed interleaved with cuBLAS:
5 rounds x (cuBLAS 20 launches, each kernel 20 launches), 4096^3 and 8192^3.
"""
import dataclasses, json, os, statistics, sys
from regtile.codegen.presets import get_preset
from regtile.codegen.emit import emit
from regtile.runtime import bench, driver
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
sizes = [int(s) for s in (sys.argv[1:] or ["4096", "8192"])]
out = {}
for S in sizes:
    w = bench.GemmWorkload(S, S, S)
    loaded = {name: driver.load(a, name) for name, a in kernels.items()}
    ratios = {name: [] for name in kernels}
    tf = {name: [] for name in kernels}
    for rnd in range(5):
        c, _ = bench.measure_cublas(w, repeat=20, check=False)
        for name, k in loaded.items():
            r = bench.check_and_time(bench.kernel_launcher(k, w, 1.0, 0.0), w, 1.0, 0.0, 20, check=(rnd == 0))
            assert rnd or r.ok, (name, r)
            ratios[name].append(c.ms / r.ms)
            tf[name].append(r.tflops)
            print(S, rnd, f"{name:22s} cuBLAS {c.tflops:.2f} kernel {r.tflops:.2f} x{c.ms / r.ms:.4f}", flush=True)
    w.close()
    out[S] = {name: {"median_x": round(statistics.median(v), 4), "min_x": round(min(v), 4),
                     "max_x": round(max(v), 4), "median_tflops": round(statistics.median(tf[name]), 2)}
              for name, v in ratios.items()}
print(json.dumps(out, indent=1))
json.dump({"device": dev.name, "result": out}, open(os.path.join(os.environ.get("OUT", "."), "lds_experiment.json"), "w"), indent=1)
