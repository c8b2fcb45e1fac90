"""The measurement method shared by `regtile run`, `bench` and `tune`.

Correctness: fresh random inputs (never zeros) from a seeded generator, C poisoned
with NaN before the checked launch, every element checked written, and the error
||C - ref|| / ||ref|| against a float64 reference (numpy) over all rows, or over a
random sample of rows for large problems (said in the result).

Timing: CUDA events around each launch on one stream, after warm-up launches;
the median over `repeat` launches.  Launches rotate over several sets of A, B, C
so that a set is evicted from the 50 MB L2 before it is used again (small
problems would otherwise be timed from the cache).  cuBLAS (FP32, pedantic math)
is timed the same way in the same process when asked.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, List, Optional

import numpy as np

from . import driver
from .compiler import compile_config

# FP32 FFMA peak measured on the project's H100 (register-only FFMA chain, ILP 8,
# SM clock 1980 MHz): shared/notes/h100-baseline.md.  Percentages of peak use it.
H100_FFMA_PEAK_TFLOPS = 65.2
# Device-to-device copy, bytes read plus written, same machine and source.
H100_COPY_TBPS = 2.94
L2_BYTES = 50 * 2**20
FULL_REFERENCE_MAX_FLOPS = 2 * 2048**3  # above this, check a sample of rows
SAMPLE_ROWS = 256


def peak_tflops(device_name: str) -> Optional[float]:
    return H100_FFMA_PEAK_TFLOPS if "H100" in device_name else None


@dataclass
class Result:
    m: int
    n: int
    k: int
    alpha: float
    beta: float
    ms: Optional[float] = None  # median
    ms_all: List[float] = field(default_factory=list)
    tflops: Optional[float] = None
    rel_err: Optional[float] = None
    err_rows: str = ""  # "all rows" or "256 sampled rows"
    unwritten: Optional[int] = None  # NaN left from the poison
    ok: Optional[bool] = None

    def to_dict(self) -> dict:
        return asdict(self)


def _rotation(bytes_per_set: int) -> int:
    """Sets of buffers so that the rotation spans at least twice the L2."""
    return max(1, min(8, math.ceil(2 * L2_BYTES / max(bytes_per_set, 1))))


class GemmWorkload:
    """Device buffers for M x N x K: `sets` rotating copies of random A, B, C0, one C."""

    def __init__(self, m: int, n: int, k: int, seed: Optional[int] = None, sets: Optional[int] = None):
        self.m, self.n, self.k = m, n, k
        rng = np.random.default_rng(seed)
        self.sets = sets or _rotation(4 * (m * k + k * n + m * n))
        self.host_a = rng.standard_normal((m, k), dtype=np.float32)
        self.host_b = rng.standard_normal((k, n), dtype=np.float32)
        self.host_c0 = rng.standard_normal((m, n), dtype=np.float32)
        self.a = [driver.to_device(self.host_a) for _ in range(self.sets)]
        self.b = [driver.to_device(self.host_b) for _ in range(self.sets)]
        self.c0 = driver.to_device(self.host_c0)
        self.c = [driver.DeviceBuffer(self.host_c0.nbytes) for _ in range(self.sets)]
        self.stream = driver.Stream()

    def close(self):
        for buf in self.a + self.b + self.c + [self.c0]:
            buf.close()

    def reference_rows(self, alpha: float, beta: float):
        """(rows, float64 reference of those rows)."""
        m, n, k = self.m, self.n, self.k
        if 2 * m * n * k <= FULL_REFERENCE_MAX_FLOPS or m <= SAMPLE_ROWS:
            rows = np.arange(m)
        else:
            rows = np.sort(np.random.default_rng(m * 7 + n).choice(m, SAMPLE_ROWS, replace=False))
        ref = alpha * (self.host_a[rows].astype(np.float64) @ self.host_b.astype(np.float64))
        if beta != 0.0:
            ref += beta * self.host_c0[rows].astype(np.float64)
        return rows, ref


def check_and_time(launch: Callable[[int, int], None], work: GemmWorkload, alpha: float, beta: float,
                   repeat: int = 20, warmup: int = 3, check: bool = True) -> Result:
    """launch(set_index, stream) runs C[set] = alpha A[set] B[set] + beta C[set]."""
    m, n, k = work.m, work.n, work.k
    res = Result(m, n, k, alpha, beta)
    s = int(work.stream)
    nbytes = work.host_c0.nbytes
    if check:
        if beta != 0.0:
            driver.copy_device(work.c[0].ptr, work.c0.ptr, nbytes, s)
        else:
            driver.fill_u32(work.c[0].ptr, driver.NAN_BITS, m * n, s)
        launch(0, s)
        work.stream.synchronize()
        out = np.empty((m, n), dtype=np.float32)
        work.c[0].download(out)
        res.unwritten = int(np.isnan(out).sum())
        rows, ref = work.reference_rows(alpha, beta)
        got = out[rows].astype(np.float64)
        denom = np.linalg.norm(ref)
        diff = np.linalg.norm(np.nan_to_num(got - ref, nan=np.inf))
        res.rel_err = float(diff / denom) if denom else float(diff)
        res.err_rows = "all rows" if len(rows) == m else f"{len(rows)} sampled rows"
        res.ok = res.unwritten == 0 and res.rel_err <= 1e-5 * max(1.0, math.sqrt(k / 8192) * 1.0)
    if repeat:
        if beta != 0.0:
            for i in range(work.sets):
                driver.copy_device(work.c[i].ptr, work.c0.ptr, nbytes, s)
        timer = driver.EventTimer()
        for i in range(warmup):
            launch(i % work.sets, s)
        times = [timer.time(lambda i=i: launch(i % work.sets, s), s) for i in range(repeat)]
        res.ms_all = [round(t, 5) for t in times]
        res.ms = float(np.median(times))
        res.tflops = 2.0 * m * n * k / (res.ms * 1e-3) / 1e12
    return res


def kernel_launcher(kernel, work: GemmWorkload, alpha: float, beta: float):
    m, n, k = work.m, work.n, work.k
    grid = kernel.source.geometry.grid(m, n)
    packed = [kernel.pack((m, n, k, alpha, work.a[i].ptr, k, work.b[i].ptr, n, beta, work.c[i].ptr, n))
              for i in range(work.sets)]

    def launch(i, stream):
        kernel.launch(grid, (), stream, packed=packed[i])
    return launch


def cublas_launcher(blas, work: GemmWorkload, alpha: float, beta: float):
    m, n, k = work.m, work.n, work.k

    def launch(i, stream):
        blas.sgemm(m, n, k, alpha, work.a[i].ptr, k, work.b[i].ptr, n, beta, work.c[i].ptr, n)
    return launch


def measure_config(cfg, work: GemmWorkload, alpha=1.0, beta=0.0, repeat=20, arch=None, check=True):
    """(Result, artifact) for one config on a prepared workload."""
    arch = arch or driver.device().arch
    art = compile_config(cfg, arch)
    kernel = driver.load(art)
    return check_and_time(kernel_launcher(kernel, work, alpha, beta), work, alpha, beta, repeat,
                          check=check), art


def measure_cublas(work: GemmWorkload, alpha=1.0, beta=0.0, repeat=20, check=True):
    from .cublas import shared
    blas = shared(int(work.stream.handle))
    return check_and_time(cublas_launcher(blas, work, alpha, beta), work, alpha, beta, repeat,
                          check=check), blas


# ---- SGEMV: memory-bound, measured in bytes moved ------------------------------------
class GemvWorkload:
    """Rotating sets of random A (M x N), x (N); y poisoned / reset per check."""

    def __init__(self, m: int, n: int, seed: Optional[int] = None, sets: Optional[int] = None):
        self.m, self.n = m, n
        rng = np.random.default_rng(seed)
        self.sets = sets or _rotation(4 * (m * n + n + m))
        self.host_a = rng.standard_normal((m, n), dtype=np.float32)
        self.host_x = rng.standard_normal(n, dtype=np.float32)
        self.host_y0 = rng.standard_normal(m, dtype=np.float32)
        self.a = [driver.to_device(self.host_a) for _ in range(self.sets)]
        self.x = [driver.to_device(self.host_x) for _ in range(self.sets)]
        self.y0 = driver.to_device(self.host_y0)
        self.y = [driver.DeviceBuffer(self.host_y0.nbytes) for _ in range(self.sets)]
        self.stream = driver.Stream()

    def close(self):
        for buf in self.a + self.x + self.y + [self.y0]:
            buf.close()

    def bytes_moved(self, beta: float) -> int:
        """A and x read once, y written (and read when beta != 0)."""
        return 4 * (self.m * self.n + self.n + self.m * (2 if beta != 0.0 else 1))


def check_and_time_gemv(launch, work: GemvWorkload, alpha: float, beta: float, repeat: int = 50,
                        warmup: int = 5, check: bool = True) -> dict:
    m, n = work.m, work.n
    s = int(work.stream)
    out = {"m": m, "n": n, "alpha": alpha, "beta": beta}
    if check:
        if beta != 0.0:
            driver.copy_device(work.y[0].ptr, work.y0.ptr, 4 * m, s)
        else:
            driver.fill_u32(work.y[0].ptr, driver.NAN_BITS, m, s)
        launch(0, s)
        work.stream.synchronize()
        y = np.empty(m, dtype=np.float32)
        work.y[0].download(y)
        ref = alpha * (work.host_a.astype(np.float64) @ work.host_x.astype(np.float64))
        if beta != 0.0:
            ref += beta * work.host_y0.astype(np.float64)
        out["unwritten"] = int(np.isnan(y).sum())
        denom = np.linalg.norm(ref)
        diff = np.linalg.norm(np.nan_to_num(y.astype(np.float64) - ref, nan=np.inf))
        out["rel_err"] = float(diff / denom) if denom else float(diff)
        out["ok"] = out["unwritten"] == 0 and out["rel_err"] <= 1e-5
    if repeat:
        if beta != 0.0:
            for i in range(work.sets):
                driver.copy_device(work.y[i].ptr, work.y0.ptr, 4 * m, s)
        timer = driver.EventTimer()
        for i in range(warmup):
            launch(i % work.sets, s)
        times = [timer.time(lambda i=i: launch(i % work.sets, s), s) for i in range(repeat)]
        out["ms"] = float(np.median(times))
        out["us"] = out["ms"] * 1e3
        out["gbps"] = work.bytes_moved(beta) / (out["ms"] * 1e-3) / 1e9
    return out


def gemv_kernel_launcher(kernel, work: GemvWorkload, alpha: float, beta: float):
    m, n = work.m, work.n
    grid = kernel.source.geometry.grid(m, n)
    packed = [kernel.pack((m, n, alpha, work.a[i].ptr, n, work.x[i].ptr, beta, work.y[i].ptr))
              for i in range(work.sets)]
    return lambda i, stream: kernel.launch(grid, (), stream, packed=packed[i])


def gemv_cublas_launcher(blas, work: GemvWorkload, alpha: float, beta: float):
    m, n = work.m, work.n
    return lambda i, stream: blas.sgemv(m, n, alpha, work.a[i].ptr, n, work.x[i].ptr, beta, work.y[i].ptr)
