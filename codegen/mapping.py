"""Index functions: thread -> tile coordinates, and tile coordinates -> addresses.

Each function is written once in plain arithmetic over `IntLike` (see expr.py):
the emitter calls them with symbols and prints the result into the kernel, the
shared-memory analysis calls them with numbers for every lane.  Nothing else in
the project computes a thread's rows, columns or shared-memory offsets.
"""
from __future__ import annotations

from typing import Tuple

from .config import SgemmConfig
from .expr import IntLike

WARP = 32


def lane_coords(cfg: SgemmConfig, lane: IntLike) -> Tuple[IntLike, IntLike]:
    """(ly, lx): a lane's position in the warp's LY x LX grid of thread tiles.

    linear: row-major, lanes 0..LX-1 on the first row (the seed ladder's layout).
    zorder: lanes go in 2x1 columns along N, so each group of 4 lanes (and each
    quarter warp) covers a 2x2 block of thread tiles: lane 0 over lane 1, 2 over 3,
    ..., and lanes 16..31 the same two rows further down (maxas; seed 001).  With
    LX = 8 a quarter warp touches 2 rows and 4 columns of thread tiles, so its
    128-bit fragment loads broadcast instead of conflicting.
    """
    lx_count = cfg.lanes_n
    if cfg.mapping == "zorder":
        lx = (lane // 2) % lx_count
        ly = (lane // (2 * lx_count)) * 2 + lane % 2
        return ly, lx
    return lane // lx_count, lane % lx_count


def thread_origin(cfg: SgemmConfig, tid: IntLike) -> Tuple[IntLike, IntLike]:
    """(row0, col0): block-tile coordinates of the first element of a thread's tile."""
    warp, lane = tid // WARP, tid % WARP
    warp_m, warp_n = warp // cfg.warps[1], warp % cfg.warps[1]
    ly, lx = lane_coords(cfg, lane)
    wtm, wtn = cfg.warp_tile
    return warp_m * wtm + ly * cfg.piece_m, warp_n * wtn + lx * cfg.piece_n


def tile_row(cfg: SgemmConfig, row0: IntLike, i: int) -> IntLike:
    """Block-tile row of the thread's i-th accumulator row.

    Contiguous tiles: row0 + i.  Split tiles: pieces of 4 rows, one per
    lanes_m * 4 rows of the warp tile (maxas: +0 and +16 for a 32-row warp tile).
    """
    pm = cfg.piece_m
    return row0 + (i // pm) * (cfg.lanes_m * pm) + i % pm


def tile_col(cfg: SgemmConfig, col0: IntLike, j: int) -> IntLike:
    pn = cfg.piece_n
    return col0 + (j // pn) * (cfg.lanes_n * pn) + j % pn


# ---- C through shared memory (config.c_staged) ------------------------------------
# Pass i of the staged epilogue: every thread writes its i-th accumulator row to slot
# c_stage_slot of the staging rows (columns as in the block tile), then the block reads the
# slots back a warp a row (c_stage_element) and stores them to C's row c_stage_row.
def c_stage_slot(cfg: SgemmConfig, tid: IntLike) -> IntLike:
    """The thread's staging row: its tile's row among the BM / TM tile rows of the block
    (warp_m * lanes_m + ly, so that thread_origin's row0 is c_stage_origin of it)."""
    warp, lane = tid // WARP, tid % WARP
    ly, _ = lane_coords(cfg, lane)
    return (warp // cfg.warps[1]) * cfg.lanes_m + ly


def c_stage_origin(cfg: SgemmConfig, slot: IntLike) -> IntLike:
    """row0 (thread_origin) of the threads whose staging row is `slot`."""
    return (slot // cfg.lanes_m) * cfg.warp_tile[0] + (slot % cfg.lanes_m) * cfg.piece_m


def c_stage_row(cfg: SgemmConfig, slot: IntLike, i: int) -> IntLike:
    """Block-tile row that staging row `slot` holds in pass i."""
    return tile_row(cfg, c_stage_origin(cfg, slot), i)


def c_stage_offset(cfg: SgemmConfig, slot: IntLike, col: IntLike) -> IntLike:
    """Float offset of block-tile column `col` of staging row `slot` in shared memory."""
    return slot * (cfg.bn + cfg.c_stage_pad) + col


def c_stage_element(cfg: SgemmConfig, tid: IntLike, q: int) -> Tuple[IntLike, IntLike]:
    """(slot, col): the q-th float (q < TN) a thread stores from the staging rows in a pass.  A
    staging row is BN / TN consecutive threads' (as many threads as write it), each thread on one
    row, on columns BN / TN apart: a warp's store covers runs of BN / TN consecutive columns (16 on the
    8x16 thread tiles, 32 at most) in 32 / (BN / TN) rows, and a thread's TN floats are immediates from one
    address."""
    per_row = cfg.bn // cfg.tn
    return tid // per_row, tid % per_row + q * per_row


# ---- operands in global memory ---------------------------------------------------
def a_element(cfg: SgemmConfig, m: IntLike, k: IntLike) -> Tuple[IntLike, IntLike]:
    """(line, offset): op(A)'s element (m, k) lies at A[line * lda + offset].  A is read
    along `offset` (its unit-stride dimension): K, or M with trans_a (A stored K x M)."""
    return (k, m) if cfg.trans_a else (m, k)


def b_element(cfg: SgemmConfig, k: IntLike, n: IntLike) -> Tuple[IntLike, IntLike]:
    """(line, offset): op(B)'s element (k, n) lies at B[line * ldb + offset]; N, or K with
    trans_b (B stored N x K)."""
    return (n, k) if cfg.trans_b else (k, n)


def k_in_line(cfg: SgemmConfig, operand: str) -> bool:
    """Does K run along the operand's lines (its leading dimension) rather than its unit stride?  Then the
    operand's vectors run along its block dimension (B's along N, A^T's along M)."""
    line, _ = a_element(cfg, 0, 1) if operand == "A" else b_element(cfg, 1, 0)
    return line == 1


def a_vector_step(cfg: SgemmConfig) -> Tuple[int, int]:
    """(dm, dk) between consecutive floats of a copied A vector: along A's unit stride."""
    return (1, 0) if cfg.trans_a else (0, 1)


def b_vector_step(cfg: SgemmConfig) -> Tuple[int, int]:
    """(dk, dn) between consecutive floats of a copied B vector."""
    return (1, 0) if cfg.trans_b else (0, 1)


# ---- global -> shared copy: which elements a thread moves ------------------------
def _copy_line(length: int, cfg: SgemmConfig, tid: IntLike, r: int) -> Tuple[IntLike, IntLike]:
    """(line, offset) of the r-th vector of thread `tid` in a tile whose lines (rows in
    global memory) are `length` floats: consecutive threads take consecutive vectors of a
    line, so a warp's loads coalesce."""
    per_line = length // cfg.vec
    l = tid + r * cfg.threads
    return l // per_line, (l % per_line) * cfg.vec


def a_copy_coords(cfg: SgemmConfig, tid: IntLike, r: int) -> Tuple[IntLike, IntLike]:
    """(m, k) in the A tile of the first float of the r-th vector that thread `tid` copies.

    The vector runs along A's unit stride (a_vector_step): K, or M with trans_a, whose
    K x M tile is then read row by row of the stored matrix."""
    if cfg.trans_a:
        k, m = _copy_line(cfg.bm, cfg, tid, r)
        return m, k
    return _copy_line(cfg.bk, cfg, tid, r)


def b_copy_coords(cfg: SgemmConfig, tid: IntLike, r: int) -> Tuple[IntLike, IntLike]:
    """(k, n) in the B tile of the first float of the r-th vector that thread `tid` copies.

    trans_b: the tile is BN lines of BK floats (B stored N x K), read along K; a line's
    vectors go to consecutive threads (lanes 2t, 2t+1 read one 32-byte sector at BK=8,
    vec 4), and each float lands in its own row of Bs (scalar stores: tests/codegen/test_layouts.py
    reports their bank conflicts)."""
    if cfg.trans_b:
        n, k = _copy_line(cfg.bk, cfg, tid, r)
        return k, n
    return _copy_line(cfg.bn, cfg, tid, r)


def a_float_coords(cfg: SgemmConfig, tid: IntLike, j: int) -> Tuple[IntLike, IntLike]:
    """(m, k) in the A tile of the j-th float thread `tid` copies on unaligned rows
    (config.unaligned_rows): consecutive threads take consecutive floats of a line, so a warp's
    per-float load reads contiguous floats, as the float4 copies' vectors are contiguous."""
    if cfg.trans_a:
        k, m = _float_line(cfg.bm, cfg, tid, j)
        return m, k
    return _float_line(cfg.bk, cfg, tid, j)


def b_float_coords(cfg: SgemmConfig, tid: IntLike, j: int) -> Tuple[IntLike, IntLike]:
    """(k, n) in the B tile of the j-th float thread `tid` copies on unaligned rows."""
    if cfg.trans_b:
        n, k = _float_line(cfg.bk, cfg, tid, j)
        return k, n
    return _float_line(cfg.bn, cfg, tid, j)


def _float_line(length: int, cfg: SgemmConfig, tid: IntLike, j: int) -> Tuple[IntLike, IntLike]:
    """(line, offset) of float j of thread `tid` in a tile of `length`-float lines."""
    f = tid + j * cfg.threads
    return f // length, f % length


def a_copy_element(cfg: SgemmConfig, tid: IntLike, r: int, e: int) -> Tuple[IntLike, IntLike]:
    """(m, k) of float e of the r-th A vector of thread `tid`.  Each coordinate from its own
    a_copy_coords call: the PTX ranges kernel (no common subexpressions inside its item
    loop) has always printed the two computations, and the default kernels' text is kept
    byte for byte (tests/codegen/test_layouts_golden.py); ptxas merges them."""
    dm, dk = a_vector_step(cfg)
    return a_copy_coords(cfg, tid, r)[0] + e * dm, a_copy_coords(cfg, tid, r)[1] + e * dk


def b_copy_element(cfg: SgemmConfig, tid: IntLike, r: int, e: int) -> Tuple[IntLike, IntLike]:
    """(k, n) of float e of the r-th B vector of thread `tid` (as a_copy_element)."""
    dk, dn = b_vector_step(cfg)
    return b_copy_coords(cfg, tid, r)[0] + e * dk, b_copy_coords(cfg, tid, r)[1] + e * dn


def a_store_contiguous(cfg: SgemmConfig) -> bool:
    """Does a copied A vector stay contiguous in As (one vector store), or does each float
    go to its own row (scalar stores)?  Contiguous when As runs along A's unit stride."""
    return cfg.a_transposed == cfg.trans_a


def b_store_contiguous(cfg: SgemmConfig) -> bool:
    """Bs is [BK][BN]: contiguous along N, so a trans_b vector (along K) is stored a float
    at a time."""
    return not cfg.trans_b


# ---- shared-memory layout (float offsets inside one stage) -----------------------
def as_index(cfg: SgemmConfig, m: IntLike, k: IntLike) -> IntLike:
    """Offset of A-tile element (m, k) in As."""
    stride = cfg.as_shape[1]
    if cfg.a_transposed:
        return k * stride + m
    return m * stride + k


def bs_index(cfg: SgemmConfig, k: IntLike, n: IntLike) -> IntLike:
    """Offset of B-tile element (k, n) in Bs (right after As in each stage)."""
    return cfg.as_shape[0] * cfg.as_shape[1] + k * cfg.bs_shape[1] + n


def xs_index(cfg: SgemmConfig, k: IntLike) -> IntLike:
    """Offset of B's last column at k (config.last_col) in a stage: right after Bs."""
    return cfg.as_shape[0] * cfg.as_shape[1] + cfg.bs_shape[0] * cfg.bs_shape[1] + k


def stage_offset(cfg: SgemmConfig, stage: IntLike) -> IntLike:
    return stage * cfg.smem_floats_per_stage
