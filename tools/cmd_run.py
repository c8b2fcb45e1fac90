"""`regtile run`: one kernel on the GPU: correctness against float64, time, and cuBLAS.
Without a preset or config flags, the kernel regtile.sgemm would choose for the shape."""
from __future__ import annotations

import argparse
import json
import sys

from ..codegen.config import SgemmConfig
from ..codegen.emit import describe
from ..codegen.sgemv_config import SgemvConfig
from . import progress
from .options import (UsageError, add_kernel_args, backend_from_args, check_sizes, command_parser, config_from_args,
                      kernel_given)


DESCRIPTION = """Run one kernel on fresh random inputs: C poisoned with NaN, every element checked
written, relative error against a float64 reference, median time over repeats (rotating buffers so the
L2 does not flatter small sizes), TFLOP/s, % of the FFMA peak, and cuBLAS (true FP32) timed in the same
run. Without --preset or config flags it runs the kernel regtile.sgemm would choose for the shape (the
best `regtile tune` stored for it on this GPU, else the default kernel) and says which. Needs a GPU.
Exit status 1 when the result is wrong."""
EXAMPLES = """examples:
  regtile run --m 4096 --n 4096 --k 4096              (regtile.sgemm's choice)
  regtile run --preset zorder --m 4096 --n 4096 --k 4096
  regtile run --preset pad --m 1000 --n 1023 --k 33 --alpha 0.5 --beta -1.5
  regtile run --preset zorder --m 8192 --n 8192 --k 8192 --repeat 10 --json
  regtile run --preset zorder --split-k 4 --m 8192 --n 128 --k 8192
  regtile run --preset zorder --bn 256 --tn 16 --min-blocks 1 --sass-pass --stream-k --edge-split \\
      --backend ptx --m 4097 --n 4097 --k 4097
  regtile run --preset sgemv-n128 --m 16384 --n 128"""


def register(sub) -> None:
    p = command_parser(sub, "run", "run a kernel on the GPU: check against float64, time it, compare with cuBLAS",
                       DESCRIPTION, EXAMPLES)
    add_kernel_args(p, arch_from_device=True, backend=True)
    p.add_argument("--m", type=int, required=True, help="rows of A and C")
    p.add_argument("--n", type=int, required=True, help="columns of B and C (SGEMV: columns of A)")
    p.add_argument("--k", type=int, help="columns of A, rows of B (SGEMM only)")
    p.add_argument("--alpha", type=float, default=1.0, help="C = alpha*A*B + beta*C (default 1)")
    p.add_argument("--beta", type=float, default=0.0,
                   help="C = alpha*A*B + beta*C (default 0; nonzero: C starts from random values)")
    p.add_argument("--repeat", type=int, default=20, help="timed launches (median reported; default 20)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    p.add_argument("--cublas", action=argparse.BooleanOptionalAction, default=True,
                   help="time cuBLAS (true FP32) in the same run; --no-cublas skips it")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _sizes(args, sgemv: bool):
    check_sizes(args, "mn")
    if sgemv:
        if args.k is not None:
            raise UsageError("--k is an SGEMM size; SGEMV takes --m and --n")
    else:
        if args.k is None:
            raise UsageError("SGEMM needs --k (for SGEMV: --kernel sgemv or an sgemv preset)")
        check_sizes(args, "k")
    if args.repeat < 0:
        raise UsageError(f"--repeat {args.repeat}: must be >= 0")


def _chosen_kernel(args, arch: str):
    """(label, config, backend, why) of the kernel regtile.sgemm/sgemv would launch for the
    shape: runtime/gemm.py's own choice, asked, not copied."""
    if args.kernel == "sgemv":
        from ..codegen.sgemv_config import config_for_shape
        return "sgemv-auto", config_for_shape(args.m, args.n), "cuda", "regtile.sgemv's kernel for the shape"
    from ..codegen.fewvec_config import route
    from ..runtime.choice import choose_sgemm_kernel, tuned_entry
    m, n, k = args.m, args.n, args.k
    if m == 1 or n == 1 or route(m, n, k, False, k, False, n) is not None:
        # regtile.sgemm runs these as GEMVs (runtime/gemv.gemv_route, runtime/fewvec.fewvec_route)
        from ..runtime.plans import GemmPlan
        plan = args.plan = GemmPlan(m, n, k, False, False, k, n, n, arch=arch)
        return "default", plan.config, "cuda", f"regtile.sgemm's GEMV route ({plan.describe()})"
    cfg, backend = choose_sgemm_kernel(m, n, k, arch)  # as GemmPlan chooses it for packed row-major operands
    if tuned_entry(m, n, k) is None:
        return "default", cfg, backend, "regtile.sgemm's default kernel for the shape (nothing tuned for it)"
    return "tuned", cfg, backend, "the best config `regtile tune` stored for the shape on this GPU"


