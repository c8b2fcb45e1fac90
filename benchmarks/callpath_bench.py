"""regtile.sgemm as a library call against torch (cuBLAS) on the shapes issues 19/20 name:
decode GEMMs (1 x N x K, planned as GEMVs), 4096^3 and 8192^3 in the four layouts through views, and
strided batches against torch.bmm (the batched member choose_batched picks, plus other
batched members for comparison).

    python benchmarks/callpath_bench.py [--rounds 9] [--reps 20] [--json out.json] [--precompile 16]

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

from regtile.runtime.bench import interleaved_event_ms
from regtile.tools.report import commit, finish


def _cases(torch):
    """(name, shape label, layout, torch fn, {variant: regtile fn}, check (out, ref))."""
    import regtile
    from regtile.codegen.layouts import with_layout
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
    for s in CUBES:
        for lay in ("NN", "NT", "TN", "TT"):
            A = torch.randn(s, s, device=dev) if lay[0] == "N" else torch.randn(s, s, device=dev).t()
            B = torch.randn(s, s, device=dev) if lay[1] == "N" else torch.randn(s, s, device=dev).t()
            C, Ct = torch.empty(s, s, device=dev), torch.empty(s, s, device=dev)
            variants = {"regtile.sgemm": lambda A=A, B=B, C=C: regtile.sgemm(A, B, C)}
            if lay == "TN":  # the TN kernel before layouts.SWIRL_TN_TILE, for comparison
                zz = _chosen(s, s, s, True, False)[0].replace(ffma_order="zigzag")
                variants["TN zigzag (before)"] = (lambda A=A, B=B, C=C, cfg=zz:
                                                  regtile.sgemm(A, B, C, config=cfg, backend="ptx"))
                variants["TN 256x128 swirl"] = (lambda A=A, B=B, C=C, cfg=_tall_swirl_tn():
                                                regtile.sgemm(A, B, C, config=cfg, backend="ptx"))
            out.append((f"{s}^3", lay, lambda A=A, B=B, Ct=Ct: torch.mm(A, B, out=Ct), variants,
                        (C, lambda A=A, B=B: A.double() @ B.double())))
    for b, m, n, k in BATCHES:
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


CUBES = (4096, 8192)
BATCHES = ((64, 128, 128, 128), (16, 512, 512, 512), (8, 1024, 1024, 64))


def _chosen(m, n, k, ta, tb, batch=0):
    """(config, backend) regtile.sgemm chooses on this GPU (runtime/choice.py)."""
    from regtile.runtime import driver
    from regtile.runtime.choice import choose_sgemm_kernel
    return choose_sgemm_kernel(m, n, k, driver.device().arch, ta, tb, batch)


def _tall_swirl_tn():
    """The 256x128 16x8 member (SASS pass, stream-K) as TN in the swirl order: a TN candidate."""
    from regtile.codegen.layouts import with_layout
    from regtile.codegen.presets import FAMILY
    return with_layout(FAMILY["tall-256x128"].config, True, False).replace(ffma_order="swirl")


def precompile(workers: int) -> None:
    """Compile the SGEMM kernels of the layout and batched cases in `workers` processes (the
    disk cache then serves the timed process)."""
    from regtile.codegen.layouts import with_layout
    from regtile.runtime.compiler import compile_many
    from regtile.codegen.presets import FAMILY, get_preset
    from regtile.runtime import driver
    arch = driver.device().arch
    items = []
    for s in CUBES:
        for ta in (False, True):
            for tb in (False, True):
                items.append(_chosen(s, s, s, ta, tb) + (arch,))
        cfg, be = _chosen(s, s, s, True, False)
        items.append((cfg.replace(ffma_order="zigzag"), be, arch))
        items.append((_tall_swirl_tn(), "ptx", arch))
    for b, m, n, k in BATCHES:
        items.append(_chosen(m, n, k, False, False, b) + (arch,))
    for name in ("sq-128x128", "plain-64x64", "wide-128x256"):
        items.append((with_layout(FAMILY[name].config, False, False, batched=True), FAMILY[name].backend, arch))
    items.append((get_preset("zorder").config.replace(batched=True), "ptx", arch))
    items = list(dict.fromkeys(items))
    errs = [e for e in compile_many([(cfg, backend) for cfg, backend, _ in items], arch, workers) if e]
    print(f"precompiled {len(items)} kernels" + (f"; {len(errs)} failed, first: {errs[0]}" if errs else ""),
          flush=True)


def _plan_of(fn) -> str:
    """describe() of the plan that one call of fn runs through regtile.sgemm's fast path: the one
    entry of its fast table after a call on an emptied table ("?" for calls that do not take it:
    regtile.Gemm, non-torch operands)."""
    from regtile.runtime.gemm import _fast_plans
    _fast_plans.clear()
    fn()
    entries = list(_fast_plans.values())
    return entries[0][0].describe() if len(entries) == 1 else "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", default=None)
    ap.add_argument("--precompile", type=int, default=0, metavar="N",
                    help="compile the SGEMM kernels first in N processes")
    args = ap.parse_args(argv)
    if args.precompile:
        precompile(args.precompile)
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
                kernels[name] = _plan_of(fn)
                row["variants"][name] = {"rel_err": err, "kernel": kernels[name]}
                if not err <= 1e-5:
                    raise RuntimeError(f"rel err {err}")
            except Exception as e:  # noqa: BLE001 - a failing comparison variant is recorded, not fatal
                row["variants"][name] = {"error": f"{type(e).__name__}: {e}"[:300]}
                variants.pop(name)
        timed = {"torch": ref_fn, **variants}
        reps = max(3, args.reps // 4) if shape == "8192^3" else args.reps  # 20 ms a call there
        times = interleaved_event_ms(torch, timed, args.rounds, reps)
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
