"""The kernel program: one SGEMM kernel as a sequence of steps, before any text.

make_plan (codegen/plan.py) decides the registers, the FFMA order and every memory access;
kernel_program puts them in order: which copies happen when (the stage loops 0 / 1 / 2, the
prefetch of the next tile and of the next k-slice's fragments), the fragment loads and the
FFMA walk of each k-slice, which guard applies where (interior tiles, edge tiles, the rows
and columns of C) and what the epilogue stores.  The backends render the program: the CUDA C
renderer (codegen/emit_cuda.py, templates/sgemm.cu.j2) and the PTX renderer
(codegen/emit_ptx.py and its mixins) each map a step to their text and decide nothing of the
kernel themselves; a step a backend cannot spell is refused before rendering (emit.py).

Steps are frozen dataclasses.  Containers (Pipeline, TileLoop, KLoop, Scope, IfNext, Compute)
hold steps; the others are leaves.  Names of tiles and stages are the program's: tile "first"
(k-tile 0, before the loop), "this" (k-tile kt) and "next" (kt + 1); stage "only" (one shared
stage), "first" (stage 0, before the loop), "this" (the stage of tile kt) and "next" (the
other one; with the cp.async ring, the stage of tile kt+1).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple, Union

from . import mapping as mp
from . import splitk
from .config import RING_STAGES, SgemmConfig
from .expr import IntLike
from .kernel import SGEMM_PARAMS, SPLITK_BATCH_PARAMS, SPLITK_PARAMS, STREAMK_PARAMS, LaunchGeometry, with_batch
from .plan import FloatCopy, GlobalCopy, SgemmPlan, SmemAccess, ThreadVars, make_plan

Offset = Callable[[ThreadVars], IntLike]


# ---- leaves ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Comment:
    text: str


@dataclass(frozen=True)
class SmemRef:
    """A float of a shared-memory stage: its offset function, and `delta`, the offset less
    the operand's fragment base (FragBase) when that is the same for every thread of the
    block (checked over the whole block): then an access is base pointer + constant, which
    ptxas folds into the LDS's immediate.  None: the full offset per thread."""
    operand: str
    offset: Offset
    delta: Optional[int]


@dataclass(frozen=True)
class LoadFrags:
    """The shared -> register fragment loads of k-slice kk (plan.a/b_frag_loads[kk]), each
    with where it reads (the access's offset, and its distance from the fragment base)."""
    kk: int
    loads: Tuple[Tuple[SmemAccess, SmemRef], ...]


@dataclass(frozen=True)
class Ffmas:
    """One k-slice's FFMAs in issue order (plan.regs.ffma_order): (accumulator, A, B), the
    operands registers of fragment buffer `buffer`, or with frag_regs=False (the seed's
    tile2d: buffer None) floats of shared memory (SmemRef) that the FFMA names itself."""
    buffer: Optional[int]
    ops: Tuple[Tuple[str, Union[str, SmemRef], Union[str, SmemRef]], ...]


@dataclass(frozen=True)
class TileDim:
    """One dimension of an operand's tile, in op(A)'s (m, k) or op(B)'s (k, n) order: it
    starts at `origin` ("block_m" / "block_n", the block's output tile; "k0", the k-tile's
    first k), spans `extent` and is guarded against `bound` ("M", "N", "K").  A copy's
    element is origin + its tile coordinate; an interior tile has origin + extent <= bound
    in both dimensions."""
    origin: str
    extent: int
    bound: str


def block_axis(dims: Tuple[TileDim, TileDim]) -> int:
    """Which of an operand tile's (row, col) dimensions is the block's (M for A, N for B), not K's."""
    return next(i for i, d in enumerate(dims) if d.origin != "k0")


def tile_dims(cfg: SgemmConfig, operand: str) -> Tuple[TileDim, TileDim]:
    k = TileDim("k0", cfg.bk, "K")
    return (TileDim("block_m", cfg.bm, "M"), k) if operand == "A" else (k, TileDim("block_n", cfg.bn, "N"))


