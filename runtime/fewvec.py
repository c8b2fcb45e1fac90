"""The few-vector route of skinny GEMMs (m or n in 2..16): codegen/fewvec_config.py's kernels.

regtile.sgemm's plan (runtime/plans.GemmPlan) asks `fewvec_route` once per (shape, layout,
device); where codegen/fewvec_config.route takes the GEMM, the plan's launches are a FewVecPlan's:
the stage kernel (the small operand's vectors into the workspace's layout), the few-vector kernel,
and for a split launch the reduce kernel.  Plans are cached here by (rows, cols, op, vectors, arch,
config, splits) in a PlanCache (runtime/plan_store.py: the least recently used out beyond
PLAN_CACHE_SIZE); as GemmPlan's, a plan launched during a CUDA graph capture is pinned
(plan_store.captured_plans), so that its per-stream workspaces stay valid for the graph's replays:
until pinned, a call on a stream other than 0 asks the driver whether the stream is capturing
(cuStreamIsCapturing, about a microsecond).  A call rewrites five fields of two or three packed launches
(driver.PackedLaunch, runtime/packed_plan.py): no codegen, hashing or allocation.
"""
from __future__ import annotations

import threading
from typing import Optional

from ..codegen.emit_fewvec import partial_count, reduce_inner, staged_floats
from ..codegen.emit_sgemv import reduce_outputs_per_block
from ..codegen.fewvec_config import FewVecTConfig, fewvec_candidates, fewvec_splits, grid, route
from ..codegen.hardware import MAX_GRID_YZ
from ..errors import SpillError
from . import driver
from .compiler import compile_config
from .errors import InputError
from .gemv import _arch_and_sms
from .packed_plan import PackedPlan
from . import plan_store
from .plan_store import PlanCache

_lock = threading.Lock()
plan_cache = PlanCache()  # least recently used out, as regtile.sgemm's plans; captured ones pinned
STAGE_MAX_BLOCKS = 1024  # the stage kernel loops over its elements beyond this many blocks