def run(args) -> int:
    chosen = not kernel_given(args)
    if chosen:  # regtile.sgemm's (or sgemv's) own choice; sizes checked before any GPU work
        _sizes(args, args.kernel == "sgemv")
    else:
        label, cfg = config_from_args(args)
        _sizes(args, isinstance(cfg, SgemvConfig))
    from ..runtime import driver
    dev = driver.device()
    if not chosen and getattr(args, "member", None) and args.cfg_split_k is None:
        cfg = member_split(args.member, cfg, args.m, args.n, args.k, dev.sm_count)
    if args.cublas and args.repeat:
        _require_cublas()  # before any GPU work: a missing cuBLAS is refused, not found after the timing
    arch = args.arch if args.arch else dev.arch
    why = None
    if chosen:
        label, cfg, backend, why = _chosen_kernel(args, arch)
        if args.backend not in (None, backend):
            raise UsageError(f"--backend {args.backend}: {why} is a {backend} kernel; give --preset or config "
                             f"flags to choose the backend")
        args.backend = backend
        print(f"regtile: {why}: {describe(cfg, backend)} ({backend})", file=sys.stderr)
    sgemv = args.kernel == "sgemv" if chosen else isinstance(cfg, SgemvConfig)
    if sgemv:
        out = _run_sgemv(args, cfg, label, dev, arch)
    else:
        out = _run_sgemm(args, cfg, label, dev, arch)
    if why:
        out["chosen"] = f"{why}: {describe(cfg, backend_from_args(args))} ({backend_from_args(args)})"
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        _print(out)
    return 0 if out["result"]["ok"] else 1


def member_split(member: str, cfg: SgemmConfig, m: int, n: int, k: int, sm_count: int) -> SgemmConfig:
    """A split-K member (splitk-*, fused-*) runs with the split the family gives it for the
    shape (heuristic.member_config: what the sweep and regtile.sgemm launch), not split 1;
    other members come back unchanged.  --split-k overrides (the caller skips this then)."""
    from ..codegen.heuristic import member_config
    return cfg.replace(split_k=member_config(member, m, n, k, sm_count)[0].split_k)


def split_fields(cfg, source) -> dict:
    """What `run` reports of a split-K kernel (timed with its reduction): the split and the
    reduce kernel, None for the fused split-K kernel (backend fusedk: one launch, no reduce)."""
    if getattr(cfg, "split_k", 1) <= 1:
        return {}
    reduce = source.reduce
    return {"split_k": cfg.split_k, "reduce_kernel": reduce.name if reduce is not None else None}


def _require_cublas() -> None:
    from ..runtime.cublas import require
    from ..runtime.errors import CublasUnavailable
    try:
        require()
    except CublasUnavailable as e:
        raise CublasUnavailable(f"{e}; or pass --no-cublas to run without the comparison") from None


def _run_sgemm(args, cfg, label, dev, arch):
    from ..runtime import bench
    work = bench.GemmWorkload(args.m, args.n, args.k, seed=args.seed)
    try:
        with progress.task(f"{label} {args.m}x{args.n}x{args.k} on {dev.name}: compile, check, time"):
            plan = None
            if label in ("default", "tuned"):  # exactly what regtile.sgemm launches (its cached plan)
                res, art, plan = _measure_plan(work, args, arch)
                if plan.gemv is None:
                    cfg = plan.config  # generated for the operands (operand_forms), perhaps its cap lifted
            else:
                res, art = bench.measure_config(cfg, work, args.alpha, args.beta, args.repeat, arch,
                                                backend=backend_from_args(args))
        out = {"kind": "sgemm", "label": label, "kernel": art.name, "arch": arch, "device": dev.name,
               "backend": backend_from_args(args),
               "driver": dev.driver_version, "config": cfg.to_dict(), "registers": art.resources.registers,
               "rotating_sets": work.sets, "result": res.to_dict()}
        out.update(split_fields(cfg, art.source))
        if isinstance(cfg, SgemmConfig):  # not the GEMV route: its edge split and stream-K plan
            out.update(_launch_plans(art, args.m, args.n, args.k))
        peak = bench.peak_tflops(dev.name)
        if res.tflops and peak:
            out["pct_of_ffma_peak"] = 100 * res.tflops / peak
            out["ffma_peak_tflops"] = peak
        if args.cublas and args.repeat:
            cres, blas = bench.measure_cublas(work, args.alpha, args.beta, args.repeat)
            out["cublas"] = {"library": blas.describe(), "result": cres.to_dict()}
            out["x_cublas"] = cres.ms / res.ms
        return out
    finally:
        work.close()


def _measure_plan(work, args, arch):
    """(Result, artifact, plan) of regtile.sgemm's own plan for the shape (row-major operands)."""
    from ..runtime import bench
    from ..runtime.plans import GemmPlan
    m, n, k = args.m, args.n, args.k
    plan = getattr(args, "plan", None) or GemmPlan(m, n, k, False, False, k, n, n, arch=arch)
    res = bench.check_and_time(bench.plan_launcher(plan, work, args.alpha, args.beta), work, args.alpha, args.beta,
                               args.repeat)
    return res, plan.kernel.artifact, plan


