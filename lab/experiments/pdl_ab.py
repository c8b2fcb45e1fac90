"""Programmatic dependent launch (codegen/kernel.PDL_WAIT) on and off, kernel for kernel (session 5).

For each shape, what regtile launches for it (runtime/plans.GemmPlan for a GEMM: split-K's partial
kernel + reduce, a few-vector GEMV's stage + kernel + reduce; runtime/gemv.plan_for for a GEMV:
kernel + split reduce, every GEMV kernel programmatic, so back-to-back calls overlap too) is timed twice: packed with driver.PROGRAMMATIC on ("pdl": its dependent
kernels through cuLaunchKernelEx with the programmatic attribute) and off ("plain"), each on its own
stream (a plan packs its launches once per stream), and cuBLAS (torch.mm, TF32 off) for the GEMMs.
Every variant is first checked against float64 with its output NaN-poisoned.  Timing: CUDA graphs
of BATCH calls on rotating operand sets (more than twice the L2), replays interleaved over rounds,
median; and the same BATCH calls launched from Python back to back ("stream").  Writes
pdl_ab.json under $OUT (or the current folder).

    python3 -m lab.experiments.pdl_ab [gemm|gemv ...]
    python3 -m lab.experiments.pdl_ab gemv:2048x6144T,300x1048576N gemm:700x35x2048   # these shapes only
"""
import json
import os
import sys

from . import program, time_graphs

GEMM = [(700, 35, 2048), (65, 33, 4097), (768, 64, 768), (16, 768, 768), (512, 512, 512), (1024, 16, 1024),
        (64, 1024, 1024), (1024, 128, 1024), (2048, 16, 32768), (8192, 8, 8192), (4, 1024, 65536), (7680, 2, 2560)]
GEMV = [(1048576, 16, "T"), (16384, 16, "T"), (1048576, 77, "T"), (1048576, 128, "T"), (16384, 4096, "T"),
        (4096, 77, "T"), (768, 768, "T"), (7, 50000, "N"), (2, 1000000, "N"), (32, 1048576, "N"),
        (32, 4096, "T"), (32, 4096, "N"), (1, 4096, "N"), (2, 128, "T"), (4096, 4096, "T")]  # one kernel, no split
BATCH, ROUNDS = 20, 11


def _time(torch, variants):
    """{name: (graph us, stream us)} of {name: (stream, fn)}, rounds interleaved (lab/experiments.time_graphs)."""
    return time_graphs(torch, variants, BATCH, ROUNDS)


def _on_stream(driver, programmatic, fn):
    """fn(0) once with driver.PROGRAMMATIC set: the plan packs this stream's launches now."""
    before = driver.PROGRAMMATIC
    driver.PROGRAMMATIC = programmatic
    try:
        fn(0)
    finally:
        driver.PROGRAMMATIC = before


def _gemm(torch, driver, m, n, k):
    from regtile.runtime.bench import rotation_sets
    from regtile.runtime.plans import GemmPlan
    sets = rotation_sets(4 * (m * k + k * n + m * n), driver.device().l2_bytes)
    g = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
    A = [torch.randn(m, k, device="cuda", generator=g) for _ in range(sets)]
    B = [torch.randn(k, n, device="cuda", generator=g) for _ in range(sets)]
    C = [torch.full((m, n), float("nan"), device="cuda") for _ in range(sets)]
    plan = GemmPlan(m, n, k, False, False, k, n, n)
    ref = A[0].double() @ B[0].double()
    streams = {v: torch.cuda.Stream() for v in ("pdl", "plain", "cublas")}
    variants, check = {}, {}
    for v in ("pdl", "plain"):
        st = streams[v]
        fn = (lambda i, s=st.cuda_stream: plan.launch(A[i % sets].data_ptr(), B[i % sets].data_ptr(),
                                                      C[i % sets].data_ptr(), 1.0, 0.0, s))
        C[0].fill_(float("nan"))
        torch.cuda.synchronize()
        _on_stream(driver, v == "pdl", fn)
        torch.cuda.synchronize()
        err = float((C[0].double() - ref).norm() / ref.norm())
        check[v] = {"rel_err": err, "unwritten": int(torch.isnan(C[0]).sum())}
        variants[v] = (st, fn)
    cst = streams["cublas"]

    def cublas(i):
        with torch.cuda.stream(cst):
            torch.mm(A[i % sets], B[i % sets], out=C[i % sets])
    cublas(0)
    torch.cuda.synchronize()
    variants["cublas"] = (cst, cublas)
    times = _time(torch, variants)
    return {"m": m, "n": n, "k": k, "kernel": plan.describe(), "check": check, "us": times}