@dataclass(frozen=True)
class OperandLoads:
    """Global -> staging registers of one operand's copies for one k-tile.  guard "tile": an
    interior tile (the whole operand tile inside the matrix, rows 16-byte aligned: a
    block-uniform test per k-tile) takes unchecked float4 loads; an edge tile checks each
    vector (inside and aligned), then each float.  guard "element": each float checked.
    split_paths (config.edge_vector_path, PTX): an edge tile whose vectors are wholly inside or
    outside takes a path of its own (ptx_edges.py); the values loaded are the same.
    floats (config.unaligned_rows, PTX; plan.float_copies): where the operand's rows are not
    16-byte aligned, a k-tile inside K takes these copies of a float each, consecutive threads
    on consecutive floats, guarded only along the block dimension and only in its edge tiles
    (ptx_unaligned.py).  The floats inside the matrix land where the vector copies put them;
    those outside are not zeros but reach only C's rows and columns outside the matrix.
    With KernelProgram.clamp_edges the block dimension's edge is in the sources (an interior test
    asks for aligned rows and K), and with unaligned_vectors a k-tile inside K on unaligned rows
    loads its vectors' floats unchecked (ptx_edges._load_unaligned_unchecked)."""
    operand: str
    dims: Tuple[TileDim, TileDim]
    copies: Tuple[GlobalCopy, ...]
    guard: str
    split_paths: bool
    floats: Tuple[FloatCopy, ...] = ()

    @property
    def k_dim(self) -> "TileDim":
        """The dimension along K (origin k0: the k-tile's)."""
        return next(d for d in self.dims if d.origin == "k0")

    @property
    def block_axis(self) -> int:
        """Which of (row, col) of the operand's tile is the block's dimension (M for A, N for B)."""
        return block_axis(self.dims)


@dataclass(frozen=True)
class LoadTile:
    """Every copy of k-tile `tile` ("first", "this", "next") into the staging registers."""
    tile: str
    operands: Tuple[OperandLoads, ...]


@dataclass(frozen=True)
class StoreTile:
    """Staging registers -> shared stage `stage` ("only", "first", "next"): the stores of
    `copies`, or of `floats` for an operand whose last tile load took its floats
    (OperandLoads.floats, unaligned rows)."""
    stage: str
    copies: Tuple[GlobalCopy, ...]
    floats: Tuple[FloatCopy, ...] = ()


@dataclass(frozen=True)
class AsyncCopyTile:
    """The cp.async ring (stages >= 3): every copy of k-tile kt + `ahead` straight into its
    ring stage ((kt + ahead) mod stages; kt = 0 before the loop: from_kt False), where that tile exists, then
    one commit group (empty past the last tile, so that the wait below counts the same every
    iteration).  Inside tiles, a float4 vector per 16-byte cp.async where its store is one
    vector, else a float per 4-byte cp.async (A stored transposed); edge tiles copy every
    float with zero fill outside the matrix (src-size 0)."""
    ahead: int
    operands: Tuple[OperandLoads, ...]
    from_kt: bool  # ahead of the loop's kt (in the loop), or of tile 0 (before it)


@dataclass(frozen=True)
class AsyncWait:
    """cp.async.wait_group `pending`: this thread's copies of every tile but the last `pending`
    committed ones have landed (a barrier then makes everyone's visible)."""
    pending: int


@dataclass(frozen=True)
class Barrier:
    pass


@dataclass(frozen=True)
class DirectLoad:
    """stages=0: fragment register `reg` straight from global memory at k, zero outside the
    matrix: the element of op(A) (m, k) or op(B) (k, n) whose block dimension (the TileDim of
    `dims` not along K) is its origin + `index` (A's row, B's column), guarded < its bound."""
    operand: str
    dims: Tuple["TileDim", "TileDim"]
    reg: str
    index: Offset

    @property
    def block_dim(self) -> "TileDim":
        return next(d for d in self.dims if d.origin != "k0")


