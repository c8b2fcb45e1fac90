"""Which cuBLAS kernels torch.mm runs for the suite shapes where regtile is below cuBLAS
(issue 20 asks, for a shape that cannot beat cuBLAS, what cuBLAS does there).

Reads a shape sweep (default docs/data/shape-sweep.json: rows {m, n, k, x_cublas, kernel}),
takes the shapes below 1.0x (or those given as MxNxK arguments), runs torch.mm (TF32 off,
row-major, as the sweep does) under torch.profiler (CUPTI: the same kernel names ncu shows) and
writes, per shape, each kernel launched with its grid and its median duration over the
profiled calls.  Writes cublas_kernels.json under $OUT (or the current folder).

    python3 -m lab.experiments.cublas_kernels [--sweep FILE] [--calls N] [--layout NT] [MxNxK ...]

--layout (session 30): op(A) op(B) as tools/shape_sweep --layout stores them (A^T K x M, B^T N x K, torch.mm of the
transposed views), for a layout's sweep (docs/data/session30/c_4041268/shape-sweep-NT.json); the JSON is
cublas_kernels_LAYOUT.json then.
"""
import json
import os
import statistics

from . import below_cublas, device_kernels, program


def _shapes(argv):
    sweep, calls, layout, given = "docs/data/shape-sweep.json", 5, "NN", []
    it = iter(argv)
    for a in it:
        if a == "--sweep":
            sweep = next(it)
        elif a == "--calls":
            calls = int(next(it))
        elif a == "--layout":
            layout = next(it)
            if layout not in ("NN", "NT", "TN", "TT"):
                raise SystemExit(f"--layout {layout}: one of NN, NT, TN, TT (op(A) op(B))")
        else:
            given.append(tuple(int(x) for x in a.lower().split("x")))
    rows, below = below_cublas(sweep)
    return given or below, rows, calls, layout


def run(argv):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    shapes, rows, calls, layout = _shapes(argv)
    out = []
    for m, n, k in shapes:
        a = torch.randn(k, m, device="cuda").t() if layout[0] == "T" else torch.randn(m, k, device="cuda")
        b = torch.randn(n, k, device="cuda").t() if layout[1] == "T" else torch.randn(k, n, device="cuda")
        c = torch.empty(m, n, device="cuda")
        for _ in range(3):
            torch.mm(a, b, out=c)
        kernels = device_kernels(torch, lambda: torch.mm(a, b, out=c), calls)
        entry = {"m": m, "n": n, "k": k,
                 "kernels": [{"name": name, "launches_per_call": len(t) / calls, "median_us": statistics.median(t)}
                             for name, t in kernels.items()]}
        r = rows.get((m, n, k))
        if r:
            entry.update(x_cublas=r["x_cublas"], regtile_kernel=r["kernel"], cublas_us_sweep=r["cublas_us"])
        out.append(entry)
        names = "; ".join(f"{x['name'][:70]} {x['median_us']:.1f}us" for x in entry["kernels"])
        print(f"{m}x{n}x{k}: {names}", flush=True)
    path = os.path.join(os.environ.get("OUT", "."), "cublas_kernels" + ("" if layout == "NN" else f"_{layout}")
                        + ".json")
    with open(path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "layout": layout,
                   "shapes": out}, f, indent=1)
    print(f"wrote {path}")


main = program(run)  # every argument goes to run in order (--sweep FILE, --calls N, MxNxK ...)

if __name__ == "__main__":
    raise SystemExit(main())
