"""One SGEMM on fixed operands, as launches: the one-pass kernel, or (split-K) the
partial kernel and its reduction, or (stream-K) the whole tiles and the K ranges, in
that order on one stream; with an edge split (codegen/edges.py) that for the tile-aligned
interior, then the edge kernel's launches for the bottom and right strips.

Used by regtile.sgemm (runtime/gemm.py) and by the measurement method (runtime/bench.py),
so `regtile run`, `bench` and `tune` launch and time exactly what the library runs.
Split-K needs a workspace of split_k * M * N floats (codegen/splitk.py), stream-K one for
its partial tiles (codegen/streamk.py; its work list lives in a buffer of the launch);
callers pass its device pointer: bench keeps one per workload, regtile.sgemm's plans one per
stream (runtime/plans.py).
"""
from __future__ import annotations

from functools import cached_property
from typing import List, Optional, Tuple

from ..codegen.edges import EdgePlan, part_offsets, plan_for_source
from ..codegen.emit_fusedk import FUSEDK_PARAMS
from ..codegen.streamk import StreamKPlan, plan_stream_k
from . import driver
from .errors import LaunchError


def stream_k_plan(kernel, m: int, n: int, k: int) -> StreamKPlan:
    """The work list of a stream-K kernel (a LoadedKernel) for M x N x K on this GPU:
    SMs x the kernel's blocks an SM."""
    g = kernel.source.geometry
    per_sm = kernel.blocks_per_sm if kernel.ranges is None else min(kernel.blocks_per_sm, kernel.ranges.blocks_per_sm)
    slots = driver.device().sm_count * max(1, per_sm)
    return plan_stream_k(m, n, k, g.tile_m, g.tile_n, g.tile_k, slots, last_col=g.last_col)


def edge_plan(kernel, m: int, n: int) -> Optional[EdgePlan]:
    """How an edge-split kernel (a LoadedKernel with `edge`) divides M x N; None for others."""
    return plan_for_source(kernel.source, m, n)


def _parts(kernel, m: int, n: int, plan: Optional[EdgePlan] = None) -> List[Tuple[object, int, int, int, int]]:
    """(kernel, row0, col0, rows, cols) of each SGEMM the launch makes, in launch order: the
    first is `kernel`'s own (the interior of an edge split, else all of C).  `plan`:
    edge_plan(kernel, m, n) when the caller has it."""
    geo = getattr(kernel, "source", kernel).geometry
    if geo.last_col:  # C's last column is the kernel's own
        return [(kernel, 0, 0, m, geo.columns(n))]
    plan = plan or edge_plan(kernel, m, n)
    if plan is None or not plan.split:
        return [(kernel, 0, 0, m, n)]
    return [(kernel if p.kernel == "main" else kernel.edge, p.row0, p.col0, p.rows, p.cols) for p in plan.parts]


def describe_plans(kernel, m: int, n: int, k: int) -> dict:
    """How `kernel` divides M x N x K into launches, a line each: "edge_split" (an edge-split
    kernel) and "stream_k" (the plan of the kernel's own part); {} for one plain launch."""
    out = {}
    plan = edge_plan(kernel, m, n)
    if plan is not None:
        out["edge_split"] = plan.describe()
    own, _, _, rows, cols = _parts(kernel, m, n, plan)[0]
    if own.source.geometry.stream_k:
        out["stream_k"] = stream_k_plan(own, rows, cols, k).describe()
    return out


def workspace_bytes(kernel, m: int, n: int, k: int = 0, batch: int = 1) -> int:
    """Bytes of workspace that `kernel` (a LoadedKernel, or a KernelSource when it is not
    stream-K) needs for M x N x K: split-K partials (each entry's of a batch split over K), or stream-K's
    partial tiles; 0 for a one-pass kernel.  An edge split's parts run one after the other: the largest."""
    if getattr(kernel, "edge", None) is not None or getattr(kernel, "source", kernel).geometry.last_col:
        return max(_workspace_one(kk, rows, cols, k) for kk, _, _, rows, cols in _parts(kernel, m, n))
    return _workspace_one(kernel, m, n, k, batch)


def _workspace_one(kernel, m: int, n: int, k: int, batch: int = 1) -> int:
    source = getattr(kernel, "source", kernel)
    if source.params == FUSEDK_PARAMS:  # fused split-K: the partials, W[z] for each split
        return 4 * source.geometry.splits * m * n if source.geometry.splits > 1 else 0
    if source.geometry.stream_k:
        return stream_k_plan(kernel, m, n, k).workspace_bytes
    if getattr(source, "reduce", None) is None:
        return 0
    return 4 * source.geometry.splits * m * n * (max(batch, 1) if source.geometry.batched else 1)