@dataclass(frozen=True)
class ColumnSums:
    """config.last_col (PTX): the sums of C's last column over tile kt's k-slices, from shared stage
    `stage` (codegen/ptx_last_col.py).  First in the two-stage loop's turn, before the next tile's
    copies fill their staging registers: after the tile's FFMAs, ptxas took the 128x64 8x8 member
    from 159 to 187 registers (167 here)."""
    stage: str


# ---- containers -----------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    """Steps in order; the containers below that hold nothing else are Blocks."""
    steps: tuple


class Scope(Block):
    """Steps whose names stay local (the CUDA C renderer's braces)."""


class IfNext(Block):
    """Steps that run only when tile kt + 1 exists (stage 2)."""


@dataclass(frozen=True)
class Compute:
    """The fragment pointers of shared stage `stage` ("only", "first", "this", "next"), then
    `steps` (fragment loads and FFMAs)."""
    stage: str
    steps: tuple


@dataclass(frozen=True)
class TileLoop:
    """for kt in 0 .. k_tiles-1 over `stages` shared stages (1, 2, or a cp.async ring of 3-4
    whose stages rotate)."""
    stages: int
    steps: tuple


class Pipeline(Block):
    """Two shared stages: tile kt+1 travels global -> registers while tile kt is computed,
    then lands in the other stage; one barrier per k-tile."""


class KLoop(Block):
    """stages=0: for k in 0 .. K-1, operands straight from global memory."""


# ---- the epilogue ---------------------------------------------------------------------
@dataclass(frozen=True)
class StoreGroup:
    """Accumulators of one row for columns col .. col + len(accs) - 1: 4 of them: a float4
    where the whole piece is inside N and the rows are 16-byte aligned, else each float
    (column < N); 1: that float (column < N)."""
    j: int
    col: Offset
    accs: Tuple[str, ...]


@dataclass(frozen=True)
class StoreRow:
    """Accumulator row i at block-tile row `row`: nothing when the row is outside M."""
    i: int
    row: Offset
    groups: Tuple[StoreGroup, ...]


@dataclass(frozen=True)
class Epilogue:
    """target "C": C = alpha * acc + beta * C, C not read when beta == 0 (BLAS semantics: C
    may hold NaN then).  "workspace" (split-K): the accumulators to this split's tile of W
    (M x N, ld N; the reduce kernel applies alpha and beta).  Same elements, same guards."""
    target: str
    vector: bool
    rows: Tuple[StoreRow, ...]


@dataclass(frozen=True)
class WorkItems:
    """Stream-K's work-list kernel (codegen/streamk.py): for each of the block's items (tile,
    k-tile range, slot, first, count) the accumulators zeroed, the tile's copies set up and
    `steps` (the k-loop) run over the item's K range.  Then a later piece of a split tile
    (slot >= 0) stores its accumulators to partial slot `slot` and raises the slot's flag; the
    tile's first piece (count > 0) waits for the flags of slots first .. first+count-1, adds
    them in K order (deterministic) and stores `epilogue`; a whole tile stores `epilogue`."""
    steps: tuple
    epilogue: Epilogue


# ---- the program ----------------------------------------------------------------------
# How a block finds its output tile (KernelProgram.tiles): "grid", tile (blockIdx.y,
# blockIdx.x), split-K's split blockIdx.z; "whole_tiles", block b is tile b (tile_n fastest):
# stream-K's whole tiles; "items", from each item of the block's work list (WorkItems).
TILES = ("grid", "whole_tiles", "items")


@dataclass(frozen=True)
class FragBase:
    """Per-thread fragment base offset of an operand: A at (row0, k=0), B at (k=0, col0)."""
    name: str
    offset: Offset


