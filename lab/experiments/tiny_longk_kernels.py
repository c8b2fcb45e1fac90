"""Where the time of the tiny long-K outputs goes (issue 20, session 4): per shape, each kernel
that a family member's SGEMM launches and that cuBLAS (torch.mm, TF32 off) launches, with its
device time (torch.profiler / CUPTI, median of the calls), beside the back-to-back time of the
whole SGEMM (tools/shape_sweep.time_interleaved, as the sweeps time it), each first checked against
float64 (C NaN-poisoned; "check" in the JSON).  The difference between
the two is what launching costs on the GPU (gaps between kernels).  With --ncu-target the script
instead launches each SGEMM once after a warm-up, as a target for
`ncu --metrics ... python3 -m lab.experiments.tiny_longk_kernels --ncu-target` (lab/device_runs/
shapes_session4_run2.sh).  Writes tiny_longk_kernels.json under $OUT (or the current folder).

    python3 -m lab.experiments.tiny_longk_kernels [--ncu-target] [MxNxK:member,member ...]

A member may carry config changes: fused-32x32+bk=16+min_blocks=2, wide-128x256+edge_vector_path=1,
skinny-m48+bn=128+tm=8+tn=8+warps=auto (auto: the field's derived default).
"""
import json
import os
import statistics
import sys

from . import device_kernels, program

DEFAULT = ("700x35x2048:splitk-32x32-f4,splitk-32x64-f8,fused-32x32,fused-64x64",
           "65x33x4097:splitk-32x64-f4,fused-32x32-k8",
           "64x4096x4096:sq-64x64,wide-64x128,fused-64x128",
           "48x2048x8192:skinny-m16-k32,sq-64x64")


def _parse(argv):
    ncu = "--ncu-target" in argv
    specs = [a for a in argv if a != "--ncu-target"] or list(DEFAULT)
    out = []
    for s in specs:
        shape, members = s.split(":")
        out.append((tuple(int(x) for x in shape.split("x")), members.split(",")))
    return out, ncu


def run(argv):
    from regtile.codegen.heuristic import member_config
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch, time_interleaved
    specs, ncu = _parse(argv)
    torch = _setup_torch()
    dev = driver.device()
    rows = []
    for (m, n, k), members in specs:
        bench = ShapeBench(torch, m, n, k)
        fns = {"cublas": bench.cublas()}
        splits = {}
        for name in members:
            base, *changes = name.split("+")
            cfg, backend = member_config(base, m, n, k, dev.sm_count)
            cfg = cfg.replace(**{key: (None if v == "auto" else bool(int(v)) if isinstance(getattr(cfg, key), bool)
                                       else int(v)) for key, v in (c.split("=") for c in changes)})
            splits[name] = cfg.split_k
            fns[name] = bench.regtile(driver.load(compile_config(cfg, dev.arch, backend=backend)))
        for fn in fns.values():  # warm-up (workspaces, counters, cuBLAS's heuristics)
            fn(0)
        torch.cuda.synchronize()
        if ncu:
            for fn in fns.values():
                fn(0)
            torch.cuda.synchronize()
            bench.close()
            continue
        row = {"m": m, "n": n, "k": k, "sgemm_us": {}, "kernels": {}, "split_k": splits, "check": {}}
        for name, fn in fns.items():  # against float64, C NaN-poisoned (ShapeBench.check)
            ok, err, unwritten = bench.check(fn)
            row["check"][name] = {"ok": ok, "rel_err": err, "unwritten": unwritten}
        times = time_interleaved(torch, fns, bench.sets, 5)
        for name, fn in fns.items():
            row["sgemm_us"][name] = round(statistics.median(times[name]), 2)
            ks = device_kernels(torch, lambda fn=fn: fn(0), 20)
            row["kernels"][name] = {kn[:90]: round(statistics.median(t), 2) for kn, t in ks.items()}
            print(f"{m}x{n}x{k} {name}: sgemm {row['sgemm_us'][name]:.1f} us (ok {row['check'][name]['ok']}); "
                  + "; ".join(f"{kn[:50]} {t:.1f}" for kn, t in row["kernels"][name].items()), flush=True)
        rows.append(row)
        bench.close()
    if not ncu:
        with open(os.path.join(os.environ.get("OUT", "."), "tiny_longk_kernels.json"), "w") as f:
            json.dump({"device": dev.name, "rows": rows}, f, indent=1)


main = program(run, "[--ncu-target] MxNxK:member,member ...")

if __name__ == "__main__":
    sys.exit(main())