class SgemmLaunch:
    """C = alpha A B + beta C for one set of device pointers, packed once."""

    def __init__(self, kernel, m: int, n: int, k: int, alpha: float, a: int, lda: int, b: int, ldb: int,
                 beta: float, c: int, ldc: int, workspace: int = 0,
                 batch: int = 0, strides: Tuple[int, int, int] = (0, 0, 0)):
        """batch > 0: a batched kernel (SgemmConfig.batched), `strides` its operands' batch
        strides in elements, the batch index in blockIdx.z."""
        self.shape = (m, n, k)
        if kernel.source.geometry.last_col and n < 2:
            raise LaunchError(f"{kernel.label}: a kernel with C's last column fused (config.last_col) needs "
                              f"N >= 2 (got {n}); use a config without it")
        # the launches (kernel, grid, args), in order: packed by `steps` here, by runtime/plans.py
        # into its own fast-path launches
        self.calls: List[Tuple[object, Tuple[int, int, int], tuple]] = []
        self._batch = (batch, tuple(int(s) for s in strides)) if batch else None
        self.plan: Optional[StreamKPlan] = None  # the first stream-K part's (an edge split's interior)
        self.edges: Optional[EdgePlan] = edge_plan(kernel, m, n)
        self.work_lists: List[object] = []  # stream-K work lists and flags, one per stream-K part
        for kk, row0, col0, rows, cols in _parts(kernel, m, n, self.edges):
            # a part is the SGEMM of C[row0:, col0:] = op(A)[row0:, :] op(B)[:, col0:]: its operands
            # offset (in floats) for the kernel's layouts, the same leading dimensions
            da, db, dc = part_offsets(kernel.source, row0, col0, lda, ldb, ldc)
            self._one(kk, rows, cols, k, alpha, a + 4 * da, lda, b + 4 * db, ldb, beta, c + 4 * dc, ldc, workspace)

    def _one(self, kernel, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workspace):
        if kernel.source.geometry.stream_k:
            if self._batch is not None:
                raise LaunchError(f"{kernel.label}: stream-K has no batched form")
            self._stream_k(kernel, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workspace)
            return
        if kernel.source.params == FUSEDK_PARAMS:
            self._fused(kernel, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workspace)
            return
        if kernel.reduce is None:
            args = (m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
            if self._batch is not None:
                batch, strides = self._batch
                gx, gy, _ = kernel.source.geometry.grid(m, n)
                self._step(kernel, (gx, gy, batch), args + strides)
                return
            self._add(kernel, m, n, args)
            return
        batch, (sa, sb, sc) = self._batch or (1, (0, 0, 0))
        if not workspace:
            raise LaunchError(f"{kernel.label}: split-K needs a workspace of "
                              f"{workspace_bytes(kernel, m, n, k, batch)} bytes; none was given")
        if self._batch is None:
            self._add(kernel, m, n, (m, n, k, a, lda, b, ldb, workspace))
            self._add(kernel.reduce, m, n, (m, n, alpha, workspace, beta, c, ldc))
            return
        # a batch split over K (codegen/splitk.py): blockIdx.z = entry x splits + split, then one reduce an entry
        self._step(kernel, kernel.source.geometry.grid(m, n, batch), (m, n, k, a, lda, b, ldb, workspace, sa, sb))
        rx, ry, _ = kernel.reduce.source.geometry.grid(m, n)
        self._step(kernel.reduce, (rx, ry, batch), (m, n, alpha, workspace, beta, c, ldc, sc))

    def _stream_k(self, kernel, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workspace):
        """Whole tiles, then the ranges (codegen/streamk.py).  The work list and the slots'
        flags live in a device buffer of this launch (uploaded once: they belong to the
        shape; the kernel leaves the flags at 0; on a private stream, synchronised, as the
        first call on a stream may come during its capture), the partial tiles in the caller's
        workspace."""
        plan = stream_k_plan(kernel, m, n, k)
        if self.plan is None:
            self.plan = plan
        args = (m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
        if plan.whole_tiles:
            self._step(kernel, (plan.whole_tiles, 1, 1), args)
        if not plan.ranges:
            return
        if plan.slots and not workspace:
            raise LaunchError(f"{kernel.label}: stream-K needs a workspace of {plan.workspace_bytes} bytes "
                              f"for its partial tiles; none was given")
        work_list = driver.to_device_private(plan.work_ints())  # plan time, maybe during a capture
        self.work_lists.append(work_list)
        items = work_list.ptr
        starts, flags = items + plan.starts_offset, items + plan.flags_offset
        self._step(kernel.ranges, (plan.ranges, 1, 1), args + (items, starts, flags, workspace))

    def _fused(self, kernel, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workspace):
        """Fused split-K (codegen/emit_fusedk.py): one launch; with splits, the partials in the
        caller's workspace and one arrival counter per output tile in a buffer of this launch
        (uploaded as zeros once; the kernel leaves them at 0, like stream-K's flags)."""
        g = kernel.source.geometry
        counters = 0
        if g.splits > 1:
            if self._batch is not None:
                raise LaunchError(f"{kernel.label}: split-K has no batched form")
            if not workspace:
                raise LaunchError(f"{kernel.label}: fused split-K needs a workspace of "
                                  f"{workspace_bytes(kernel, m, n, k)} bytes; none was given")
            gx, gy, _ = g.grid(m, n)
            buf = driver.zeros_u32(gx * gy)
            self.work_lists.append(buf)
            counters = buf.ptr
        self._add(kernel, m, n, (m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workspace if g.splits > 1 else 0,
                                 counters))

    def _add(self, kernel, m, n, args):
        self._step(kernel, kernel.source.geometry.grid(m, n), args)

    def _step(self, kernel, grid, args):
        self.calls.append((kernel, grid, args))

    @cached_property
    def steps(self) -> List[Tuple[object, Tuple[int, int, int], object]]:
        """`calls` packed (kernel, grid, kernelParams), once, on first use: a plan that only
        reads `calls` never packs them twice."""
        return [(kernel, grid, kernel.pack(args)) for kernel, grid, args in self.calls]

    def __call__(self, stream: int = 0) -> None:
        for kernel, grid, packed in self.steps:
            kernel.launch(grid, (), stream, packed=packed)

    def describe(self) -> str:
        """The launches, for error messages."""
        m, n, k = self.shape
        return " then ".join(kernel.describe_launch(grid) for kernel, grid, _ in self.calls) + f" on {m}x{n}x{k}"