@dataclass(frozen=True)
class KernelProgram:
    plan: SgemmPlan
    tiles: str  # TILES
    # the K the k-loop runs over: "all" (0 .. K), "split" (split-K: blockIdx.z's range,
    # splitk.k_begin, K rebound to its length), "item" (stream-K: each work item's range)
    k_range: str
    params: Tuple[Tuple[str, str], ...]  # the kernel's parameters, in order (codegen/kernel.py)
    # "-0" with the SASS pass: ptxas zeroes +0.0 accumulators two at a time (CS2R), which
    # pins them into pairs (config.py, sass_pass); "0" otherwise.
    acc_init: str
    frag_bases: Dict[str, FragBase]
    # the guard of every tile load (OperandLoads): "tile" (vec 4) or "element"; with "tile"
    # the operands' alignment is tested once, the tile's extent per block and k-tile
    load_guard: str
    dims: Dict[str, Tuple[TileDim, TileDim]]  # each operand's tile (tile_dims)
    # config.edge_clamp ("tile" guard only): each copy's source clamped into the matrix along the
    # block dimension once a tile, so the interior test of an operand's tile asks only for aligned
    # rows (and, where the vectors run along the block dimension and the extent is not a multiple
    # of 4, a k-tile that ends before line K - 1: ptx_edges.clamp_setup)
    clamp_edges: bool
    # config.unaligned_vectors (with clamp_edges): an operand tile inside K and clamped whose rows
    # are not aligned loads its vectors' floats unchecked, before the edge path's checks
    unaligned_vectors: bool
    main: tuple  # the k-loop (main_loop)
    epilogue: Epilogue

    @property
    def cfg(self) -> SgemmConfig:
        return self.plan.cfg


def kernel_name(cfg: SgemmConfig) -> str:
    """A stable symbol derived from the config alone (same config, same name)."""
    digest = hashlib.sha1(repr(sorted(cfg.to_dict().items())).encode()).hexdigest()[:10]
    return f"regtile_sgemm_{cfg.bm}x{cfg.bn}x{cfg.bk}_{cfg.tm}x{cfg.tn}_{digest}"


def geometry(cfg: SgemmConfig) -> LaunchGeometry:
    """The launch of the config's main kernel: split-K's splits along z, stream-K's grid from
    its work list (k-tiles of BK), a batch along z."""
    return LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=cfg.bm, tile_n=cfg.bn,
                          dynamic_smem_bytes=cfg.smem_bytes, batched=cfg.batched, splits=cfg.split_k,
                          stream_k=cfg.stream_k, tile_k=cfg.bk if cfg.stream_k else 0, last_col=cfg.last_col)


def frag_bases(cfg: SgemmConfig) -> Dict[str, FragBase]:
    """Every fragment load of a k-tile is then base pointer + a constant."""
    return {"A": FragBase("a_frag", lambda tv: mp.as_index(cfg, tv.row0, 0)),
            "B": FragBase("b_frag", lambda tv: mp.bs_index(cfg, 0, tv.col0))}


class _Refs:
    """SmemRefs of one config, the per-thread values computed once for the whole block."""

    def __init__(self, cfg: SgemmConfig):
        self.bases = frag_bases(cfg)
        self.threads = [ThreadVars.numeric(cfg, t) for t in range(cfg.threads)]

    def ref(self, operand: str, offset: Offset) -> SmemRef:
        base = self.bases[operand].offset
        deltas = {offset(tv) - base(tv) for tv in self.threads}
        return SmemRef(operand, offset, deltas.pop() if len(deltas) == 1 else None)


def crosses_tiles(cfg: SgemmConfig) -> bool:
    """Register prefetch across k-tiles (seed 000): with two shared stages (or the
    cp.async ring) and an even BK, slice 0 of tile kt+1 is loaded right after the
    barrier, into the fragment buffer that slice BK-1 of tile kt does not use, so the
    FFMAs of that last slice hide the load's latency instead of the next tile waiting
    for it."""
    return (cfg.stages == 2 or cfg.stages in RING_STAGES) and cfg.reg_prefetch and cfg.bk % 2 == 0


def _ffmas(plan: SgemmPlan, buf: int) -> Ffmas:
    r = plan.regs
    return Ffmas(buf, tuple((r.acc[i][j], r.frag_a[buf][i], r.frag_b[buf][j]) for i, j in r.ffma_order))


