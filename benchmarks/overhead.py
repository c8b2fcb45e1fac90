"""Per-call host cost of regtile's cached call path against torch.mm (issue 19, item 1).

    python benchmarks/overhead.py [--sizes 256 1024] [--calls 200] [--rounds 7] [--json out.json]

For each size (M = N = K), after warm-up, in interleaved rounds (median reported):
  async_us  host time of one call: N calls back to back without synchronising, / N
            (the GPU runs behind; N stays below the launch queue's depth)
  sync_us   wall time of call + synchronise, per call (includes the kernel)
Variants: torch.mm(out=), regtile.sgemm, a regtile.Gemm object, the plan's launch
alone (GemmPlan.launch with integer pointers: the packing + cuLaunchKernel floor) through
ctypes and through cuda-bindings' cuLaunchKernel (the default launcher), and cuda.core's launch of
the same kernel (evidence for docs/overhead.md's choice).

--gemv N: the GEMV calls on an N x N matrix (y = A x), the same two columns: torch.mv(out=),
regtile.sgemv on torch tensors (cached path) and its two parts (the metadata key and lookup; the
plan's packed launch), its full path (the metadata cache emptied each
call: every check, the plan from its cache), the code before the cached path when
`regtile.runtime.gemv_before` is importable (a copy of the old runtime/gemv.py placed there
for the measurement, not part of the package), and the decode GEMM 1 x N x N (x @ W^T)
through regtile.sgemm (its plan runs the GEMV) against torch.mm.  Needs torch and a GPU.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Optional

from regtile.tools.report import commit, finish


def _cuda_core_launcher(plan, A, B, C, stream_handle):
    """cuda.core's launch of the plan's first kernel (same arguments), or None if unavailable."""
    try:
        import numpy as np
        try:
            from cuda.core import Device, LaunchConfig, ObjectCode, Stream, launch
        except ImportError:
            from cuda.core.experimental import Device, LaunchConfig, ObjectCode, Stream, launch
        dev = Device(0)
        dev.set_current()
        bound = plan._bound[stream_handle]
        pl = bound.launches[0]
        kern = ObjectCode.from_cubin(pl.kernel.artifact.cubin).get_kernel(pl.kernel.source.name)
        stream = Stream.from_handle(stream_handle)
        cfg = LaunchConfig(grid=pl.grid, block=pl.block, shmem_size=pl.smem)
        m, n, k = plan.m, plan.n, plan.k
        if pl.kernel.source.params[-1][0] == "partials":
            return "a stream-K ranges launch first: not compared"
        args = [np.int32(m), np.int32(n), np.int32(k), np.float32(1.0), A.data_ptr(), np.int32(plan.lda),
                B.data_ptr(), np.int32(plan.ldb), np.float32(0.0), C.data_ptr(), np.int32(plan.ldc)]
        if len(pl.kernel.source.params) != len(args):
            return "argument lists differ: not compared"
        fn = lambda: launch(stream, cfg, kern, *args)  # noqa: E731
        fn()
        return fn
    except Exception as e:  # noqa: BLE001 - optional evidence only
        return f"cuda.core launch not measured: {type(e).__name__}: {e}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", default=None)
    ap.add_argument("--gemv", type=int, nargs="*", default=[4096])
    args = ap.parse_args(argv)
    import torch
    import regtile
    from regtile.runtime import driver
    from regtile.runtime.gemm import _fast_plans
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_name(0)
    results = {"device": dev, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit(),
               "calls": args.calls, "rounds": args.rounds, "sizes": {}}
    for s in args.sizes:
        A, B, C = (torch.randn(s, s, device="cuda") for _ in range(3))
        t0 = time.perf_counter()
        regtile.sgemm(A, B, C)
        torch.cuda.synchronize()
        first_ms = (time.perf_counter() - t0) * 1e3
        ref = A.double() @ B.double()
        err = ((C.double() - ref).norm() / ref.norm()).item()
        plan_obj = regtile.Gemm(s, s, s)
        plan_obj(A, B, C)
        stream = torch.cuda.current_stream().cuda_stream
        gplan = next(v[0] for k, v in _fast_plans.items() if k[1] == A.shape)
        pa, pb, pc = A.data_ptr(), B.data_ptr(), C.data_ptr()

        def raw():
            gplan.launch(pa, pb, pc, 1.0, 0.0, stream)
        variants = {
            "torch.mm": lambda: torch.mm(A, B, out=C),
            "regtile.sgemm": lambda: regtile.sgemm(A, B, C),
            "regtile.Gemm": lambda: plan_obj(A, B, C),
            "plan.launch (ctypes)": raw,
        }
        core = _cuda_core_launcher(gplan, A, B, C, stream)
        if callable(core):
            variants["cuda.core launch"] = core
        else:
            print(core, file=sys.stderr)
        variants["plan.launch (cuda-bindings)"] = raw
        launchers = {f"plan.launch ({label})": driver.make_launcher(kind)
                     for label, kind in (("ctypes", "ctypes"), ("cuda-bindings", "bindings"))}
        results["sizes"][str(s)] = {
            "first_call_ms": first_ms, "rel_err": err, "kernel": gplan.describe(),
            "launches": len(gplan._bound[stream].launches), "cuda_core": "measured" if callable(core) else core,
            "variants": _time_variants(variants, args.calls, args.rounds, launchers)}
    results["gemv"] = {str(g): _gemv_rows(g, args) for g in args.gemv}
    rows = []
    for s, r in results["sizes"].items():
        rows += [[f"{s}^3", name, f"{v['async_us']:.1f}", f"{v['sync_us']:.1f}"] for name, v in r["variants"].items()]
        rows.append([f"{s}^3", f"(first call {r['first_call_ms']:.0f} ms, rel err {r['rel_err']:.1e}, "
                               f"{r['launches']} launch(es): {r['kernel']})", "", ""])
    for g, r in results["gemv"].items():
        rows += [[f"gemv {g}x{g}", name, f"{v['async_us']:.1f}", f"{v['sync_us']:.1f}"]
                 for name, v in r["variants"].items()]
        rows.append([f"gemv {g}x{g}", f"(rel err {r['rel_err']:.1e}; sgemm 1x{g}x{g}: {r['kernel']})", "", ""])
    finish(results, args.json, f"# {dev}, {results['date']}, commit {results['commit']}, {args.calls} calls x "
           f"{args.rounds} rounds", ["size", "variant", "async host us/call", "synced us/call"], rows, right_from=2)
    return 0


def _time_variants(variants: dict, calls: int, rounds: int, launchers: Optional[dict] = None) -> dict:
    """Per variant, the median async (host) and synced per-call microseconds over interleaved rounds.
    launchers: {variant: a driver.make_launcher callable} that variant's packed launches go through
    while it is timed (the others: the process's launcher)."""
    import torch
    from regtile.runtime import driver
    launchers = launchers or {}
    default = driver._launcher()
    for fn in variants.values():
        for _ in range(20):
            fn()
    torch.cuda.synchronize()
    rows = {name: {"async": [], "sync": []} for name in variants}
    for _ in range(rounds):
        for name, fn in variants.items():
            driver._raw_launch = launchers.get(name, default)
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            rows[name]["async"].append((time.perf_counter() - t) / calls * 1e6)
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(calls // 4):
                fn()
                torch.cuda.synchronize()
            rows[name]["sync"].append((time.perf_counter() - t) / (calls // 4) * 1e6)
            driver._raw_launch = default
    return {name: {"async_us": statistics.median(r["async"]), "sync_us": statistics.median(r["sync"]),
                   "async_rounds": r["async"], "sync_rounds": r["sync"]} for name, r in rows.items()}


def _gemv_rows(size: int, args) -> dict:
    import torch
    import regtile
    from regtile.runtime import gemv
    from regtile.runtime.arrays import fast_key
    A, x, y = torch.randn(size, size, device="cuda"), torch.randn(size, device="cuda"), torch.empty(size, device="cuda")
    regtile.sgemv(A, x, y)
    torch.cuda.synchronize()
    ref = A.double() @ x.double()
    err = ((y.double() - ref).norm() / ref.norm()).item()
    xr, W, C = x.view(1, size), torch.randn(size, size, device="cuda"), torch.empty(1, size, device="cuda")

    def full():
        gemv._fast.clear()
        regtile.sgemv(A, x, y)
    variants = {
        "torch.mv(A, x, out=y)": lambda: torch.mv(A, x, out=y),
        "regtile.sgemv (cached path)": lambda: regtile.sgemv(A, x, y),
        "regtile.sgemv (full path)": full,
    }
    try:
        import importlib
        before = importlib.import_module("regtile.runtime.gemv_before")
        before.sgemv(A, x, y, stream=torch.cuda.current_stream().cuda_stream)
        s = torch.cuda.current_stream().cuda_stream
        variants["regtile.sgemv before (old gemv.py)"] = lambda: before.sgemv(A, x, y, stream=s)
    except ImportError:
        pass
    # the cached path's two parts: the metadata key and its lookup, then the plan's packed launch
    key = (A, x, y, False, 1, 1, None, None)
    hit = gemv._fast[fast_key(*key)]
    gemv_plan, lda, s = hit[0], hit[1], torch.cuda.current_stream().cuda_stream
    variants["regtile.sgemv: fast_key + lookup only"] = lambda: gemv._fast.get(fast_key(*key))
    variants["regtile.sgemv: plan.launch only"] = lambda: gemv_plan.launch(1.0, A.data_ptr(), lda, x.data_ptr(), 1,
                                                                           0.0, y.data_ptr(), 1, s)
    variants["torch.mm(x, W^T) 1xNxN"] = lambda: torch.mm(xr, W.t(), out=C)
    variants["regtile.sgemm(x, W^T) 1xNxN"] = lambda: regtile.sgemm(xr, W.t(), C)
    regtile.sgemm(xr, W.t(), C)
    from regtile.runtime.gemm import _fast_plans
    plan = next(v[0] for k, v in _fast_plans.items() if k[1] == xr.shape)
    return {"rel_err": err, "kernel": plan.describe(), "variants": _time_variants(variants, args.calls, args.rounds)}


if __name__ == "__main__":
    sys.exit(main())