def _gemv(torch, driver, m, n, op):
    from regtile.runtime.bench import rotation_sets
    from regtile.runtime.gemv import plan_for
    xlen, ylen = (n, m) if op == "N" else (m, n)
    sets = rotation_sets(4 * (m * n + xlen + ylen), driver.device().l2_bytes, most=16)
    g = torch.Generator(device="cuda").manual_seed(m * 31 + n)
    A = [torch.randn(m, n, device="cuda", generator=g) for _ in range(sets)]
    X = [torch.randn(xlen, device="cuda", generator=g) for _ in range(sets)]
    Y = [torch.full((ylen,), float("nan"), device="cuda") for _ in range(sets)]
    plan = plan_for(m, n, op)
    ref = (A[0].double().T if op == "T" else A[0].double()) @ X[0].double()
    variants, check = {}, {}
    for v in ("pdl", "plain"):
        st = torch.cuda.Stream()
        fn = (lambda i, s=st.cuda_stream: plan.launch(1.0, A[i % sets].data_ptr(), n, X[i % sets].data_ptr(), 1, 0.0,
                                                      Y[i % sets].data_ptr(), 1, s))
        Y[0].fill_(float("nan"))
        torch.cuda.synchronize()
        _on_stream(driver, v == "pdl", fn)
        torch.cuda.synchronize()
        check[v] = {"rel_err": float((Y[0].double() - ref).norm() / ref.norm()),
                    "unwritten": int(torch.isnan(Y[0]).sum())}
        variants[v] = (st, fn)
    times = _time(torch, variants)
    mb = 4 * (m * n + xlen + ylen) / 1e6
    return {"m": m, "n": n, "op": op, "MB": round(mb, 3), "kernel": plan.describe(), "check": check, "us": times,
            "GBps": {v: round(mb * 1e3 / t[0], 1) for v, t in times.items()}}


def run(argv):
    import torch
    from regtile.runtime import driver
    torch.backends.cuda.matmul.allow_tf32 = False
    what = {a.split(":")[0] for a in argv} or {"gemm", "gemv"}
    chosen = {"gemv": [], "gemm": []}
    for a in argv:  # kind:shape,shape: these shapes instead of the lists above
        kind, _, shapes = a.partition(":")
        for sh in filter(None, shapes.split(",")):
            chosen[kind].append((int(sh.split("x")[0]), int(sh.split("x")[1][:-1]), sh[-1]) if kind == "gemv"
                                else tuple(int(v) for v in sh.split("x")))
    out = {"device": driver.device().name, "batch": BATCH, "rounds": ROUNDS, "gemm": [], "gemv": []}
    path = os.path.join(os.environ.get("OUT", "."), "pdl_ab.json")
    for kind, shapes, fn in (("gemv", chosen["gemv"] or GEMV, _gemv), ("gemm", chosen["gemm"] or GEMM, _gemm)):
        if kind not in what:
            continue
        for shape in shapes:
            try:
                row = fn(torch, driver, *shape)
            except Exception as e:  # one shape's failure is reported, not fatal
                row = {"shape": list(shape), "error": f"{type(e).__name__}: {str(e)[:300]}"}
            out[kind].append(row)
            print(json.dumps(row), flush=True)
            torch.cuda.empty_cache()
            with open(path, "w") as f:
                json.dump(out, f, indent=1)


main = program(run, "gemm|gemv|gemv:MxN{N,T},... |gemm:MxNxK,...")


if __name__ == "__main__":
    sys.exit(main())