def _smem_ffmas(plan: SgemmPlan, refs: _Refs, kk: int) -> Ffmas:
    cfg, r = plan.cfg, plan.regs
    ops = []
    for i, j in r.ffma_order:
        a = refs.ref("A", lambda tv, i=i: mp.as_index(cfg, mp.tile_row(cfg, tv.row0, i), kk))
        b = refs.ref("B", lambda tv, j=j: mp.bs_index(cfg, kk, mp.tile_col(cfg, tv.col0, j)))
        ops.append((r.acc[i][j], a, b))
    return Ffmas(None, tuple(ops))


def _loads(plan: SgemmPlan, refs: _Refs, kk: int) -> LoadFrags:
    accesses = plan.a_frag_loads[kk] + plan.b_frag_loads[kk]
    return LoadFrags(kk, tuple((a, refs.ref(a.operand, a.offset)) for a in accesses))


def ktile_schedule(plan: SgemmPlan, refs: Optional[_Refs] = None):
    """(preload, body, tail): the BK k-slices of one tile, unrolled.

    With register prefetch the loads of slice kk+1 go into the other fragment
    buffer before the FFMAs of slice kk.  When the prefetch crosses tiles, slice 0
    is loaded before the loop (preload) and after each barrier, and the FFMAs of
    the last slice (tail) run after the barrier; otherwise preload and tail are
    empty and the body loads slice 0 itself.  frag_regs=False: each slice's FFMAs
    read shared memory (no fragment loads)."""
    cfg = plan.cfg
    refs = refs or _Refs(cfg)
    if not cfg.frag_regs:
        body = []
        for kk in range(cfg.bk):
            body += [Comment(f"k-slice {kk}"), _smem_ffmas(plan, refs, kk)]
        return (), tuple(body), ()
    nbuf = 2 if cfg.reg_prefetch else 1
    cross = crosses_tiles(cfg)
    body = []
    if nbuf == 2 and not cross:
        body += [Comment("k-slice 0 fragments"), _loads(plan, refs, 0)]
    last = cfg.bk - 1
    for kk in range(cfg.bk if not cross else last):
        body.append(Comment(f"k-slice {kk}"))
        if nbuf == 2:
            if kk + 1 < cfg.bk:
                body += [Comment(f"prefetch k-slice {kk + 1} fragments into buffer {(kk + 1) % 2}"),
                         _loads(plan, refs, kk + 1)]
        else:
            body.append(_loads(plan, refs, kk))
        body.append(_ffmas(plan, kk % nbuf))
    if not cross:
        return (), tuple(body), ()
    preload = (Comment("k-slice 0 fragments of the next tile (buffer 0)"), _loads(plan, refs, 0))
    tail = (Comment(f"k-slice {last} (buffer {last % 2}), after the barrier"), _ffmas(plan, last % 2))
    return preload, tuple(body), tail


def load_guard(cfg: SgemmConfig) -> str:
    return "tile" if cfg.vec == 4 else "element"


def _load_tile(plan: SgemmPlan, tile: str) -> LoadTile:
    cfg = plan.cfg
    guard = load_guard(cfg)
    return LoadTile(tile, tuple(OperandLoads(op, tile_dims(cfg, op), copies, guard, cfg.edge_vector_path, floats)
                                for op, copies, floats in (("A", plan.a_copies, plan.a_floats),
                                                           ("B", plan.b_copies, plan.b_floats))))


def _store_tile(plan: SgemmPlan, stage: str) -> StoreTile:
    return StoreTile(stage, plan.a_copies + plan.b_copies, plan.a_floats + plan.b_floats)