def _launch_plans(art, m: int, n: int, k: int) -> dict:
    """The edge split and the stream-K plan, a line each (runtime/sgemm_launch.describe_plans);
    {} for a kernel launched whole."""
    from ..runtime import driver
    from ..runtime.sgemm_launch import describe_plans
    return describe_plans(driver.load(art), m, n, k)


def _run_sgemv(args, cfg, label, dev, arch):
    from ..runtime import bench, driver
    from ..runtime.compiler import compile_config
    work = bench.GemvWorkload(args.m, args.n, seed=args.seed)
    try:
        art = compile_config(cfg, arch, backend=backend_from_args(args))
        kernel = driver.load(art, label)
        res = bench.check_and_time_gemv(bench.gemv_kernel_launcher(kernel, work, args.alpha, args.beta, cfg), work,
                                        args.alpha, args.beta, max(args.repeat, 0))
        out = {"kind": "sgemv", "label": label, "kernel": art.name, "arch": arch, "device": dev.name,
               "driver": dev.driver_version, "config": cfg.to_dict(), "registers": art.resources.registers,
               "rotating_sets": work.sets, "result": res}
        pct = bench.pct_of_copy(dev.name, res.get("gbps"))
        if pct is not None:
            out["pct_of_copy_bw"] = pct
        if args.cublas and args.repeat:
            from ..runtime.cublas import shared
            blas = shared(int(work.stream.handle))
            cres = bench.check_and_time_gemv(bench.gemv_cublas_launcher(blas, work, args.alpha, args.beta), work,
                                             args.alpha, args.beta, args.repeat)
            out["cublas"] = {"library": blas.describe(), "result": cres}
            out["x_cublas"] = cres["ms"] / res["ms"]
        return out
    finally:
        work.close()


def _print(out: dict) -> None:
    r = out["result"]
    print(f"kernel   {out['kernel']} ({out['label']}, {out['arch']}, {out['registers']} registers) "
          f"on {out['device']}, {out['driver']}")
    if out.get("chosen"):
        print(f"chosen   {out['chosen']}")
    if out.get("reduce_kernel"):
        print(f"split-K  {out['split_k']} K ranges, then {out['reduce_kernel']}; the times below include both kernels")
    elif out.get("split_k"):
        print(f"split-K  {out['split_k']} K ranges, summed by each tile's last split in the same launch (fused)")
    for key in ("edge_split", "stream_k"):
        if key in out:
            print(f"launches {out[key]}")
    if out["kind"] == "sgemm":
        print(f"problem  M={r['m']} N={r['n']} K={r['k']} alpha={r['alpha']:g} beta={r['beta']:g}")
        total = r["m"] * r["n"]
        print(f"check    rel. error {r['rel_err']:.2e} over {r['err_rows']}; {r['unwritten']} of {total} elements "
              f"left unwritten -> {'OK' if r['ok'] else 'WRONG'}")
        if r.get("ms"):
            pct = f", {out['pct_of_ffma_peak']:.1f}% of the FFMA peak ({out['ffma_peak_tflops']})" \
                if "pct_of_ffma_peak" in out else ""
            print(f"time     {r['ms']:.4f} ms (median of {len(r['ms_all'])}, {out['rotating_sets']} rotating "
                  f"buffer sets) -> {r['tflops']:.2f} TFLOP/s{pct}")
        if "cublas" in out:
            c = out["cublas"]["result"]
            print(f"cuBLAS   {c['ms']:.4f} ms -> {c['tflops']:.2f} TFLOP/s, error {c['rel_err']:.2e} "
                  f"[{out['cublas']['library']}]")
            print(f"ratio    regtile is {out['x_cublas']:.3f}x cuBLAS (cuBLAS time / regtile time)")
    else:
        print(f"problem  M={r['m']} N={r['n']} alpha={r['alpha']:g} beta={r['beta']:g}")
        print(f"check    rel. error {r['rel_err']:.2e}; {r['unwritten']} of {r['m']} elements left unwritten -> "
              f"{'OK' if r['ok'] else 'WRONG'}")
        if r.get("ms"):
            pct = f", {out['pct_of_copy_bw']:.1f}% of the copy bandwidth" if "pct_of_copy_bw" in out else ""
            print(f"time     {r['us']:.2f} us -> {r['gbps']:.0f} GB/s{pct}")
        if "cublas" in out:
            c = out["cublas"]["result"]
            print(f"cuBLAS   {c['us']:.2f} us -> {c['gbps']:.0f} GB/s [{out['cublas']['library']}]")
            print(f"ratio    regtile is {out['x_cublas']:.3f}x cuBLAS (cuBLAS time / regtile time)")
