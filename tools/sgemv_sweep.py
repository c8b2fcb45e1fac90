"""The SGEMV suite against cuBLAS: `python3 -m regtile.tools.sgemv_sweep [--out FILE] [--quick]`.

SUITE: 20 row-major matrices (rows in {1, 2, 3, 7, 32, 300, 4096, 16384, 1M}, columns in
{1, 3, 16, 77, 128, 4096, 50000, 1M}, 1 KB to 3.3 GB), each in both orientations (op N:
y = A x; op T: y = A^T x, the m = 1 GEMM x^T B): 40 shapes.  EXTRA: the decode step of
issue 20 (1x7680x2560 GEMM = op T on 2560 x 7680).

Method (one process, one stream): random A, x on the GPU (torch); each shape checked once
against a float64 reference with y poisoned with NaN (through regtile.sgemv itself); then
`rounds` interleaved rounds, each one CUDA graph of BATCH back-to-back GEMVs by regtile (the
launches of the cached plan that regtile.sgemv makes: kernel, and reduce kernel when split)
and one of cublasSgemv (runtime/cublas.py's library, pedantic FP32 math), each timed between
CUDA events, over rotating buffer sets so small shapes are not timed from a warm L2 alone;
per-GEMV time = median over rounds of graph time / BATCH.  Graphs, because a Python launch
costs more host time than a small GEMV takes on the GPU (measured: 15 us a launch for an
empty kernel through cuda-bindings, 10-13 us a cuBLAS call through ctypes): without them a
small shape times the host.  Also measured: the launch floor (an empty kernel in the same
graphs, and one launch between two events: launch to completion) and the device-to-device
copy bandwidth (1 GiB torch copy, bytes read plus written).  Writes docs/data/sgemv-sweep.json: {device, commit, date, floor, copy_GBps,
rows: [{m, n, op, regtile_us, cublas_us, x_cublas, GBps, pct_copy, kernel, splits, rel_err}]}.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import statistics
import sys
import time
from pathlib import Path

from .report import commit

_PAIRS = [(2, 128), (1, 4096), (3, 1 << 20), (2, 1 << 20), (7, 50000), (32, 4096), (32, 1 << 20),
          (300, 50000), (300, 1 << 20), (4096, 4096), (4096, 77), (16384, 16), (16384, 128), (16384, 4096),
          (16384, 50000), (1 << 20, 1), (1 << 20, 3), (1 << 20, 16), (1 << 20, 77), (1 << 20, 128)]
SUITE = [(m, n, op) for (m, n) in _PAIRS for op in ("N", "T")]
# the m = 1 GEMMs of issue 20 (x @ W, W stored k x n: op T on W): 1x7680x2560, 1x768x768,
# 1x2048x2048, 1x6144x2048
EXTRA = [(2560, 7680, "T")]
DECODE = [(768, 768, "T"), (2048, 2048, "T"), (2048, 6144, "T")]
BATCH = 20


class _Timer:
    def __init__(self, torch, stream):
        self.torch, self.stream = torch, stream
        self.a = torch.cuda.Event(enable_timing=True)
        self.b = torch.cuda.Event(enable_timing=True)

    def us(self, fn, count: int) -> float:
        self.a.record(self.stream)
        for i in range(count):
            fn(i)
        self.b.record(self.stream)
        self.b.synchronize()
        return self.a.elapsed_time(self.b) * 1e3 / count

    def graph(self, fn, count: int):
        """A CUDA graph of fn(0) ... fn(count - 1), captured on the stream; returns a callable
        that times one replay, per GEMV."""
        from ..runtime import driver
        cu = driver._cu()
        s = self.stream.cuda_stream
        driver.check(cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED),
                     "cuStreamBeginCapture")
        try:
            for i in range(count):
                fn(i)
        finally:
            g = driver.check(cu.cuStreamEndCapture(s), "cuStreamEndCapture")
        ge = driver.check(cu.cuGraphInstantiate(g, 0), "cuGraphInstantiate")
        keep = (g, ge)

        def replay() -> float:
            _ = keep
            return self.us(lambda i: driver.check(cu.cuGraphLaunch(ge, s), "cuGraphLaunch"), 1) / count
        return replay


def _empty_kernel():
    from ..codegen.kernel import KernelSource, LaunchGeometry
    from ..runtime import driver
    from ..runtime.compiler import compile_source
    src = KernelSource(name="regtile_empty", language="cuda", text='extern "C" __global__ void regtile_empty() {}',
                       geometry=LaunchGeometry(block=(32, 1, 1), tile_m=1, tile_n=1, dynamic_smem_bytes=0),
                       params=())
    return driver.load(compile_source(src, driver.device().arch))


def _probes():
    """Alternatives timed beside the shape rule's choice with --probe (label: config, splits;
    splits None: the rule's split for that config), to show what the rule gave up.  Probes of
    earlier runs that a later one replaced are in docs/sgemv.md and the dated sweep JSONs."""
    from ..codegen.sgemv_config import SgemvConfig as N, SgemvTConfig as T
    f = dict(fused_reduce=True)
    share = dict(vec=4, warps_per_block=4, warps_per_row=4, share_x=True)
    w = dict(warp_reduce=True)  # session 3 run 4: op T without a split, strips alone filling the SMs
    return {
        (32, 4096, "T"): [("t16x16u2", T(16, 16, 4, 2), 1), ("t8x32u1", T(8, 32, 4, 1), 1),
                          ("wr s32 t8x32u1", T(8, 32, 4, 1, **w), 1), ("wr s16 t4x32u1", T(4, 32, 4, 1, **w), 1),
                          ("wr s32 t8x8u4", T(8, 8, 4, 4, **w), 1), ("wr s16 t4x16u2", T(4, 16, 4, 2, **w), 1)],
        (4096, 4096, "T"): [("wr s32 t8x32u8", T(8, 32, 4, 8, **w), 1), ("wr s32 t8x64u8", T(8, 64, 4, 8, **w), 1),
                            ("wr s32 t8x128u4", T(8, 128, 4, 4, **w), 1), ("wr s16 t4x64u8", T(4, 64, 4, 8, **w), 1),
                            ("wr s16 t4x128u4", T(4, 128, 4, 4, **w), 1), ("wr s16 t4x128u8", T(4, 128, 4, 8, **w), 1),
                            ("wr s32 t8x32u8, rule's split", T(8, 32, 4, 8, **w), None)],
        (2560, 7680, "T"): [("wr s64 t16x32u8", T(16, 32, 4, 8, **w), 1), ("wr s64 t16x64u4", T(16, 64, 4, 4, **w), 1),
                            ("wr s32 t8x32u8", T(8, 32, 4, 8, **w), 1), ("wr s32 t8x64u4", T(8, 64, 4, 4, **w), 1),
                            ("wr s32 t8x64u8", T(8, 64, 4, 8, **w), 1), ("wr s16 t4x64u8", T(4, 64, 4, 8, **w), 1)],
        (2048, 6144, "T"): [("wr s64 t16x32u8", T(16, 32, 4, 8, **w), 1), ("wr s32 t8x32u8", T(8, 32, 4, 8, **w), 1),
                            ("wr s32 t8x64u8", T(8, 64, 4, 8, **w), 1), ("wr s32 t8x64u4", T(8, 64, 4, 4, **w), 1),
                            ("wr s16 t4x64u8", T(4, 64, 4, 8, **w), 1), ("wr s16 t4x128u4", T(4, 128, 4, 4, **w), 1)],
        (2048, 2048, "T"): [("wr s16 t4x64u8", T(4, 64, 4, 8, **w), 1), ("wr s16 t4x128u4", T(4, 128, 4, 4, **w), 1),
                            ("wr s16 t4x128u8", T(4, 128, 4, 8, **w), 1), ("wr s32 t8x64u8", T(8, 64, 4, 8, **w), 1),
                            ("wr s32 t8x128u4", T(8, 128, 4, 4, **w), 1), ("wr s16 t4x64u8, 2 splits", T(4, 64, 4, 8, **w), 2)],
        (300, 50000, "T"): [("wr s32 t8x32u4", T(8, 32, 4, 4, **w), 1), ("wr s64 t16x16u4", T(16, 16, 4, 4, **w), 1),
                            ("wr s64 t16x32u4", T(16, 32, 4, 4, **w), 1), ("wr s32 t8x16u8", T(8, 16, 4, 8, **w), 1),
                            ("wr s64 t16x16u8", T(16, 16, 4, 8, **w), 1)],
        (16384, 4096, "T"): [("wr s32 t8x64u8", T(8, 64, 4, 8, **w), 1), ("wr s32 t8x128u4", T(8, 128, 4, 4, **w), 1)],
        (768, 768, "T"): [("wr s16 t4x64u4", T(4, 64, 4, 4, **w), 1), ("wr s16 t4x32u8", T(4, 32, 4, 8, **w), 1),
                          ("wr s16 t4x128u2", T(4, 128, 4, 2, **w), 1)],
        (300, 1 << 20, "N"): [("7 splits two launches (7550ec7)", N(unroll=4, row_groups=2, **share), 7)],
        (1 << 20, 16, "T"): [("one launch", T(4, 64, 4, 4, **f), None)]
        # session 5 (not yet run): 89.2% of copy at c0b11f3 (t4x64 u8, 264 splits); more or fewer
        # blocks, more rows in flight a block, staged rows (1Mx77 T's 94.3%)
        + [(f"{s} splits", None, s) for s in (132, 396, 528)]
        + [("t4x128 u4", T(4, 128, 4, 4), None), ("t4x128 u8", T(4, 128, 4, 8), None),
           ("t4x32 u8", T(4, 32, 4, 8), None), ("staged 64 rows u8", T(4, 64, 4, 8, stage_rows=64), None),
           ("staged 128 rows u8", T(4, 64, 4, 8, stage_rows=128), None)],
        (1 << 20, 77, "T"): [("staged 64 rows u8", T(32, 8, 4, 8, stage_rows=64), None),
                             ("staged 32 rows u4", T(32, 8, 4, 4, stage_rows=32), None),
                             ("staged 64 rows u8, 2 waves", T(32, 8, 4, 8, stage_rows=64), 1024),
                             ("staged 64 rows u8 t32x16", T(32, 16, 4, 8, stage_rows=64), None)],
        (4096, 77, "T"): [("staged 64 rows u8", T(32, 8, 4, 8, stage_rows=64), None),
                          ("staged 32 rows u4", T(32, 8, 4, 4, stage_rows=32), None)],
        (16384, 50000, "N"): [("u4 (7550ec7)", N(rows_per_warp=1, vec=4, warps_per_block=4, unroll=4), None)],
        (16384, 4096, "N"): [("u4 (7550ec7)", N(rows_per_warp=1, vec=4, warps_per_block=4, unroll=4), None)],
        (7, 50000, "N"): [("12 splits (7550ec7)", None, 12), ("one launch", N(vec=4, warps_per_block=4, unroll=4,
                                                                              warps_per_row=4, **f), None),
                          ("cluster 8, 4 warps a row", N(vec=4, warps_per_block=4, unroll=4, warps_per_row=4,
                                                         cluster=8), None),
                          ("cluster 8, 16 warps a row u2", N(vec=4, warps_per_block=16, unroll=2, warps_per_row=16,
                                                             cluster=8), None),
                          ("cluster 8, 8 warps a row", N(vec=4, warps_per_block=8, unroll=4, warps_per_row=8,
                                                         cluster=8), None),
                          ("a block of 32 warps a row, no split", N(vec=4, warps_per_block=32, unroll=4,
                                                                    warps_per_row=32), 1),
                          ("a block of 16 warps a row, no split", N(vec=4, warps_per_block=16, unroll=2,
                                                                    warps_per_row=16), 1)]
        # session 4: a split's columns in one step of 16 (or 8) warps, then the reduce kernel
        + [(f"{w} warps a row u{u}, {s} splits", N(vec=4, warps_per_block=w, unroll=u, warps_per_row=w), s)
           for w, u, s in ((16, 2, 12), (16, 2, 13), (16, 2, 16), (16, 1, 24), (8, 4, 12), (8, 2, 24))],
        (16384, 128, "T"): [("132 splits", None, 132)],
        # session 4: the small op N shapes more than 1 us above the launch floor (063da67: 1x4096
        # 2.03 us, 32x4096 2.23, 4096x77 2.20, floor 0.95): more warps a row, fewer loads in a chain
        (1, 4096, "N"): [(f"{w} warps a row u{u}", N(vec=4, warps_per_block=w, unroll=u, warps_per_row=w), 1)
                         for w, u in ((8, 4), (16, 2), (32, 1), (8, 2))],
        (32, 4096, "N"): [(f"{w} warps a row u{u}", N(vec=4, warps_per_block=w, unroll=u, warps_per_row=w), 1)
                          for w, u in ((8, 4), (16, 2), (8, 2), (4, 2))],
        (4096, 77, "N"): [("2 rows a warp u2", N(rows_per_warp=2, vec=4, warps_per_block=4, unroll=2, ragged_rows=True), 1),
                          ("2 rows a warp u2, 8 warps", N(rows_per_warp=2, vec=4, warps_per_block=8, unroll=2,
                                                          ragged_rows=True), 1),
                          ("8 warps", N(vec=4, warps_per_block=8, unroll=3, ragged_rows=True), 1),
                          ("4 rows a warp, scalars", N(rows_per_warp=4, vec=1, warps_per_block=4, unroll=4,
                                                       ragged_rows=True), 1)],
    }


def _auto_probes(m: int, n: int, op: str, splits: int, cfg=None):
    """Generic alternatives (--probe): other split counts around the rule's, the same split
    with the reduce kernel (two launches) instead of the one-launch finish, and for op T twice
    the rows in flight (unroll 8) at the rule's split for that config.  A cluster launch (the
    plan's config `cfg`, sm_90): two launches at the split the c367c04 rule gave (its config
    without the cluster, the split from its occupancy) and at the cluster's, and half the cluster."""
    from ..codegen.sgemv_config import choose_gemv
    if getattr(cfg, "cluster", 0):
        plain = cfg.replace(cluster=0)
        out = [("two launches, the c367c04 split", plain, None), ("two launches, same split", plain, cfg.cluster)]
        if cfg.cluster >= 4:
            out.append((f"cluster {cfg.cluster // 2}", cfg.replace(cluster=cfg.cluster // 2), None))
        if cfg.unroll == 8:
            out.append(("u4 cluster", cfg.replace(unroll=4), None))
        return out
    cfg = choose_gemv(m, n, op)[0]
    out = []
    if splits > 1:
        for s in sorted({max(1, splits // 2), min(1024, splits * 2)} - {splits}):
            out.append((f"{s} splits", None, s))
        if getattr(cfg, "fused_reduce", False):
            out.append(("two launches", cfg.replace(fused_reduce=False), splits))
    if op == "T" and 2 <= splits <= 16:  # the sm_90 cluster form (not the rule's: docs/sgemv.md)
        c = 1 << (min(splits, 8).bit_length() - 1)
        out.append((f"cluster {c}", cfg.replace(cluster=c), None))
    if op == "T" and cfg.unroll == 4 and m >= 16 * cfg.threads_y:
        out.append(("u8", cfg.replace(unroll=8), None))
    if op == "T" and cfg.unroll == 8:
        out.append(("u4", cfg.replace(unroll=4), None))
    return out


def _configs(shapes, probe, arch: str = "sm_90"):
    """The kernels a run may load: the rule's and, probing, the alternatives and the cluster
    forms on sm_90 (the split, hence the cluster, is known only from the compiled kernel's
    occupancy: all three sizes)."""
    from ..codegen.hardware import arch_number
    from ..codegen.sgemv_config import SgemvTConfig, choose_gemv
    out = []
    for (m, n, op) in shapes:
        cfg, splits = choose_gemv(m, n, op)
        out.append(cfg)
        if _probing(probe, m, n, op):
            clusters = []
            if isinstance(cfg, SgemvTConfig) and splits > 1 and arch_number(arch) >= 90:
                clusters = [cfg.replace(cluster=c) for c in (2, 4, 8)]
            out += clusters
            out += [c for _, c, _ in _probes().get((m, n, op), []) + _auto_probes(m, n, op, max(2, splits)) if c]
            for cc in clusters:
                out += [c for _, c, _ in _auto_probes(m, n, op, cc.cluster, cc) if c]
    return list(dict.fromkeys(out))


def _probing(probe, m: int, n: int, op: str) -> bool:
    """probe: True (every shape), False, or a set of (m, n, op) (--probe-shapes)."""
    return probe is True or (bool(probe) and (m, n, op) in probe)


def precompile(shapes, probe: bool, jobs: int) -> None:
    """Every kernel the run loads, compiled into the cache by `jobs` processes
    (runtime/compiler.compile_many; the sweep itself compiles one at a time)."""
    from ..runtime import driver
    from ..runtime.compiler import compile_many
    arch = driver.device().arch
    cfgs = _configs(shapes, probe, arch)
    t0 = time.perf_counter()
    errs = [e for e in compile_many([(c, "cuda") for c in cfgs], arch, jobs) if e]
    print(f"precompiled {len(cfgs)} kernels in {time.perf_counter() - t0:.1f} s"
          + (f"; {len(errs)} failed, first: {errs[0]}" if errs else ""), file=sys.stderr, flush=True)


def measure(shapes, rounds: int = 11, progress=print, probe=False, budget_s: float = 0.0) -> dict:
    """budget_s > 0: no new shape after that many seconds (the rows so far are still written)."""
    start = time.perf_counter()
    import torch
    from ..runtime import cublas, driver
    from ..runtime.bench import rotation_sets
    from ..runtime.gemv import plan_for, sgemv
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = driver.device()
    l2 = dev.l2_bytes
    stream = torch.cuda.Stream()  # a capturable stream (not the legacy default one)
    torch.cuda.set_stream(stream)
    s = int(stream.cuda_stream)
    blas = cublas.Cublas(s)
    timer = _Timer(torch, stream)

    # launch floor and copy bandwidth
    empty = _empty_kernel()
    for _ in range(200):
        empty.launch((1, 1, 1), (), s)
    g_empty = timer.graph(lambda i: empty.launch((1, 1, 1), (), s), BATCH)
    for _ in range(20):
        g_empty()
    floor_batch = statistics.median(g_empty() for _ in range(21))
    floor_one = statistics.median(timer.us(lambda i: empty.launch((1, 1, 1), (), s), 1) for _ in range(51))
    floor_host = statistics.median(timer.us(lambda i: empty.launch((1, 1, 1), (), s), BATCH) for _ in range(11))
    src = torch.empty(1 << 28, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    copy_us = statistics.median(timer.us(lambda i: dst.copy_(src), 5) for _ in range(5))
    copy_gbps = 2 * src.numel() * 4 / (copy_us * 1e-6) / 1e9
    del src, dst
    progress(f"launch floor {floor_batch:.2f} us a kernel in a graph, {floor_one:.2f} us one launch, "
             f"{floor_host:.2f} us a Python launch back to back; "
             f"copy {copy_gbps:.0f} GB/s")

    rows = []
    for (m, n, op) in shapes:
        if budget_s and time.perf_counter() - start > budget_s:
            progress(f"budget of {budget_s:.0f} s reached: {m}x{n} {op} and the shapes after it not measured")
            break
        xlen, ylen = (n, m) if op == "N" else (m, n)
        nbytes = 4 * (m * n + xlen + ylen)
        sets = rotation_sets(nbytes, l2, most=16)
        gen = torch.Generator(device="cuda").manual_seed(m * 31 + n)
        A = [torch.randn(m, n, device="cuda", generator=gen) for _ in range(sets)]
        X = [torch.randn(xlen, device="cuda", generator=gen) for _ in range(sets)]
        Y = [torch.full((ylen,), float("nan"), device="cuda") for _ in range(sets)]
        trans = op == "T"
        sgemv(A[0], X[0], Y[0], trans=trans, stream=s)
        ref = (A[0].double().T if trans else A[0].double()) @ X[0].double()
        y64 = Y[0].double()
        unwritten = int(torch.isnan(y64).sum())
        rel = float(((y64 - ref).norm() / max(ref.norm().item(), 1e-30)).item())
        del ref, y64
        plan = plan_for(m, n, op)
        t0 = time.perf_counter()
        for _ in range(20):
            sgemv(A[0], X[0], Y[0], trans=trans, stream=s)
        call_us = (time.perf_counter() - t0) / 20 * 1e6  # host time of the whole library call
        stream.synchronize()
        alts = []
        wanted = _probes().get((m, n, op), []) + _auto_probes(m, n, op, plan.splits, plan.config)
        for label, cfg, sp in (wanted if _probing(probe, m, n, op) else []):
            try:
                alts.append((label, plan_for(m, n, op, config=cfg, splits=sp)))
            except Exception as e:  # a probe that does not build is reported, not fatal
                progress(f"  probe {label} skipped: {type(e).__name__}: {e}")
        ap, xp, yp = [t.data_ptr() for t in A], [t.data_ptr() for t in X], [t.data_ptr() for t in Y]
        # regtile.sgemv's device path without the Python argument checks: the cached plan
        def launcher(p):
            def run(i):
                k = i % sets
                p.launch(1.0, ap[k], n, xp[k], 1, 0.0, yp[k], 1, s)
            return run
        ours = launcher(plan)
        one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
        cop = cublas.CUBLAS_OP_N if trans else cublas.CUBLAS_OP_T

        def theirs(i):
            k = i % sets
            # row-major A is column-major A^T (n x m, ld n): op N gives A^T x, op T gives A x
            blas._ok(blas.lib.cublasSgemv_v2(blas.handle, cop, n, m, ctypes.byref(one), ctypes.c_void_p(ap[k]), n,
                                             ctypes.c_void_p(xp[k]), 1, ctypes.byref(zero), ctypes.c_void_p(yp[k]),
                                             1), "cublasSgemv")
        # cuBLAS result check too (same buffers)
        for fn in (ours, theirs):  # prime the plan's workspace and cuBLAS before capture
            fn(0)
        stream.synchronize()
        for _, p in alts:
            launcher(p)(0)
        stream.synchronize()
        g_ours, g_theirs = timer.graph(ours, BATCH), timer.graph(theirs, BATCH)
        g_alts = [timer.graph(launcher(p), BATCH) for _, p in alts]
        for g in [g_ours, g_theirs] + g_alts:  # warm up >= 20 ms each
            t = 0.0
            while t < 20e3:
                t += g() * BATCH
        r, c, a = [], [], [[] for _ in alts]
        for _ in range(rounds if nbytes < 1 << 30 else max(3, rounds // 3)):
            r.append(g_ours())
            c.append(g_theirs())
            for lst, g in zip(a, g_alts):
                lst.append(g())
        del g_ours, g_theirs, g_alts
        rus, cus = statistics.median(r), statistics.median(c)
        row = {"m": m, "n": n, "op": op, "regtile_us": round(rus, 2), "cublas_us": round(cus, 2),
               "x_cublas": round(cus / rus, 3), "GBps": round(nbytes / (rus * 1e-6) / 1e9, 1),
               "cublas_GBps": round(nbytes / (cus * 1e-6) / 1e9, 1),
               "pct_copy": round(100 * nbytes / (rus * 1e-6) / 1e9 / copy_gbps, 1), "MB": round(nbytes / 1e6, 3),
               "kernel": plan.kernel.source.name, "splits": plan.splits, "cluster": plan.cluster, "rel_err": rel, "unwritten": unwritten,
               "ok": unwritten == 0 and rel <= 1e-5, "call_us": round(call_us, 1)}
        if alts:
            row["alternatives"] = {f"{label} ({p.kernel.source.name}, {p.splits} splits)": round(statistics.median(v), 2)
                                   for (label, p), v in zip(alts, a)}
            progress(f"  alternatives: {row['alternatives']}")
        rows.append(row)
        progress(f"{m}x{n} {op}: regtile {rus:.2f} us cuBLAS {cus:.2f} us x{cus / rus:.3f} "
                 f"{row['GBps']:.0f} GB/s ({row['pct_copy']:.0f}% copy) splits {plan.splits} err {rel:.1e}")
        del A, X, Y
        torch.cuda.empty_cache()
    blas.close()
    return {"device": dev.name, "driver": dev.driver_version, "commit": commit(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cublas": blas.describe(), "batch": BATCH, "rounds": rounds,
            "floor_us_back_to_back": round(floor_batch, 2), "floor_us_one_launch": round(floor_one, 2),
            "python_launch_us": round(floor_host, 2), "timing": "CUDA graphs of %d GEMVs, median of rounds" % BATCH,
            "copy_GBps": round(copy_gbps, 1), "rows": rows}


def table(data: dict) -> str:
    lines = [f"Device {data['device']} ({data['driver']}), commit {data['commit']}, {data['date']}; {data['cublas']}.",
             f"Launch floor (empty kernel): {data['floor_us_back_to_back']} us a kernel in a graph of {data['batch']}, "
             f"{data['floor_us_one_launch']} us one launch between events (launch to completion), "
             f"{data['python_launch_us']} us a Python launch back to back. Copy bandwidth {data['copy_GBps']} GB/s.",
             "", "| M x N | op | MB | regtile us | cuBLAS us | x cuBLAS | GB/s | % copy | splits | rel. err | call us |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in data["rows"]:
        lines.append(f"| {r['m']}x{r['n']} | {r['op']} | {r['MB']:.3g} | {r['regtile_us']:.2f} | {r['cublas_us']:.2f} | "
                     f"{r['x_cublas']:.3f} | {r['GBps']:.0f} | {r['pct_copy']:.1f} | {r['splits']} | "
                     f"{r['rel_err']:.1e}{'' if r['ok'] else ' WRONG'} | {r['call_us']:.0f} |")
    return "\n".join(lines)


def _names(text: str) -> set:
    return {w.strip().upper() for w in text.split(",") if w.strip()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.tools.sgemv_sweep", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="docs/data/sgemv-sweep.json", help="JSON file to write")
    p.add_argument("--rounds", type=int, default=11)
    p.add_argument("--quick", action="store_true", help="shapes below 64 MB only, 5 rounds")
    p.add_argument("--no-extra", action="store_true", help="without the decode shapes of issue 20")
    p.add_argument("--probe", action="store_true", help="also time a few alternatives to the rule's choice")
    p.add_argument("--probe-shapes", default="", help="--probe for these shapes only, e.g. 4096x4096T")
    p.add_argument("--budget-s", type=float, default=0.0, help="measure no new shape after this many seconds")
    p.add_argument("--shapes", default="", help="only these, e.g. 7x50000N,4096x4096T")
    p.add_argument("--precompile", type=int, default=0, metavar="JOBS",
                   help="first compile every kernel the run will load, JOBS processes at once (into the cache)")
    args = p.parse_args(argv)
    shapes = SUITE + ([] if args.no_extra else EXTRA + DECODE)
    if args.shapes:
        want = _names(args.shapes)
        shapes = [sh for sh in shapes if f"{sh[0]}X{sh[1]}{sh[2]}" in want]
    if args.quick:
        shapes = [s for s in shapes if 4 * s[0] * s[1] < 64 << 20]
    probe = args.probe or {sh for sh in shapes if f"{sh[0]}X{sh[1]}{sh[2]}" in _names(args.probe_shapes)}
    if args.precompile:
        precompile(shapes, probe, args.precompile)
    data = measure(shapes, 5 if args.quick else args.rounds, progress=lambda t: print(t, file=sys.stderr, flush=True),
                   probe=probe, budget_s=args.budget_s)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(data, indent=1) + "\n")
    print(table(data))
    return 0 if all(r["ok"] for r in data["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