def main_loop(plan: SgemmPlan) -> tuple:
    """The k-loop of the config's stages (0, 1, 2, or the cp.async ring of 3-4)."""
    cfg, r = plan.cfg, plan.regs
    if cfg.stages == 0:
        a_dims, b_dims = tile_dims(cfg, "A"), tile_dims(cfg, "B")
        a = tuple(DirectLoad("A", a_dims, r.frag_a[0][i], lambda tv, i=i: mp.tile_row(cfg, tv.row0, i))
                  for i in range(cfg.tm))
        b = tuple(DirectLoad("B", b_dims, r.frag_b[0][j], lambda tv, j=j: mp.tile_col(cfg, tv.col0, j))
                  for j in range(cfg.tn))
        return (KLoop(a + b + (_ffmas(plan, 0),)),)
    preload, body, tail = ktile_schedule(plan)
    if cfg.stages in RING_STAGES:
        # the cp.async ring (codegen/ptx_ring.py): tiles 0 .. S-2 in flight before the loop;
        # iteration kt copies tile kt+S-1 into the stage the last barrier freed, computes tile kt,
        # waits for tile kt+1 (S-2 younger groups may stay in flight) and, after the barrier,
        # preloads its first fragments as the two stages do (validation: the ring crosses tiles)
        s_ = cfg.stages
        ops = _load_tile(plan, "ring").operands
        first = tuple(AsyncCopyTile(a, ops, False) for a in range(s_ - 1))
        first += (AsyncWait(s_ - 2), Barrier(), Scope((Compute("first", preload),)))
        loop = (AsyncCopyTile(s_ - 1, ops, True), Compute("this", body), AsyncWait(s_ - 2), Barrier(),
                IfNext((Compute("next", preload),))) + tuple(tail)
        return (Pipeline(first + (TileLoop(s_, loop),)),)
    if cfg.stages == 1:
        return (TileLoop(1, (_load_tile(plan, "this"), Scope((_store_tile(plan, "only"),)), Barrier(),
                             Compute("only", body), Barrier())),)
    loop = [ColumnSums("this")] if cfg.last_col else []
    loop += [IfNext((_load_tile(plan, "next"),)), Compute("this", body), IfNext((_store_tile(plan, "next"),)),
             Barrier()]
    if tail:
        loop += [IfNext((Compute("next", preload),))] + list(tail)
    first = [Scope((_load_tile(plan, "first"), _store_tile(plan, "first"))), Barrier()]
    if preload:
        first.append(Scope((Compute("first", preload),)))
    return (Pipeline(tuple(first) + (TileLoop(2, tuple(loop)),)),)


def epilogue(plan: SgemmPlan, target: str) -> Epilogue:
    """Row by row of the thread tile; float4 groups where vec 4 and the thread tile's pieces
    are 4 columns wide."""
    cfg, r = plan.cfg, plan.regs
    vector = cfg.float4_epilogue
    step = 4 if vector else 1
    rows = tuple(StoreRow(i, lambda tv, i=i: mp.tile_row(cfg, tv.row0, i),
                          tuple(StoreGroup(j, lambda tv, j=j: mp.tile_col(cfg, tv.col0, j), r.acc[i][j:j + step])
                                for j in range(0, cfg.tn, step)))
                 for i in range(cfg.tm))
    return Epilogue(target, vector, rows)


def kernel_program(plan: SgemmPlan, tiles: str = "grid") -> KernelProgram:
    """The program of one kernel of the plan: the one-pass or split-K kernel ("grid"), or
    one of stream-K's two ("whole_tiles", "items")."""
    cfg = plan.cfg
    if tiles not in TILES:
        raise ValueError(f"tiles={tiles!r}: one of {TILES}")
    split = cfg.split_k > 1
    params = (SPLITK_PARAMS + (SPLITK_BATCH_PARAMS if cfg.batched else ()) if split
              else with_batch(STREAMK_PARAMS if tiles == "items" else SGEMM_PARAMS, cfg.batched))
    loop, out = main_loop(plan), epilogue(plan, "workspace" if split else "C")
    k_range = "split" if split else "item" if tiles == "items" else "all"
    return KernelProgram(plan=plan, tiles=tiles, params=params, k_range=k_range,
                         acc_init="-0" if cfg.sass_pass else "0",
                         frag_bases=frag_bases(cfg), load_guard=load_guard(cfg), clamp_edges=cfg.edge_clamp,
                         unaligned_vectors=cfg.unaligned_vectors,
                         dims={op: tile_dims(cfg, op) for op in ("A", "B")},
                         main=(WorkItems(loop, out),) if tiles == "items" else loop, epilogue=out)


