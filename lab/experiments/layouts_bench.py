"""Operand layouts and strided batches (issue 19 items 3, 4) against cuBLAS through torch:
the four layouts at 4096^3 and 8192^3 with the sm_90 default kernel (PTX 128x256 8x16, SASS
pass, stream-K, edge split) carrying the trans flags, against torch.mm on transposed views;
batched shapes against torch.bmm.  TF32 off.  Every kernel is checked against torch's float64
result first.  Timing: warm-up, then ROUNDS interleaved rounds (regtile, torch) of ITERS
launches each timed with CUDA events on torch's current stream; median per-launch ms.

  python3 -m lab.experiments.layouts_bench precompile   # fill the kernel cache, one process per kernel
  python3 -m lab.experiments.layouts_bench OUT.json     # measure
"""
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from . import program

from regtile.codegen.presets import get_preset

Z = get_preset("zorder").config
DEFAULT_90 = Z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True, edge_split=True)
LAYOUTS = {"NN": (False, False), "NT": (False, True), "TN": (True, False), "TT": (True, True)}
CUBES = (4096, 8192)
BATCH_SHAPES = ((64, 128, 128, 128), (16, 512, 512, 512), (8, 1024, 1024, 64))
# one more row each for two variants: As unpadded (TN's A copy is STS.128, pad_a buys
# nothing) and B padded (NT's scalar stores conflict-free: docs/layouts.md)
VARIANTS = {"TN pad_a=0": DEFAULT_90.replace(trans_a=True, pad_a=0),
            "NT pad_b=4": DEFAULT_90.replace(trans_b=True, pad_b=4)}
BATCH_CONFIGS = {  # PTX, no stream-K / edge split (refused with batched for now)
    "64x64x16 8x8": Z.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1, batched=True),
    "64x128x8 8x8": Z.replace(bm=64, bn=128, warps=None, batched=True),
    "128x128x8 8x8 (zorder)": Z.replace(batched=True),
    "128x128x16 8x8": Z.replace(bk=16, min_blocks=1, batched=True),
    "128x256x8 8x16 +pass": DEFAULT_90.replace(stream_k=False, edge_split=False, batched=True),
}
ROUNDS, ITERS = 7, 10


def all_configs():
    out = [DEFAULT_90.replace(trans_a=a, trans_b=b) for a, b in LAYOUTS.values()]
    return out + list(VARIANTS.values()) + list(BATCH_CONFIGS.values())


def _compile(cfg):
    from regtile.runtime.compiler import compile_config
    t = time.time()
    compile_config(cfg, "sm_90", backend="ptx")
    return time.time() - t


def precompile(configs):
    with ProcessPoolExecutor(max_workers=min(16, len(configs))) as ex:
        return list(ex.map(_compile, configs))


def _pack(kernel, args):
    storage = []
    for (_, ctype), v in zip(kernel.source.params, args):
        dt = np.uint64 if "*" in ctype else {"int": np.int32, "float": np.float32, "long long": np.int64}[ctype]
        storage.append(np.array([v if dt == np.float32 else int(v)], dtype=dt))
    return np.array([s.ctypes.data for s in storage], dtype=np.uint64), storage


def _time(torch, fn, stream):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(stream)
    for _ in range(ITERS):
        fn()
    end.record(stream)
    end.synchronize()
    return start.elapsed_time(end) / ITERS


def compare(torch, ours, theirs, stream):
    for _ in range(3):
        ours(), theirs()
    torch.cuda.synchronize()
    a, b = [], []
    for _ in range(ROUNDS):
        a.append(_time(torch, ours, stream))
        b.append(_time(torch, theirs, stream))
    return float(np.median(a)), float(np.median(b))


