"""Best kernel vs cuBLAS, interleaved: 5 rounds x (cuBLAS 20 launches, kernel 20 launches)."""
import json, os, statistics
from regtile.codegen.presets import get_preset
from regtile.runtime import bench, driver
from regtile.runtime.compiler import compile_config
dev = driver.device()
z = get_preset("zorder").config
kernels = {"ptx 128x256 8x16 +pass": (z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True), "ptx"),
           "ptx 128x256 8x16": (z.replace(bn=256, tn=16, min_blocks=1), "ptx")}
out = {}
for S in (4096, 8192):
    w = bench.GemmWorkload(S, S, S)
    loaded = {name: driver.load(compile_config(c, dev.arch, backend=b), name) for name, (c, b) in kernels.items()}
    ratios = {name: [] for name in kernels}
    for rnd in range(5):
        c, _ = bench.measure_cublas(w, repeat=20, check=False)
        for name, k in loaded.items():
            r = bench.check_and_time(bench.kernel_launcher(k, w, 1.0, 0.0), w, 1.0, 0.0, 20, check=(rnd == 0))
            assert rnd or r.ok, name
            ratios[name].append(c.ms / r.ms)
            print(S, rnd, name, f"cuBLAS {c.tflops:.2f} kernel {r.tflops:.2f} x{c.ms / r.ms:.4f}", flush=True)
    w.close()
    out[S] = {name: {"rounds": [round(x, 4) for x in v], "median": round(statistics.median(v), 4),
                     "min": round(min(v), 4), "max": round(max(v), 4)} for name, v in ratios.items()}
print(json.dumps(out, indent=1))
json.dump({"device": dev.name, "result": out}, open(os.path.join(os.environ.get("OUT", "."), "interleave.json"), "w"), indent=1)