def entry_programs(cfg: SgemmConfig) -> Tuple[Tuple[str, KernelProgram], ...]:
    """The SGEMM kernels of one config's module by role, in text order: "main"; with stream-K
    the whole tiles as "main" and the work list's K ranges as "ranges".  (Split-K's "reduce"
    is splitk.emit_reduce's own kernel; the edge split's "edge" is the entries of
    edges.edge_config(cfg).)"""
    plan = make_plan(cfg)
    if cfg.stream_k:
        return ("main", kernel_program(plan, "whole_tiles")), ("ranges", kernel_program(plan, "items"))
    return (("main", kernel_program(plan)),)


def walk(steps):
    """Every step, containers first, depth first."""
    for s in steps:
        yield s
        inner = getattr(s, "steps", None)
        if inner is not None:
            yield from walk(inner)


def header_lines(plan: SgemmPlan, name: str) -> List[str]:
    """The kernel's description: what it computes, its config and launch, the thread mapping,
    the register plan and the FFMA order (each renderer puts it in a comment)."""
    cfg, r = plan.cfg, plan.regs
    grid_z = (f"batch x {cfg.split_k}" if cfg.batched and cfg.split_k > 1 else "batch" if cfg.batched
              else str(cfg.split_k) if cfg.split_k > 1 else "")
    lines = [f"regtile SGEMM kernel {name}",
             "C = alpha * A @ B + beta * C; A (M x K), B (K x N), C (M x N) row-major with leading dimensions."
             if not (cfg.trans_a or cfg.trans_b) else
             f"C = alpha * op(A) @ op(B) + beta * C, layout {cfg.layout}: op(A) (M x K) "
             f"{'= A^T, A stored K x M' if cfg.trans_a else 'row-major'}, op(B) (K x N) "
             f"{'= B^T, B stored N x K' if cfg.trans_b else 'row-major'}, C (M x N) row-major; leading dimensions.",
             f"config: {cfg.describe()}",
             f"launch: block ({cfg.threads}, 1, 1), grid (ceil(N/{cfg.bn}), ceil(M/{cfg.bm})"
             f"{', ' + grid_z if grid_z else ''}), "
             f"dynamic shared memory {cfg.smem_bytes} bytes",
             "", f"thread mapping ({cfg.mapping}): lane numbers over one warp's "
                 f"{cfg.lanes_m}x{cfg.lanes_n} grid of thread tiles"]
    grid = [[0] * cfg.lanes_n for _ in range(cfg.lanes_m)]
    for lane in range(32):
        ly, lx = mp.lane_coords(cfg, lane)
        grid[ly][lx] = lane
    lines += ["  " + " ".join(f"{v:2d}" for v in row) for row in grid]
    rows = sorted({mp.tile_row(cfg, 0, i) for i in range(cfg.tm)})
    cols = sorted({mp.tile_col(cfg, 0, j) for j in range(cfg.tn)})
    lines += ["", f"thread tile rows: row0 + {rows}", f"thread tile cols: col0 + {cols}",
              "", f"register plan: accumulators {r.acc[0][0]}..{r.acc[-1][-1]} ({cfg.tm * cfg.tn}), "
                  f"A fragments {' / '.join(f'{b[0]}..{b[-1]}' for b in r.frag_a)}, "
                  f"B fragments {' / '.join(f'{b[0]}..{b[-1]}' for b in r.frag_b)}",
              f"FFMA order per k-slice ({cfg.ffma_order}, (i, j)): {' '.join(f'{i}{j}' for i, j in r.ffma_order)}"]
    if cfg.split_k > 1:
        lines += splitk.header_lines(cfg.bk, cfg.split_k, None, cfg.batched)
    return lines
