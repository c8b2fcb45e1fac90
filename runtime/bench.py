"""The measurement method shared by `regtile run`, `bench` and `tune`.

Correctness: fresh random inputs (never zeros) from a seeded generator, C poisoned
with NaN before the checked launch, every element checked written, and the error
||C - ref|| / ||ref|| against a float64 reference over all rows: numpy for small
problems, torch float64 on the GPU for large ones (numpy float64 at 8192^3 takes
too long).  Without a usable torch, large problems are checked over the last
EDGE_ROWS rows (the last block-row of every preset) plus SAMPLE_ROWS random rows
with numpy; `Result.err_rows` says which.

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

from ..errors import RegtileError
from . import driver
from .compiler import compile_config
from .sgemm_launch import SgemmLaunch, workspace_bytes


@dataclass(frozen=True)
class DeviceFigures:
    """What a GPU reaches, measured on it: the ceilings that percentages of peak and of copy are taken
    against.  Keyed by the exact name the driver gives (an H100 PCIe or an H200 NVL has other clocks,
    SMs or memory): a GPU not listed gets no percentages rather than another GPU's."""
    ffma_peak_tflops: float  # FP32 FFMA, register-only chain of independent FFMAs, every SM
    copy_tbps: float  # device-to-device copy of 1 GiB, bytes read plus written
    source: str


MEASURED = {
    "NVIDIA H100 80GB HBM3": DeviceFigures(
        65.2, 2.94, "shared/notes/h100-baseline.md (2026-11-22; FFMA chain of ILP 8 at 1980 MHz)"),
    # the H100's SM at the same 1980 MHz: lab/regbank_calib's conflict-free chain (none_rz) issued an FFMA a cycle
    # a sub-partition (1.008 cycles by clock64, 1.014 by event time: 65.97 TFLOP/s), ptxas's own chain 1.53
    "NVIDIA H200": DeviceFigures(
        66.0, 4.09, "docs/data/session26 (2026-11-28): copy 4092 GB/s (1 GiB) in the sweep of a_f02a225, "
                    "the FFMA peak from lab/regbank_calib in b_7c13fa9"),
}

FULL_REFERENCE_MAX_FLOPS = 2 * 2048**3  # above this: torch on the GPU, else a sample of rows
SAMPLE_ROWS = 256
EDGE_ROWS = 256  # >= the largest preset's bm: the partial last block-row is always checked


def figures(device_name: str) -> Optional[DeviceFigures]:
    """The measured ceilings of the GPU named `device_name` (driver.Device.name), None if unmeasured."""
    return MEASURED.get(device_name)


def peak_tflops(device_name: str) -> Optional[float]:
    f = figures(device_name)
    return f.ffma_peak_tflops if f else None


def pct_of_copy(device_name: str, gbps: float) -> Optional[float]:
    """`gbps` (bytes read plus written) as a percentage of the GPU's measured copy bandwidth, or None."""
    f = figures(device_name)
    return 100 * gbps / (f.copy_tbps * 1e3) if f and gbps else None


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


def rotation_sets(bytes_per_set: int, l2_bytes: int, most: int = 8) -> int:
    """Sets of operand buffers so that a rotation over them spans at least twice an L2 of `l2_bytes` (a set read
    again finds none of itself there), at most `most`.  Every benchmark here and in tools/ takes its rotation
    from this, with its device's own L2."""
    return max(1, min(most, math.ceil(2 * l2_bytes / max(bytes_per_set, 1))))


