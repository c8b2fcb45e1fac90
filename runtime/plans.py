"""Launch plans: plan once, launch many.

A GemmPlan is everything one SGEMM shape needs on this GPU, built once: the kernel
(compiled and loaded), its launches (runtime/sgemm_launch.SgemmLaunch: an edge split's
parts, stream-K's two launches, split-K's reduction) with their arguments packed into
buffers (driver.PackedLaunch), and per stream the state a running launch owns: the
split-K / stream-K workspace and the stream-K work list with its flags.  An m == 1 or n == 1
GEMM (no config given; a batch of them where codegen/batch_choice.batched_gemv takes it, as one batched
launch) is a GEMV: its plan's launches are those of the SGEMV
family's cached plan (runtime/gemv.gemv_route), chosen and compiled once like the rest; an m or n in
2..16 that codegen/fewvec_config.route takes runs the few-vector kernels' plan (runtime/fewvec.py) the
same way.  Two streams
running the same plan concurrently therefore never share a workspace, and nothing is
freed or synchronised between calls.

A call on a plan writes five fields (the three operands' pointers, alpha, beta) and
calls cuLaunchKernel once per launch: no code generation, no hashing, no disk, no
host-device copy, no synchronisation (docs/overhead.md measures it against torch.mm).

CUDA graphs: a call records only kernel launches, so it can be captured.  The first
call of a plan on a stream allocates that stream's workspace and uploads its work list;
do it before capturing (as torch asks for warm-up before torch.cuda.graph).  When it
happens during a capture anyway, the allocation is made outside the graph (relaxed
capture mode, kept by the plan for the graph's replays).  A captured graph points into
its plan's workspace and work lists, so a plan that owns such device state and is
launched during a capture is pinned for the life of the process (`plan_store.captured_plans`):
evicting it from regtile.sgemm's cache, or dropping a regtile.Gemm, then frees nothing a
graph still uses.  Until a plan is pinned, its calls ask the driver whether the stream is
capturing (cuStreamIsCapturing, about a microsecond); plans without device state
(no split-K, stream-K, work list or repacked operands' copies) never ask: a graph keeps their kernel's parameters.

A repacking plan (codegen/repack.py: NN, NT or TT with both operands' rows unaligned, or in NT and TT B^T's alone)
launches a copy kernel before its GEMM, the call's A and B (or B alone) into padded rows of its per-stream workspace,
and the GEMM reads the copies.
"""
from __future__ import annotations

import threading
from typing import Dict, List, Optional, Tuple

from ..codegen.hardware import MAX_GRID_YZ
from ..codegen.repack import PackConfig, repack_for
from . import driver, plan_store
from .plan_store import PlanCache
from .errors import InputError, LaunchError
from .sgemm_launch import SgemmLaunch, workspace_bytes

_DYNAMIC = {"A": 0, "B": 1, "C": 2, "alpha": 3, "beta": 4}  # the per-call fields (PackedLaunch)


