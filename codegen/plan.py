"""The plan of an SGEMM kernel: register plan, FFMA order, and every memory access.

The plan is the decided kernel, before any text: which named registers hold the
accumulators, the A/B fragments (double-buffered for register prefetch) and the
global->shared staging; the order of the FFMAs of one k-slice; and each global
load, shared store and shared load with the index function that gives its
address.  The kernel program (codegen/program.py) puts them in order, and the CUDA C and
PTX renderers spell it; the shared-memory bank analysis evaluates the same accesses for
each lane.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Tuple

from . import mapping as mp
from .config import SgemmConfig
from .expr import IntLike, Sym


@dataclass(frozen=True)
class ThreadVars:
    """The per-thread values index functions start from: symbols for the emitter
    (declared once at the top of the kernel), numbers for the analysis."""
    tid: IntLike
    row0: IntLike
    col0: IntLike

    @staticmethod
    def symbolic() -> "ThreadVars":
        return ThreadVars(Sym("tid"), Sym("row0"), Sym("col0"))

    @staticmethod
    def numeric(cfg: SgemmConfig, tid: int) -> "ThreadVars":
        row0, col0 = mp.thread_origin(cfg, tid)
        return ThreadVars(tid, row0, col0)


@dataclass(frozen=True)
class SmemAccess:
    """One shared-memory instruction of a warp, as the kernel issues it."""
    op: str  # "LDS" or "STS"
    operand: str  # "A" or "B"
    width: int  # floats per lane: 1 or 4
    what: str  # human-readable: which tile elements it moves
    offset: Callable[[ThreadVars], IntLike]  # float offset inside one stage buffer
    regs: Tuple[str, ...]  # registers read (STS) or written (LDS), in vector order


@dataclass(frozen=True)
class GlobalCopy:
    """One vector of a tile that a thread copies global -> (staging registers) -> shared."""
    operand: str
    width: int
    coords: Callable[[ThreadVars], Tuple[IntLike, IntLike]]  # (row, col) in the operand's tile
    regs: Tuple[str, ...]  # staging registers (vector order)
    stores: Tuple[SmemAccess, ...]  # one vector store, or `width` scalar stores (transposed A)


@dataclass(frozen=True)
class FloatCopy(GlobalCopy):
    """One float of the unaligned rows' copies (float_copies), with its distance from float 0
    of the same thread, the same for every thread (float_copies checks both)."""
    tile_delta: Tuple[int, int]  # (row, col) in the operand's tile
    smem_delta: int  # floats in shared memory, between the two floats' stores


@dataclass(frozen=True)
class RegisterPlan:
    acc: Tuple[Tuple[str, ...], ...]  # acc[i][j]
    frag_a: Tuple[Tuple[str, ...], ...]  # frag_a[buffer][i]
    frag_b: Tuple[Tuple[str, ...], ...]  # frag_b[buffer][j]
    ffma_order: Tuple[Tuple[int, int], ...]  # (i, j) of each FFMA of one k-slice

    @property
    def buffers(self) -> int:
        return len(self.frag_a)

    def all_registers(self) -> Tuple[str, ...]:
        out = [r for row in self.acc for r in row]
        for bufs in (self.frag_a, self.frag_b):
            out += [r for buf in bufs for r in buf]
        return tuple(out)


@dataclass(frozen=True)
class SgemmPlan:
    cfg: SgemmConfig
    regs: RegisterPlan
    a_copies: Tuple[GlobalCopy, ...]
    b_copies: Tuple[GlobalCopy, ...]
    # a/b_frag_loads[kk]: the shared-memory loads of k-slice kk, into fragment buffer kk % regs.buffers
    a_frag_loads: Tuple[Tuple[SmemAccess, ...], ...]
    b_frag_loads: Tuple[Tuple[SmemAccess, ...], ...]
    # unaligned rows (config.unaligned_rows): the same tile a float a copy, consecutive threads
    # on consecutive floats (mapping.a/b_float_coords), into the copies' staging registers;
    # () where the operand's floats are not a fixed distance apart for every thread
    a_floats: Tuple[FloatCopy, ...] = ()
    b_floats: Tuple[FloatCopy, ...] = ()

    def smem_accesses_per_ktile(self) -> Tuple[SmemAccess, ...]:
        """Every shared-memory instruction one warp issues per k-tile."""
        out = []
        for copy in self.a_copies + self.b_copies:
            out += copy.stores
        for kk in range(self.cfg.bk if self.cfg.stages else 0):
            out += self.a_frag_loads[kk] + self.b_frag_loads[kk]
        return tuple(out)

    @property
    def ffmas_per_ktile(self) -> int:
        return self.cfg.bk * len(self.regs.ffma_order)


def zigzag_order(tm: int, tn: int) -> Tuple[Tuple[int, int], ...]:
    """Row by row, alternating direction: consecutive FFMAs share their A operand
    along a row and their B operand at each turn, which gives the operand reuse
    cache a hit on every FFMA but the first (maxas's zig-zag)."""
    order = []
    for i in range(tm):
        cols = range(tn) if i % 2 == 0 else range(tn - 1, -1, -1)
        order += [(i, j) for j in cols]
    return tuple(order)


def colzig_order(tm: int, tn: int) -> Tuple[Tuple[int, int], ...]:
    """Column by column, alternating direction: B operand shared along a column."""
    return tuple((i, j) for j, i in zigzag_order(tn, tm))


def swirl_order(tm: int, tn: int) -> Tuple[Tuple[int, int], ...]:
    """maxas's "swirl": two-row bands walked column by column, the pair of rows
    alternating, the bands alternating direction: each FFMA shares one operand with
    the one before it, and A operands alternate between two registers."""
    out = []
    for b in range(0, tm, 2):
        cols = range(tn) if (b // 2) % 2 == 0 else range(tn - 1, -1, -1)
        for k, j in enumerate(cols):
            rows = (b, b + 1) if k % 2 == 0 else (b + 1, b)
            out += [(i, j) for i in rows if i < tm]
    return tuple(out)


def rowmajor_order(tm: int, tn: int) -> Tuple[Tuple[int, int], ...]:
    return tuple((i, j) for i in range(tm) for j in range(tn))


FFMA_ORDER_FUNCTIONS = {"zigzag": zigzag_order, "colzig": colzig_order, "swirl": swirl_order,
                        "rowmajor": rowmajor_order}


def register_plan(cfg: SgemmConfig) -> RegisterPlan:
    bufs = 2 if cfg.reg_prefetch else 1
    return RegisterPlan(
        acc=tuple(tuple(f"c{i}_{j}" for j in range(cfg.tn)) for i in range(cfg.tm)),
        frag_a=tuple(tuple(f"a{b}_{i}" for i in range(cfg.tm)) for b in range(bufs)),
        frag_b=tuple(tuple(f"b{b}_{j}" for j in range(cfg.tn)) for b in range(bufs)),
        ffma_order=FFMA_ORDER_FUNCTIONS[cfg.ffma_order](cfg.tm, cfg.tn),
    )


def _copies(cfg: SgemmConfig, operand: str) -> Tuple[GlobalCopy, ...]:
    """The global -> shared copies of one operand: each thread's vectors along the operand's
    unit stride (mapping.a/b_copy_coords), stored as one vector where the shared tile is
    contiguous in the same direction, else a float at a time into consecutive rows (A
    row-major in global and transposed in shared memory: seed 001; or B^T)."""
    if operand == "A":
        n, coords, element, index = cfg.a_loads_per_thread, mp.a_copy_coords, mp.a_copy_element, mp.as_index
        contiguous, p = mp.a_store_contiguous(cfg), "a"
    else:
        n, coords, element, index = cfg.b_loads_per_thread, mp.b_copy_coords, mp.b_copy_element, mp.bs_index
        contiguous, p = mp.b_store_contiguous(cfg), "b"
    copies = []
    for r in range(n):
        regs = tuple(f"g{p}{r}_{e}" for e in range(cfg.vec))
        if contiguous:
            stores = (SmemAccess("STS", operand, cfg.vec, f"{operand} tile copy {r}",
                                 (lambda tv, r=r: index(cfg, *coords(cfg, tv.tid, r))), regs),)
        else:
            stores = tuple(
                SmemAccess("STS", operand, 1, f"{operand} tile copy {r}, element {e}",
                           (lambda tv, r=r, e=e: index(cfg, *element(cfg, tv.tid, r, e))), (regs[e],))
                for e in range(cfg.vec))
        copies.append(GlobalCopy(operand, cfg.vec, (lambda tv, r=r: coords(cfg, tv.tid, r)), regs, stores))
    return tuple(copies)


def float_copies(cfg: SgemmConfig, operand: str) -> Tuple[FloatCopy, ...]:
    """Unaligned rows: the operand's tile a float a copy (mapping.a/b_float_coords), float j in
    staging register j of the vector copies (copy j // vec, element j % vec), each stored by
    itself.  Only where float j lies at a fixed (row, col) distance from float 0 for every
    thread (the threads a multiple of the tile's line, or the line a multiple of the threads),
    and its store at a fixed distance from float 0's: the copy then steps one pointer, and the
    stores are one address and immediates; () otherwise."""
    if operand == "A":
        n, coords, index, p = cfg.a_loads_per_thread * cfg.vec, mp.a_float_coords, mp.as_index, "a"
    else:
        n, coords, index, p = cfg.b_loads_per_thread * cfg.vec, mp.b_float_coords, mp.bs_index, "b"
    deltas = []
    for j in range(n):
        found = set()
        for t in range(cfg.threads):
            at, at0 = coords(cfg, t, j), coords(cfg, t, 0)
            found.add((tuple(x - y for x, y in zip(at, at0)), index(cfg, *at) - index(cfg, *at0)))
        if len(found) != 1:
            return ()
        deltas.append(found.pop())
    out = []
    for j, (tile_delta, smem_delta) in enumerate(deltas):
        reg = (f"g{p}{j // cfg.vec}_{j % cfg.vec}",)
        store = SmemAccess("STS", operand, 1, f"{operand} tile float {j}",
                           (lambda tv, j=j: index(cfg, *coords(cfg, tv.tid, j))), reg)
        out.append(FloatCopy(operand, 1, (lambda tv, j=j: coords(cfg, tv.tid, j)), reg, (store,), tile_delta,
                             smem_delta))
    return tuple(out)


def _frag_loads(cfg: SgemmConfig, regs: RegisterPlan, operand: str, kk: int, buf: int) -> Tuple[SmemAccess, ...]:
    """Loads of one k-slice's A (or B) fragment: one per contiguous run of `vec`
    elements of the thread tile (LDS.128 per 4x4 piece when vec=4)."""
    n = cfg.tm if operand == "A" else cfg.tn
    names = regs.frag_a[buf] if operand == "A" else regs.frag_b[buf]
    # A fragments are contiguous in As only when As is transposed.
    width = cfg.vec if (operand == "B" or cfg.a_transposed) else 1
    loads = []
    for i in range(0, n, width):
        if operand == "A":
            off = (lambda tv, i=i: mp.as_index(cfg, mp.tile_row(cfg, tv.row0, i), kk))
        else:
            off = (lambda tv, i=i: mp.bs_index(cfg, kk, mp.tile_col(cfg, tv.col0, i)))
        what = f"{operand} fragment {i}..{i + width - 1}, k-slice {kk}" if width > 1 else \
            f"{operand} fragment {i}, k-slice {kk}"
        loads.append(SmemAccess("LDS", operand, width, what, off, names[i:i + width]))
    return tuple(loads)


def require_sgemm_config(cfg, where: str) -> None:
    """TypeError naming the argument when `cfg` is not an SgemmConfig (a preset name, an
    SgemvConfig, None), instead of an AttributeError deep inside the plan."""
    if isinstance(cfg, SgemmConfig):
        return
    hint = ""
    if isinstance(cfg, str):
        hint = f"; for a preset use get_preset({cfg!r}).config"
    elif type(cfg).__name__ == "SgemvConfig":
        hint = "; SGEMV kernels are emitted by regtile.codegen.emit.emit(cfg)"
    raise TypeError(f"{where}: cfg must be an SgemmConfig, got {type(cfg).__name__} {cfg!r:.60}{hint}")


def make_plan(cfg: SgemmConfig) -> SgemmPlan:
    require_sgemm_config(cfg, "make_plan")
    regs = register_plan(cfg)
    if cfg.stages == 0:
        return SgemmPlan(cfg, regs, (), (), (), ())
    bk = cfg.bk
    a_frags = tuple(_frag_loads(cfg, regs, "A", kk, kk % regs.buffers) for kk in range(bk))
    b_frags = tuple(_frag_loads(cfg, regs, "B", kk, kk % regs.buffers) for kk in range(bk))
    floats = {op: float_copies(cfg, op) if cfg.unaligned_rows else () for op in ("A", "B")}
    return SgemmPlan(cfg, regs, _copies(cfg, "A"), _copies(cfg, "B"), a_frags, b_frags, floats["A"], floats["B"])