def _rotation(bytes_per_set: int) -> int:
    return rotation_sets(bytes_per_set, driver.device().l2_bytes)


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
        self._ref: Optional[_Reference] = None  # of the last (alpha, beta) checked
        self._ws: Optional[driver.DeviceBuffer] = None  # split-K partials, grown as kernels need

    def workspace(self, nbytes: int) -> int:
        """Device pointer of a split-K workspace of at least `nbytes` (0 for none),
        shared by every launch on this workload's stream."""
        if nbytes <= 0:
            return 0
        if self._ws is None or self._ws.nbytes < nbytes:
            if self._ws is not None:
                self.stream.synchronize()  # earlier launches may still use it
                self._ws.close()
                self._ws = None
            self._ws = driver.DeviceBuffer(nbytes)
        return self._ws.ptr

    def poison_workspace(self, stream: int) -> None:
        """NaN over the split-K workspace before a checked launch: a partial the kernel
        fails to write reaches C as NaN and counts as unwritten."""
        ws = getattr(self, "_ws", None)
        if ws is not None:
            driver.fill_u32(ws.ptr, driver.NAN_BITS, ws.nbytes // 4, stream)

    def close(self):
        for buf in self.a + self.b + self.c + [self.c0]:
            buf.close()
        if getattr(self, "_ws", None) is not None:
            self._ws.close()
            self._ws = None
        self._ref = None

    def _big(self) -> bool:
        return 2 * self.m * self.n * self.k > FULL_REFERENCE_MAX_FLOPS and self.m > SAMPLE_ROWS + EDGE_ROWS

    def reference_rows(self, alpha: float, beta: float):
        """(rows, numpy float64 reference of those rows): all rows for small problems,
        the last EDGE_ROWS and SAMPLE_ROWS random others for large ones."""
        m = self.m
        if not self._big():
            rows = np.arange(m)
        else:
            rng = np.random.default_rng(m * 7 + self.n)
            edge = np.arange(m - EDGE_ROWS, m)
            rows = np.union1d(rng.choice(m - EDGE_ROWS, SAMPLE_ROWS, replace=False), edge)
        ref = alpha * (self.host_a[rows].astype(np.float64) @ self.host_b.astype(np.float64))
        if beta != 0.0:
            ref += beta * self.host_c0[rows].astype(np.float64)
        return rows, ref

    def relative_error(self, out: np.ndarray, alpha: float, beta: float):
        """(||out - ref|| / ||ref||, what was compared).  A NaN left in a compared
        element makes the error infinite.  The reference is kept for the next config."""
        if self._ref is None or self._ref.key != (alpha, beta):
            self._ref = None  # drop the old one (large on the GPU) before making the next
            self._ref = self._make_reference(alpha, beta)
        ref = self._ref
        if ref.rows is None:
            return _torch_relative_error(ref.values, out), ref.compared
        diff = np.linalg.norm(np.nan_to_num(out[ref.rows].astype(np.float64) - ref.values, nan=np.inf))
        denom = np.linalg.norm(ref.values)
        return (float(diff / denom) if denom else float(diff)), ref.compared

    def _make_reference(self, alpha: float, beta: float) -> "_Reference":
        if self._big():
            torch, why_not = _torch_on_gpu()
            if torch is not None:
                return _Reference((alpha, beta), _torch_reference(torch, self, alpha, beta), None,
                                  "all rows (float64 on the GPU, torch)")
        rows, values = self.reference_rows(alpha, beta)
        if len(rows) == self.m:
            return _Reference((alpha, beta), values, rows, "all rows")
        return _Reference((alpha, beta), values, rows,
                          f"{len(rows)} rows (the last {EDGE_ROWS} and {len(rows) - EDGE_ROWS} random; "
                          f"all rows need torch on the GPU: {why_not})")


@dataclass
class _Reference:
    """A float64 reference of one (alpha, beta): a torch tensor of all of C on the GPU
    (rows None), or a numpy array of the listed rows."""
    key: tuple
    values: object
    rows: Optional[np.ndarray]
    compared: str


def _torch_on_gpu():
    """(torch, "") when torch is installed with a usable GPU, else (None, why not).
    Imported only here, for large references."""
    try:
        import torch
    except Exception as e:  # ImportError, or a torch build whose libraries do not load
        return None, f"torch not importable ({type(e).__name__})"
    try:
        if not torch.cuda.is_available():
            return None, "torch sees no GPU"
    except Exception as e:
        return None, f"torch.cuda failed ({type(e).__name__}: {e})"
    return torch, ""


def _torch_reference(torch, work: "GemmWorkload", alpha: float, beta: float):
    """alpha A B + beta C0 in float64 on device 0 (the device the runtime uses; torch
    shares its primary context).  Inputs go up as float32 and widen on the GPU."""
    dev = torch.device("cuda", driver.device().ordinal)
    a = torch.from_numpy(work.host_a).to(device=dev).double()
    b = torch.from_numpy(work.host_b).to(device=dev).double()
    ref = a @ b
    del a, b
    ref.mul_(alpha)
    if beta != 0.0:
        ref.add_(torch.from_numpy(work.host_c0).to(device=dev).double(), alpha=beta)
    return ref


def _torch_relative_error(ref, out: np.ndarray) -> float:
    import torch
    got = torch.from_numpy(out).to(device=ref.device).double()
    got.sub_(ref)
    diff = float(torch.linalg.vector_norm(torch.nan_to_num(got, nan=float("inf"))).item())
    denom = float(torch.linalg.vector_norm(ref).item())
    return diff / denom if denom else diff


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
        work.poison_workspace(s)
        launch(0, s)
        work.stream.synchronize()
        out = np.empty((m, n), dtype=np.float32)
        work.c[0].download(out)
        res.unwritten = int(np.isnan(out).sum())
        res.rel_err, res.err_rows = work.relative_error(out, alpha, beta)
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
    """launch(i, stream): the kernel on buffer set i; a split-K kernel and its reduction
    (runtime/sgemm_launch.py) both, so that they are checked and timed together."""
    m, n, k = work.m, work.n, work.k
    ws = work.workspace(workspace_bytes(kernel, m, n, k))
    launches = [SgemmLaunch(kernel, m, n, k, alpha, work.a[i].ptr, k, work.b[i].ptr, n, beta, work.c[i].ptr, n, ws)
                for i in range(work.sets)]

    def launch(i, stream):
        launches[i](stream)
    return launch


def plan_launcher(plan, work: GemmWorkload, alpha: float, beta: float):
    """launch(i, stream): what regtile.sgemm launches for the shape (a runtime/plans.GemmPlan:
    its kernel choice, stream-K / split-K / edge split, or the GEMV route for m or n == 1)."""
    def launch(i, stream):
        plan.launch(work.a[i].ptr, work.b[i].ptr, work.c[i].ptr, alpha, beta, stream)
    return launch


def cublas_launcher(blas, work: GemmWorkload, alpha: float, beta: float):
    m, n, k = work.m, work.n, work.k

    def launch(i, stream):
        blas.sgemm(m, n, k, alpha, work.a[i].ptr, k, work.b[i].ptr, n, beta, work.c[i].ptr, n)
    return launch


def measure_config(cfg, work: GemmWorkload, alpha=1.0, beta=0.0, repeat=20, arch=None, check=True,
                   backend: str = "cuda"):
    """(Result, artifact) for one config on a prepared workload, built by `backend`."""
    arch = arch or driver.device().arch
    art = compile_config(cfg, arch, backend=backend)
    kernel = driver.load(art)
    return check_and_time(kernel_launcher(kernel, work, alpha, beta), work, alpha, beta, repeat,
                          check=check), art


def measure_cublas(work: GemmWorkload, alpha=1.0, beta=0.0, repeat=20, check=True):
    from .cublas import shared
    blas = shared(int(work.stream.handle))
    return check_and_time(cublas_launcher(blas, work, alpha, beta), work, alpha, beta, repeat,
                          check=check), blas


def interleave_with_cublas(kernels, size: int, rounds: int = 5, repeat: int = 20,
                           progress: Optional[Callable[[str], None]] = None, check: bool = True) -> dict:
    """Kernels against cuBLAS on one size^3 problem, interleaved in time: `rounds` rounds,
    each cuBLAS then every kernel, `repeat` timed launches apiece, so that a drift of the
    machine (clock, neighbours) reaches every ratio alike.  `kernels` maps a name to a loaded
    kernel (driver.load); the first round also checks each against float64 and raises if one
    is wrong (check=False: timing only, for ablations that compute garbage on purpose).  Returns, per name, the ratio cuBLAS ms / kernel ms of every round, its median,
    min and max, and the median TFLOP/s."""
    import statistics
    work = GemmWorkload(size, size, size)
    try:
        ratios = {name: [] for name in kernels}
        tflops = {name: [] for name in kernels}
        for rnd in range(rounds):
            c, _ = measure_cublas(work, repeat=repeat, check=False)
            for name, kernel in kernels.items():
                first = check and rnd == 0
                r = check_and_time(kernel_launcher(kernel, work, 1.0, 0.0), work, 1.0, 0.0, repeat, check=first)
                if first and not r.ok:
                    raise RegtileError(f"{name} is wrong at {size}^3: rel. error {r.rel_err}, {r.unwritten} unwritten")
                ratios[name].append(c.ms / r.ms)
                tflops[name].append(r.tflops)
                if progress:
                    progress(f"{size} round {rnd} {name}: cuBLAS {c.tflops:.2f} kernel {r.tflops:.2f} "
                             f"x{c.ms / r.ms:.4f}")
    finally:
        work.close()
    return {name: {"rounds": [round(x, 4) for x in v], "median": round(statistics.median(v), 4),
                   "min": round(min(v), 4), "max": round(max(v), 4),
                   "median_tflops": round(statistics.median(tflops[name]), 2)} for name, v in ratios.items()}


# ---- SGEMV: memory-bound, measured in bytes moved ------------------------------------
GEMV_BATCH = 20
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
        # Warm up for at least 20 ms of launches, not a count: 10 us kernels after an
        # idle gap may meet the GPU at a low clock (our guess for runs of 9 vs 13 us).
        warm_until = time.perf_counter() + 0.02
        i = 0
        while i < warmup or time.perf_counter() < warm_until:
            launch(i % work.sets, s)
            i += 1
            if i % 50 == 0:
                work.stream.synchronize()
        work.stream.synchronize()
        # SGEMV kernels run for 10-200 us: one launch between two events would time the
        # launch gap too (ncu: 25.5 us of kernel in a 34.7 us event interval at 1Mx16).
        # Each sample is GEMV_BATCH back-to-back launches (rotating buffer sets); the
        # time per launch is the sample over the batch, the median over `repeat` samples.
        def batch(first):
            for j in range(GEMV_BATCH):
                launch((first + j) % work.sets, s)
        samples = max(1, repeat // 5)
        times = [timer.time(lambda i=i: batch(i * GEMV_BATCH), s) / GEMV_BATCH for i in range(samples)]
        out["ms"] = float(np.median(times))
        out["timing"] = f"median of {samples} samples of {GEMV_BATCH} back-to-back launches"
        out["us"] = out["ms"] * 1e3
        out["gbps"] = work.bytes_moved(beta) / (out["ms"] * 1e-3) / 1e9
    return out


def gemv_kernel_launcher(kernel, work: GemvWorkload, alpha: float, beta: float, config):
    """`kernel` (loaded from `config`, an SgemvConfig or SgemvTConfig) on `work`'s sets."""
    from .gemv import launcher_for  # the GEMV family's arguments (strides, split workspace)
    plan = launcher_for(kernel, work.m, work.n, config)
    return lambda i, stream: plan.launch(alpha, work.a[i].ptr, work.n, work.x[i].ptr, 1, beta, work.y[i].ptr, 1,
                                         stream)


def gemv_cublas_launcher(blas, work: GemvWorkload, alpha: float, beta: float):
    m, n = work.m, work.n
    return lambda i, stream: blas.sgemv(m, n, alpha, work.a[i].ptr, n, work.x[i].ptr, beta, work.y[i].ptr)


def interleaved_event_ms(torch, fns: dict, rounds: int, reps) -> dict:
    """Per name of `fns` (callables that enqueue work on torch's current stream), the list of
    `rounds` times in ms per call: each round times every fn in turn, `reps` back-to-back calls
    between two CUDA events (an int, or {name: int}), after three warm-up calls each.  The
    interleaving is what makes two kernels' figures comparable: clocks and neighbours drift
    between rounds, not between the variants of one round."""
    for fn in fns.values():
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            n = reps[name] if isinstance(reps, dict) else reps
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(n):
                fn()
            e1.record()
            e1.synchronize()
            times[name].append(e0.elapsed_time(e1) / n)
    return times