def measure(out_path):
    import torch
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.sgemm_launch import SgemmLaunch, workspace_bytes
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    stream = torch.cuda.current_stream()
    s = stream.cuda_stream
    rows = []
    for size in CUBES:
        m = n = k = size
        cases = [(name, DEFAULT_90.replace(trans_a=ta, trans_b=tb)) for name, (ta, tb) in LAYOUTS.items()]
        for name, cfg in cases + list(VARIANTS.items()):
            ta, tb = cfg.trans_a, cfg.trans_b
            kernel = driver.load(compile_config(cfg, "sm_90", backend="ptx"))
            a = torch.randn((k, m) if ta else (m, k), device=dev)
            b = torch.randn((n, k) if tb else (k, n), device=dev)
            opa, opb = (a.t() if ta else a), (b.t() if tb else b)
            c = torch.full((m, n), float("nan"), device=dev)
            ws = torch.empty(max(1, workspace_bytes(kernel, m, n, k)), dtype=torch.uint8, device=dev)
            launch = SgemmLaunch(kernel, m, n, k, 1.0, a.data_ptr(), a.stride(0), b.data_ptr(), b.stride(0), 0.0,
                                 c.data_ptr(), n, ws.data_ptr())
            launch(s)
            torch.cuda.synchronize()
            ref = opa.double() @ opb.double()
            err = float((c.double() - ref).norm() / ref.norm())
            cc = torch.empty_like(c)
            ours_ms, cublas_ms = compare(torch, lambda: launch(s), lambda: torch.mm(opa, opb, out=cc), stream)
            row = dict(kind="layout", layout=name, m=m, n=n, k=k, regtile_ms=ours_ms, cublas_ms=cublas_ms,
                       speedup=cublas_ms / ours_ms, tflops=2 * m * n * k / ours_ms / 1e9, rel_err=err)
            rows.append(row)
            print(json.dumps(row), flush=True)
            del a, b, c, ws, cc, ref
    for batch, m, n, k in BATCH_SHAPES:
        a = torch.randn((batch, m, k), device=dev)
        b = torch.randn((batch, k, n), device=dev)
        ref = torch.bmm(a.double(), b.double())
        cc = torch.empty((batch, m, n), device=dev)
        for cname, cfg in BATCH_CONFIGS.items():
            kernel = driver.load(compile_config(cfg, "sm_90", backend="ptx"))
            c = torch.full((batch, m, n), float("nan"), device=dev)
            args = (m, n, k, 1.0, a.data_ptr(), k, b.data_ptr(), n, 0.0, c.data_ptr(), n, m * k, k * n, m * n)
            packed = _pack(kernel, args)
            grid = kernel.source.geometry.grid(m, n, batch)

            def go(kernel=kernel, grid=grid, packed=packed):
                kernel.launch(grid, (), s, packed=packed)
            go()
            torch.cuda.synchronize()
            err = float((c.double() - ref).norm() / ref.norm())
            ours_ms, cublas_ms = compare(torch, go, lambda: torch.bmm(a, b, out=cc), stream)
            row = dict(kind="batched", config=cname, batch=batch, m=m, n=n, k=k, regtile_ms=ours_ms,
                       cublas_ms=cublas_ms, speedup=cublas_ms / ours_ms,
                       tflops=2 * batch * m * n * k / ours_ms / 1e9, rel_err=err)
            rows.append(row)
            print(json.dumps(row), flush=True)
    info = dict(device=torch.cuda.get_device_name(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                torch=torch.__version__, rounds=ROUNDS, iters=ITERS, rows=rows)
    with open(out_path, "w") as f:
        json.dump(info, f, indent=1)
    print("\nlayout/batch                     regtile ms   cuBLAS ms   speedup  rel_err")
    for r in rows:
        what = (f"{r['layout']} {r['m']}^3" if r["kind"] == "layout"
                else f"{r['batch']}x{r['m']}x{r['n']}x{r['k']} {r['config']}")
        print(f"{what:34s} {r['regtile_ms']:9.4f} {r['cublas_ms']:10.4f} {r['speedup']:8.3f}  {r['rel_err']:.1e}")


def _run(argv):
    if argv and argv[0] == "precompile":
        print("compile s:", [round(t, 1) for t in precompile(all_configs())], flush=True)
    else:
        measure(argv[0] if argv else "layouts_bench.json")


main = program(_run, "'precompile', or the JSON file to write")

if __name__ == "__main__":
    sys.exit(main())