def _aligned(nbytes: int) -> int:
    """`nbytes` rounded up to 256: each part of a workspace starts aligned for float4 (and cache lines)."""
    return -(-nbytes // 256) * 256


def kernel_config(cfg, trans_a: bool, trans_b: bool, batched: bool):
    """A given `cfg` generated for these layouts and, batched, as the batched kernel
    (blockIdx.z = batch entry, times split_k where the config splits K; stream-K and the edge split have no batched
    form).
    A given config is taken as it is: a refusal (ConfigError) is the caller's to see."""
    from ..codegen.config import Decomposition
    tile = cfg.tile.replace(trans_a=bool(trans_a), trans_b=bool(trans_b), batched=cfg.batched or batched)
    # a batch keeps a split over K (each entry's partials, codegen/splitk.py); stream-K and the edge split are per matrix
    decomposition = Decomposition(split_k=cfg.split_k) if batched else cfg.decomposition
    if tile == cfg.tile and decomposition == cfg.decomposition:
        return cfg
    return cfg.replace(tile=tile, decomposition=decomposition)


class _Bound:
    """A plan's launches on one stream: their packed arguments, workspace and work lists."""
    __slots__ = ("launches", "keep", "lock", "watch_capture")

    def __init__(self, launches, keep, device_state: bool = False):
        self.launches = launches
        self.keep = keep
        self.lock = threading.Lock()
        # device memory that a captured graph would point into: check for captures until pinned
        self.watch_capture = device_state


class GemmPlan:
    """C = alpha op(A) op(B) + beta C for one kernel-level problem: C row-major m x n (ldc),
    op(A) m x k (trans_a: stored column-major, lda), op(B) k x n (trans_b), `batch` > 0
    problems `strides` (elements; 0 broadcasts) apart.  Built once; call launch() per GEMM."""

    repack = None  # codegen/repack.Repack: the operands copied into padded rows before the GEMM (unaligned rows)
    pack_kernel = None  # the copies' kernel (codegen/emit_pack.py), loaded where the plan repacks
    pack_config = PackConfig()  # ... compiled from this config (its grid: repack.Repack.grid)

    def __init__(self, m: int, n: int, k: int, trans_a: bool, trans_b: bool, lda: int, ldb: int, ldc: int,
                 batch: int = 0, strides: Tuple[int, int, int] = (0, 0, 0), config=None,
                 backend: Optional[str] = None, arch: Optional[str] = None):
        from ..codegen.config import ConfigError
        from .choice import _arch_of_device, choose_sgemm_kernel
        from .compiler import compile_config
        self.m, self.n, self.k = m, n, k
        self.trans_a, self.trans_b = bool(trans_a), bool(trans_b)
        self.lda, self.ldb, self.ldc = lda, ldb, ldc
        self.batch, self.strides = batch, tuple(strides)
        self.arch = arch = arch or _arch_of_device()
        self._bound: Dict[int, _Bound] = {}
        self._lock = threading.Lock()
        self.gemv = None
        self.spilled = None  # _compile: the chosen config that spilled under its register cap (self.config: lifted)
        if config is None and backend is None and k >= 1 and (batch == 0 or m == 1 or n == 1):
            # one row or column of C: the SGEMV family streams the matrix once at the memory bound,
            # where a GEMM tile pads 63 of 64 rows (issue 20), batched where codegen/batch_choice.batched_gemv
            # takes the shape (decode attention a head); m or n in 2..16 where measured faster
            # (codegen/fewvec_config.route): the big operand streamed once for every vector
            if m == 1 or n == 1:
                from .gemv import gemv_route
                self.gemv = gemv_route(m, n, k, self.trans_a, lda, self.trans_b, ldb, ldc, arch, batch, self.strides)
            else:
                from .fewvec import fewvec_route
                self.gemv = fewvec_route(m, n, k, self.trans_a, lda, self.trans_b, ldb, ldc, arch)
            if self.gemv is not None:
                self.kernel, self.config, self.backend = self.gemv.plan.kernel, self.gemv.config, "cuda"
                return
        if config is None:
            # NN, NT or TT with both operands' rows unaligned and m n / (m + n) large, or NT / TT with B^T's unaligned
            # and m large: the GEMM runs on padded copies (codegen/repack.REPACK_RULES)
            self.repack = repack_for(m, n, k, self.trans_a, self.trans_b, lda, ldb, batch, arch)
            if self.repack is not None:
                self.pack_kernel = driver.load(compile_config(self.pack_config, arch))
                lda, ldb = self.repack.leading_dims(lda, ldb)
            # the chooser generates its member for the layouts and the batch (codegen/layouts.py
            # with_layout: pad_b=4 for B^T; min_blocks=1 where the register rule refuses B^T at 2)
            # and the leading dimensions (operand_forms.for_operands: the unaligned rows' copies, C's rows staged
            # where ldc % 4 != 0, whatever N is)
            self.config, chosen = choose_sgemm_kernel(m, n, k, arch, self.trans_a, self.trans_b, batch, lda, ldb,
                                                      ldc)
            self.backend = backend or chosen
        else:
            try:
                self.config = kernel_config(config, trans_a, trans_b, batch > 0)
            except ConfigError as e:
                raise InputError(f"config cannot run this layout or batch: {e}") from None
            self.backend = backend or "cuda"
        splits = self.config.split_k
        if batch * splits > MAX_GRID_YZ:  # blockIdx.z = entry (x split_k + split)
            raise InputError(f"batch {batch} x split_k {splits}: the batched kernel's grid holds at most {MAX_GRID_YZ} "
                             f"along z (an entry and its splits a z); split the batch into calls of at most "
                             f"{MAX_GRID_YZ // splits} entries" + (" or give split_k=1" if splits > 1 else ""))
        self.kernel = driver.load(self._compile(arch, chosen=config is None))

    def _compile(self, arch: str, chosen: bool):
        """The config's artifact.  Where the library chose the config and this machine's ptxas spilled its kernel
        under the config's register cap (min_blocks or max_registers: validation takes one or the other), the same
        tile again without it.  What ptxas fits under a cap varies
        with its build (session 28: the device's NVRTC 13.0 spilled sq-128x128 at 128 registers, the same text the
        CPU machine's fitted), and a slower kernel beats a SpillError.  A config given by the caller is taken as
        it is."""
        from ..errors import SpillError
        from .compiler import compile_config
        try:
            return compile_config(self.config, arch, backend=self.backend)
        except SpillError:
            if not chosen or (self.config.min_blocks == 1 and not self.config.max_registers):
                raise
        self.spilled, self.config = self.config, self.config.replace(min_blocks=1, max_registers=0)
        return compile_config(self.config, arch, backend=self.backend)

    def describe(self) -> str:
        """The problem and what runs it: the kernel's label and backend, or the GEMV plan."""
        ops = ("T" if self.trans_a else "N") + ("T" if self.trans_b else "N")
        b = f" x{self.batch}" if self.batch else ""
        if self.gemv is not None:
            return f"{self.m}x{self.n}x{self.k} {ops}{b}: GEMV {self.gemv.plan.describe()} (cuda)"
        own = f"{self.m}x{self.n}x{self.k} {ops}{b}: {self.kernel.label} ({self.backend})"
        if self.spilled is not None:
            own += " without its register cap (ptxas spilled under it)"
        if self.repack is not None:
            own += f", {self.repack.describe()}"
        return own

    def _launch_sets(self, workspace: int, a: int = 0, b: int = 0) -> List[SgemmLaunch]:
        """The GEMM's launches; `a` / `b`: a repacked operand's copy (its pointer fixed), else 0 (the call's)."""
        lda, ldb = self.repack.leading_dims(self.lda, self.ldb) if self.repack else (self.lda, self.ldb)
        return [SgemmLaunch(self.kernel, self.m, self.n, self.k, 0.0, a, lda, b, ldb, 0.0, 0, self.ldc,
                            workspace=workspace, batch=self.batch, strides=self.strides)]

    def _copy_offsets(self) -> Tuple[Dict[str, int], int]:
        """A repacking plan's copies in its workspace: ({"A" / "B": offset of its copy, 256-byte aligned}, their
        bytes); ({}, 0) for a plan that reads its operands in place."""
        offsets, at = {}, 0
        for name, op in (("A", self.repack.a), ("B", self.repack.b)) if self.repack is not None else ():
            if op is not None:
                offsets[name] = at
                at += _aligned(4 * op.floats)
        return offsets, at

    def _copy_launch(self, copies: Dict[str, int]) -> driver.PackedLaunch:
        """The copy kernel's launch into `copies` ({"A" / "B": its copy's pointer}), fed the call's operands."""
        args = self.repack.args(self.pack_config, copies.get("A", 0), copies.get("B", 0))
        return driver.PackedLaunch(self.pack_kernel, self.repack.grid(self.pack_config), args,
                                   {"S" + name: _DYNAMIC[name] for name in copies})

    def _bind(self, stream: int) -> _Bound:
        """The stream's workspace and work lists (allocated once per plan and stream): one buffer holds the GEMM's
        workspace, then a repacking plan's copies, whose launches come first."""
        with self._lock:
            bound = self._bound.get(stream)
            if bound is not None:
                return bound
            with driver.outside_capture(stream) as capturing:
                try:
                    nbytes = workspace_bytes(self.kernel, self.m, self.n, self.k, max(self.batch, 1))
                    offsets, copy_bytes = self._copy_offsets()
                    total = _aligned(nbytes) + copy_bytes if copy_bytes else nbytes
                    ws = driver.DeviceBuffer(total) if total else None
                    copies = {name: ws.ptr + _aligned(nbytes) + off for name, off in offsets.items()}
                    launches = [self._copy_launch(copies)] if copies else []
                    sets = self._launch_sets(ws.ptr if nbytes else 0, **{op.lower(): at for op, at in copies.items()})
                    dynamic = {p: i for p, i in _DYNAMIC.items() if p not in copies}  # the copies: packed once
                    launches += [driver.PackedLaunch(kk, grid, args, dynamic)
                                 for s in sets for kk, grid, args in s.calls]
                except Exception as e:
                    if capturing:
                        raise LaunchError(f"regtile {self.describe()}: the first call on a stream allocates its "
                                          f"workspace, which failed during CUDA graph capture ({e}); call once "
                                          f"on this stream before capturing (warm-up)") from e
                    raise
            device_state = ws is not None or any(s.work_lists for s in sets)
            # a plan already pinned keeps every stream's state: its new streams need not ask
            watch = device_state and not plan_store.is_pinned(self)
            bound = _Bound(tuple(launches), (ws, sets), watch)
            self._bound[stream] = bound
            return bound

    def launch(self, a: int, b: int, c: int, alpha: float, beta: float, stream: int = 0) -> None:
        """Enqueue the GEMM on `stream` (a CUstream handle as an int); returns at once."""
        if self.gemv is not None:
            self.gemv.launch(a, b, c, alpha, beta, stream)
            return
        bound = self._bound.get(stream)
        if bound is None:
            bound = self._bind(stream)
        if bound.watch_capture and stream and driver.stream_capturing(stream):  # stream 0 is never captured
            self._pin()
        values = (a, b, c, alpha, beta)
        with bound.lock:  # the packed buffers are rewritten per call
            for launch in bound.launches:
                launch(values, stream)

    def _pin(self) -> None:
        """A graph holds this plan's device state: keep the plan for the life of the process."""
        with self._lock:
            plan_store.pin(self)
            for bound in self._bound.values():
                bound.watch_capture = False

    def workspace_streams(self) -> List[int]:
        if self.gemv is not None:
            return self.gemv.plan.workspace_streams()
        return list(self._bound)


plan_cache = PlanCache()
