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


# ---- global -> shared copy: which elements a thread moves ------------------------
def a_copy_coords(cfg: SgemmConfig, tid: IntLike, r: int) -> Tuple[IntLike, IntLike]:
    """(m, k) in the A tile of the r-th vector that thread `tid` copies.

    Consecutive threads take consecutive vectors along K (a row of A is contiguous
    in global memory), so a warp's loads coalesce."""
    per_row = cfg.bk // cfg.vec
    l = tid + r * cfg.threads
    return l // per_row, (l % per_row) * cfg.vec


def b_copy_coords(cfg: SgemmConfig, tid: IntLike, r: int) -> Tuple[IntLike, IntLike]:
    """(k, n) in the B tile of the r-th vector that thread `tid` copies."""
    per_row = cfg.bn // cfg.vec
    l = tid + r * cfg.threads
    return l // per_row, (l % per_row) * cfg.vec


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


def stage_offset(cfg: SgemmConfig, stage: IntLike) -> IntLike:
    return stage * cfg.smem_floats_per_stage