class FewVecPlan(PackedPlan):
    """`vectors` vectors against one row-major rows x cols matrix on one kernel (op T: C[v, :] =
    X_v^T A, op N: C[:, v] = A X_v; transposed where the config's transposed_c).  Per stream: the
    staged vectors and the split partials (one buffer), and the three launches packed once."""

    def __init__(self, kernel, cfg, rows: int, cols: int, splits: int):
        super().__init__()
        self.kernel, self.config, self.rows, self.cols = kernel, cfg, rows, cols
        self.op = "T" if isinstance(cfg, FewVecTConfig) else "N"
        self.splits = max(1, int(splits))
        self.grid = grid(cfg, rows, cols, self.splits)
        if self.grid[1] > MAX_GRID_YZ:
            raise InputError(f"{rows}x{cols}: {self.splits} splits exceed gridDim.y's {MAX_GRID_YZ}")
        self.length = rows if self.op == "T" else cols  # each vector's length
        self.staged = staged_floats(cfg, self.length)
        self.count = partial_count(cfg, rows, cols)
        self.stage_grid = (max(1, min(STAGE_MAX_BLOCKS, -(-self.staged // 256))), 1, 1)
        self.reduce_grid = (-(-self.count // reduce_outputs_per_block(self.splits)), 1, 1)
        self.pinned = False  # a graph captured a launch: kept alive by plan_store.captured_plans after the cache evicts it

    def _new_workspace(self) -> driver.DeviceBuffer:
        """The staged vectors, then (split) the partials."""
        return driver.DeviceBuffer(4 * (self.staged + (self.splits * self.count if self.splits > 1 else 0)))

    def _launches(self, key: tuple, ws: int) -> list:
        """The launches of (stream, sv, sp, lda, ldc, small): `small` indexes the call's values tuple
        (a, b, c, alpha, beta) for the vectors' operand, 1 - small for the matrix's."""
        _, sv, sp, lda, ldc, small = key
        x, w = ws, ws + 4 * self.staged
        stage = self.kernel.entries["stage"]
        launches = [driver.PackedLaunch(stage, self.stage_grid, (0, sv, sp, self.length, x), {"S": small}),
                    driver.PackedLaunch(self.kernel, self.grid,
                                        (self.rows, self.cols, 0.0, 0, lda, x, 0.0, 0, ldc, w),
                                        {"A": 1 - small, "C": 2, "alpha": 3, "beta": 4})]
        if self.splits > 1:
            inner = reduce_inner(self.config, self.rows, self.cols)
            launches.append(driver.PackedLaunch(self.kernel.reduce, self.reduce_grid,
                                                (self.count, self.splits, 0.0, w, 0.0, 0, inner, ldc),
                                                {"C": 2, "alpha": 3, "beta": 4}))
        return launches

    def pin(self) -> None:
        """A graph points into this plan's workspaces: keep it for the life of the process
        (plan_store.pin, as GemmPlan does), whatever the cache evicts."""
        with self._args_lock:
            if not self.pinned:
                plan_store.pin(self)
                self.pinned = True

    def describe(self) -> str:
        return (f"{self.kernel.source.name} op {self.op} {self.config.vectors} vectors x {self.rows}x{self.cols}, "
                f"grid {self.grid}" + (f", {self.splits} splits + reduce" if self.splits > 1 else "")
                + ", vectors staged first" + (", C transposed" if self.config.transposed_c else ""))


def plan_for(rows: int, cols: int, op: str, vectors: int, config=None, arch: Optional[str] = None,
             splits: Optional[int] = None, transposed_c: bool = False) -> FewVecPlan:
    """The cached plan; built (codegen, compile, load) once."""
    dev_arch, sms = _arch_and_sms() if arch is None else (arch, None)
    key = (rows, cols, op, vectors, dev_arch, config, splits, transposed_c)
    plan = plan_cache.get(key)
    if plan is not None:
        return plan
    if sms is None:
        sms = _arch_and_sms()[1]
    if config is None:
        cfg, artifact = _rule_kernel(rows, cols, op, vectors, dev_arch, transposed_c)
    else:
        cfg = config
        if cfg.vectors != vectors or (op == "T") != isinstance(cfg, FewVecTConfig) or cfg.transposed_c != transposed_c:
            raise InputError(f"{cfg.describe()}: not a kernel for {vectors} vectors, op {op}"
                             + (", C transposed" if transposed_c else ""))
        artifact = compile_config(cfg, dev_arch)
    kernel = driver.load(artifact)
    if splits is None:
        splits = fewvec_splits(cfg, rows, cols, sms, kernel.blocks_per_sm)
    with _lock:  # two threads that built the same plan keep one
        plan = plan_cache.get(key) or plan_cache.put(key, FewVecPlan(kernel, cfg, rows, cols, splits))
    return plan


def _rule_kernel(rows: int, cols: int, op: str, vectors: int, arch: str, transposed_c: bool = False):
    """(config, compiled artifact) of the first of codegen/fewvec_config.fewvec_candidates that compiles
    without spilling for `arch` (the shared-memory op T kernels' forms, best first); the last SpillError
    where every candidate spills."""
    for cfg in fewvec_candidates(rows, cols, op, vectors, transposed_c):
        try:
            return cfg, compile_config(cfg, arch)
        except SpillError as e:
            spilled = e
    raise spilled


def rule_config(rows: int, cols: int, op: str, vectors: int, arch: Optional[str] = None, transposed_c: bool = False):
    """The few-vector kernel regtile runs for `vectors` vectors against a row-major rows x cols matrix on
    `arch` (the device's when None): the rule's first candidate that compiles without spilling."""
    return _rule_kernel(rows, cols, op, vectors, arch or _arch_and_sms()[0], transposed_c)[0]


class FewVecRoute:
    """A skinny GEMM as a FewVecPlan: which operand is the matrix, the vectors' strides, worked out
    once (GemmPlan's launches when regtile.sgemm routes there; the interface of gemv.GemvRoute)."""
    __slots__ = ("plan", "key", "small")

    def __init__(self, plan: FewVecPlan, sv: int, sp: int, ld: int, ldc: int, mat_is_a: bool):
        self.plan, self.small = plan, 1 if mat_is_a else 0
        self.key = (sv, sp, ld, ldc, self.small)  # the packed launches' key after the stream

    @property
    def config(self):
        return self.plan.config

    def launch(self, a: int, b: int, c: int, alpha: float, beta: float, stream: int = 0) -> None:
        plan = self.plan
        if stream and not plan.pinned and driver.stream_capturing(stream):  # stream 0 is never captured
            plan.pin()
        key = (stream,) + self.key
        packed = plan._packed.get(key) or plan._pack_once(key)
        values = (a, b, c, alpha, beta)
        with plan._args_lock:  # the driver copies kernelParams at launch: the buffers are free after
            for launch in packed:
                launch(values, stream)


def fewvec_route(m: int, n: int, k: int, trans_a: bool, lda: int, trans_b: bool, ldb: int, ldc: int,
                 arch: Optional[str] = None, config=None, splits: Optional[int] = None) -> Optional[FewVecRoute]:
    """The few-vector kernel that computes row-major C (m x n) = alpha op(A) op(B) + beta C, its plan
    built once; None where codegen/fewvec_config.route does not take the GEMM (a `config` given
    skips the rule's size bound but not the layouts; `splits` overrides the rule's split; where the
    rule's kernel forms spill on this arch, None too: regtile never runs a spilling kernel).  A is
    m x k (k x m stored when trans_a), B k x n (n x k stored when trans_b); the route's Routing says
    which is the matrix and where the vectors' values lie."""
    r = route(m, n, k, trans_a, lda, trans_b, ldb, force=config is not None, sms=_arch_and_sms()[1])
    if r is None:
        return None
    try:
        plan = plan_for(r.rows, r.cols, r.op, r.vectors, config=config, arch=arch, splits=splits,
                        transposed_c=r.transposed_c)
    except SpillError:
        if config is not None:
            raise
        # every form of the rule's kernel spilled under this arch's compiler: the family's members take the GEMM
        return None
    return FewVecRoute(plan, int(r.sv), int(r.sp), int(r.ld), int(ldc), r.mat_is_a)
