"""Issue 20, unaligned rows (docs/shapes-history.md "Unaligned rows"): the heuristic's member of each shape
as committed (its edge tiles' per-float path on every k-tile of unaligned rows) against the same
member with config.unaligned_rows (codegen/ptx_unaligned.py: unchecked per-float copies inside K),
and cuBLAS (torch.mm, TF32 off), interleaved (tools/shape_sweep.py: ShapeBench, time_interleaved;
each kernel checked against float64 with C NaN-poisoned first).

    python3 -m lab.experiments.unaligned_rows --json OUT.json [--rounds 5] [SHAPE ...]
    python3 -m lab.experiments.unaligned_rows --ncu MxNxK      one launch each of the two kernels
        and of cuBLAS, unchecked, for `ncu -k regex:'regtile|f32f32'` (the kernels' names printed)

SHAPE is MxNxK, or MxNxK:MEMBER for that family member; the default list is the issue's unaligned targets and two aligned controls."""
from __future__ import annotations

import argparse
import json
import statistics
import sys

from . import program

TARGETS = ["255x257x65537", "8191x8193x1025", "1023x1025x1023", "1009x1013x1019", "4099x4093x4091",
           "513x129x16383", "2049x2047x1025", "256x256x65536:tall-128x64", "1024x1024x1024:wide-64x128"]


def _shape(s):
    dims, _, member = s.partition(":")
    return tuple(int(x) for x in dims.split("x")) + (member or None,)


def kernels(m, n, k, member, arch, sms):
    """{label: (config, backend)}: the heuristic's member (or `member`) as committed, and with the
    unaligned rows' copies where the leading dimensions (K, N) ask for them (operand_forms.for_rows)."""
    from regtile.codegen.heuristic import choose_kernel, member_config
    from regtile.codegen.operand_forms import for_rows
    if member:
        cfg, backend = member_config(member, m, n, k, sms)
    else:
        cfg, backend = choose_kernel(m, n, k, arch, sms)
    out = {"member": (cfg, backend)}
    new = for_rows(cfg, backend, k, n)
    if new != cfg:
        out["unaligned_rows"] = (new, backend)
    return out


def _run(argv):
    p = argparse.ArgumentParser(prog="unaligned_rows")
    p.add_argument("shapes", nargs="*", default=TARGETS)
    p.add_argument("--json", default="unaligned_rows.json")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--ncu", default=None)
    args = p.parse_args(argv)
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    from regtile.tools import shape_sweep as sw
    torch = sw._setup_torch()
    dev = driver.device()
    shapes = [_shape(args.ncu)] if args.ncu else [_shape(s) for s in args.shapes]
    plan = {s: kernels(*s, dev.arch, dev.sm_count) for s in shapes}
    errs = sw.compile_all([kb for ks in plan.values() for kb in ks.values()], dev.arch)
    rows = []
    for (m, n, k, _), ks in plan.items():
        bench = sw.ShapeBench(torch, m, n, k)
        row = {"m": m, "n": n, "k": k, "kernels": {}}
        fns = {"cublas": bench.cublas()}
        for label, (cfg, backend) in ks.items():
            key = sw.config_key(cfg, backend)
            if errs.get(key):
                row["kernels"][label] = {"ok": False, "error": errs[key]}
                continue
            kern = driver.load(compile_config(cfg, dev.arch, backend=backend))
            fn = bench.regtile(kern)
            if args.ncu:  # profiled as it stands: one launch each below, no check
                fns[label] = fn
                row["kernels"][label] = {"name": kern.source.name}
                continue
            ok, err, unwritten = bench.check(fn)
            row["kernels"][label] = {"ok": ok, "rel_err": err, "unwritten": unwritten, "name": kern.source.name,
                                     "config": cfg.to_dict(), "backend": backend}
            if ok:
                fns[label] = fn
        if args.ncu:
            print("ncu launches:", ", ".join(f"{label} {row['kernels'].get(label, {}).get('name', '')}"
                                             for label in fns), flush=True)
            for fn in fns.values():
                fn(0)
            torch.cuda.synchronize()
            return
        times = sw.time_interleaved(torch, fns, bench.sets, args.rounds)
        bench.close()
        row["us"] = {name: statistics.median(v) for name, v in times.items()}
        row["rounds_us"] = times
        rows.append(row)
        us = row["us"]
        print(f"{m}x{n}x{k}: " + "  ".join(f"{name} {t:.1f} us ({us['cublas'] / t:.3f}x)" for name, t in us.items()),
              flush=True)
        with open(args.json, "w") as f:
            json.dump({"device": dev.name, "rows": rows}, f, indent=1)


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
