"""regtile.sgemm as a library call against torch (cuBLAS) on the shapes issues 19/20 name:
decode GEMMs (1 x N x K, planned as GEMVs), 4096^3 in the four layouts through views, and
strided batches against torch.bmm (the batched member choose_batched picks, plus other
batched members for comparison).

    python benchmarks/callpath_bench.py [--rounds 9] [--reps 20] [--json out.json]

Each case is checked against torch's float64 result first.  Then interleaved rounds: per
round and variant, `reps` back-to-back calls between two CUDA events on torch's current
stream; the median per call over the rounds.  TF32 off.  speedup = torch ms / regtile ms.
Needs torch and a GPU.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

from regtile.tools.report import commit, finish


def _cases(torch):
    """(name, shape label, layout, torch fn, {variant: regtile fn}, check (out, ref))."""
    import regtile
    from regtile.codegen.heuristic import with_layout
    from regtile.codegen.presets import FAMILY, get_preset
    dev = "cuda"
    out = []
    for m, n, k in ((1, 7680, 2560), (1, 4096, 4096)):
        x = torch.randn(m, k, device=dev)
        for lay in ("NN", "NT"):
            W = torch.randn(k, n, device=dev) if lay == "NN" else torch.randn(n, k, device=dev).t()
            C, Ct = torch.empty(m, n, device=dev), torch.empty(m, n, device=dev)
            out.append((f"{m}x{n}x{k}", lay, lambda x=x, W=W, Ct=Ct: torch.mm(x, W, out=Ct),
                        {"regtile.sgemm": lambda x=x, W=W, C=C: regtile.sgemm(x, W, C)},
                        (C, lambda x=x, W=W: x.double() @ W.double())))
    s = 4096
    for lay in ("NN", "NT", "TN", "TT"):
        A = torch.randn(s, s, device=dev) if lay[0] == "N" else torch.randn(s, s, device=dev).t()
        B = torch.randn(s, s, device=dev) if lay[1] == "N" else torch.randn(s, s, device=dev).t()
        C, Ct = torch.empty(s, s, device=dev), torch.empty(s, s, device=dev)
        out.append((f"{s}^3", lay, lambda A=A, B=B, Ct=Ct: torch.mm(A, B, out=Ct),
                    {"regtile.sgemm": lambda A=A, B=B, C=C: regtile.sgemm(A, B, C)},
                    (C, lambda A=A, B=B: A.double() @ B.double())))
    for b, m, n, k in ((64, 128, 128, 128), (16, 512, 512, 512), (8, 1024, 1024, 64)):
        A, B = torch.randn(b, m, k, device=dev), torch.randn(b, k, n, device=dev)
        C, Ct = torch.empty(b, m, n, device=dev), torch.empty(b, m, n, device=dev)
        variants = {"regtile.sgemm": lambda A=A, B=B, C=C: regtile.sgemm(A, B, C)}
        others = {"sq-128x128": FAMILY["sq-128x128"], "plain-64x64": FAMILY["plain-64x64"],
                  "wide-128x256": FAMILY["wide-128x256"]}
        for name, mem in others.items():
            cfg = with_layout(mem.config, False, False, batched=True)
            variants[f"member {name}"] = (lambda A=A, B=B, C=C, cfg=cfg, be=mem.backend:
                                          regtile.sgemm(A, B, C, config=cfg, backend=be))
        zcfg = get_preset("zorder").config.replace(batched=True)
        variants["zorder (ptx)"] = lambda A=A, B=B, C=C, cfg=zcfg: regtile.sgemm(A, B, C, config=cfg, backend="ptx")
        out.append((f"{b}x{m}x{n}x{k}", "NN batched", lambda A=A, B=B, Ct=Ct: torch.bmm(A, B, out=Ct), variants,
                    (C, lambda A=A, B=B: torch.matmul(A.double(), B.double()))))
    return out


def _plan_of(torch, fn):
    """describe() of the plan sgemm's last call ran (the cached fast-path table)."""
    from regtile.runtime.gemm import _fast_plans
    return list(_fast_plans.values())[-1][0].describe() if _fast_plans else "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results = {"device": torch.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "commit": commit(), "torch": torch.__version__, "rounds": args.rounds, "reps": args.reps, "rows": []}
    for shape, lay, ref_fn, variants, (C, ref) in _cases(torch):
        row = {"shape": shape, "layout": lay, "variants": {}}
        kernels = {}
        for name, fn in list(variants.items()):
            try:
                C.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                r = ref()
                err = ((C.double() - r).norm() / r.norm()).item()
                kernels[name] = _plan_of(torch, fn)
                row["variants"][name] = {"rel_err": err, "kernel": kernels[name]}
                if not err <= 1e-5:
                    raise RuntimeError(f"rel err {err}")
            except Exception as e:  # noqa: BLE001 - a failing comparison variant is recorded, not fatal
                row["variants"][name] = {"error": f"{type(e).__name__}: {e}"[:300]}
                variants.pop(name)
        timed = {"torch": ref_fn, **variants}
        for fn in timed.values():
            for _ in range(3):
                fn()
        torch.cuda.synchronize()
        times = {name: [] for name in timed}
        for _ in range(args.rounds):
            for name, fn in timed.items():
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(args.reps):
                    fn()
                e1.record()
                e1.synchronize()
                times[name].append(e0.elapsed_time(e1) / args.reps)
        med = {name: statistics.median(t) for name, t in times.items()}
        row["torch_ms"] = med["torch"]
        for name in variants:
            row["variants"][name].update(ms=med[name], speedup=med["torch"] / med[name], rounds=times[name])
        row["torch_rounds"] = times["torch"]
        results["rows"].append(row)
        print(f"{shape} {lay}: torch {med['torch']:.4f} ms; " + "; ".join(
            f"{n} {med[n]:.4f} ({med['torch'] / med[n]:.3f}x)" for n in variants), flush=True)
    rows = []
    for r in results["rows"]:
        for name, v in r["variants"].items():
            rows.append([r["shape"], r["layout"], name, v["kernel"], f"{v['ms']:.4f}", f"{r['torch_ms']:.4f}",
                         f"**{v['speedup']:.3f}**", f"{v['rel_err']:.1e}"] if "ms" in v else
                        [r["shape"], r["layout"], name, v.get("error"), "", "", "", ""])
    finish(results, args.json, f"# {results['device']}, {results['date']}, commit {results['commit']}, "
           f"torch {results['torch']}", ["shape", "layout", "variant", "kernel", "regtile ms", "torch ms", "speedup",
                                         "rel err"], rows, right_from=4)
    return 0


if __name__ == "__main__":
    sys.exit(main())
