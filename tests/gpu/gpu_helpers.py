"""Shared by the GPU tests: launch loaded kernels on one workload (C poisoned first), check configs."""
import numpy as np

from regtile.runtime import bench, driver


def launch_each(kernels, m: int, n: int, k: int):
    """C of one launch of each kernel in turn (runtime/bench.kernel_launcher: every launch of
    the SGEMM, reductions included) on the same fresh random operands, C NaN-poisoned before each."""
    work = bench.GemmWorkload(m, n, k)
    try:
        launchers = {}
        outs = []
        for kernel in kernels:
            if id(kernel) not in launchers:  # a kernel launched twice reuses its launches (work lists)
                launchers[id(kernel)] = bench.kernel_launcher(kernel, work, 1.0, 0.0)
            launch = launchers[id(kernel)]
            driver.fill_u32(work.c[0].ptr, driver.NAN_BITS, m * n, int(work.stream))
            launch(0, int(work.stream))
            work.stream.synchronize()
            out = np.empty((m, n), dtype=np.float32)
            work.c[0].download(out)
            outs.append(out)
    finally:
        work.close()
    return outs


def two_runs(kernel, m: int, n: int, k: int):
    """C of two launches of `kernel` on the same operands (launch_each)."""
    return launch_each((kernel, kernel), m, n, k)


def check_config(cfg, m: int, n: int, k: int, alpha: float = 1.0, beta: float = 0.0, backend: str = "cuda",
                 what: str = "") -> None:
    """`cfg` built by `backend` on fresh random M x N x K operands against float64 (runtime/bench:
    C and any workspace NaN-poisoned first, every element checked written)."""
    work = bench.GemmWorkload(m, n, k)
    try:
        res, _ = bench.measure_config(cfg, work, alpha, beta, repeat=0, backend=backend)
    finally:
        work.close()
    what = f"{what} {m}x{n}x{k} alpha={alpha} beta={beta}"
    assert res.unwritten == 0, f"{what}: {res.unwritten} elements unwritten (or NaN from a workspace)"
    assert res.rel_err <= 1e-5, f"{what}: rel err {res.rel_err}"


def check_host_sgemm(m: int, k: int, n: int, alpha: float, beta: float, **sgemm_kwargs) -> None:
    """regtile.sgemm on fresh random numpy operands: C is written in place and returned, and
    matches float64."""
    import regtile
    rng = np.random.default_rng()
    A = rng.standard_normal((m, k), dtype=np.float32)
    B = rng.standard_normal((k, n), dtype=np.float32)
    C = rng.standard_normal((m, n), dtype=np.float32)
    ref = alpha * (A.astype(np.float64) @ B) + beta * C
    out = regtile.sgemm(A, B, C, alpha=alpha, beta=beta, **sgemm_kwargs)
    assert out is C
    err = np.linalg.norm(C - ref) / np.linalg.norm(ref)
    assert err <= 1e-5, f"regtile.sgemm {m}x{n}x{k} {sgemm_kwargs}: rel err {err}"
