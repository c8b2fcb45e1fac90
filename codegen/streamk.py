"""Stream-K: the last partial wave of tiles spread evenly over every SM.

A one-pass SGEMM launches one block per BM x BN tile.  With T tiles and P block slots
on the GPU (SMs x blocks an SM), the last wave holds T mod P tiles and leaves the other
SMs idle: 4096^3 in 128x256 tiles is 512 tiles on 132 slots, 3.88 waves run in the time
of 4 (3% lost); 3072^3 is 2.18 waves in the time of 3 (27% lost).

With `stream_k` (PTX backend) the SGEMM is three launches of one module, the
"data-parallel + stream-K" hybrid of Osama et al. (Stream-K, PPoPP 2023):

1. whole tiles: the first (T div P) * P tiles, whole waves, by the one-pass kernel with
   tile = block index (tile_n fastest) - the same k loop as the one-pass kernel;
2. ranges: the R = T mod P remaining tiles make R * I k-tile iterations (I = ceil(K/BK)),
   dealt out as P' <= P contiguous ranges as even as possible (the first ones one more),
   so every SM ends within one k-tile of the others.  A block of this work-list kernel
   runs its range as items (tile, kt_begin, kt_end): a range that crosses a tile
   boundary is two items.  P' is chosen so that every range holds at least MIN_ITERS
   k-tiles (a range's first k-tile has nothing to overlap it); when P' <= R, or the last
   wave is more than MAX_LAST_WAVE_FILL full, stream-K gains nothing and the whole-tile
   launch takes every tile;
3. fix-up, in the ranges kernel, as a tree of fan-out F (FIXUP_FANOUT, 4; fixup_children): a split
   tile's pieces are numbered 0 (the first piece, k-tile 0: the last item of the range before)
   to count, in K order; each later piece starts its range, so its block runs it first.  Piece
   i adds, at stride s = 1, F, F^2, ... while i is a multiple of s * F, the sums of its children
   i + s, i + 2s, ..., i + (F-1)s up to count - each waited for on its flag (acquire), its flag
   lowered for the next launch, added in order - and a later piece then stores its accumulators
   (no alpha, no beta) to its partial slot of BM x BN floats (thread-major: every thread's
   thread tile, element (i, j) of thread t at (i * TN + j) * threads + t, so that a warp's store
   of one element is 128 contiguous bytes; rows and columns outside the matrix included, as
   zeros) and raises the slot's flag (release); piece 0 writes C as the one-pass kernel does.
   The same bits on every run (a fixed order of adds, no atomics), no third launch, only the
   later pieces travel through memory, and piece 0 waits ceil(log_F(count + 1)) levels deep,
   adding at most F - 1 slots a level, not count in one (255x257x65537's tiles have 33 to 50
   pieces; tiles of up to F pieces keep one level).  The waits need the later pieces' blocks to
   run: the ranges are at most one wave (P blocks), on a GPU the whole-tile launch has left; a
   piece waits only for pieces of later ranges.

The work list, as int32 in device memory (runtime/sgemm_launch.py uploads it once):
  items  [n_items][8]  (tile_m << 16 | tile_n, kt_begin, kt_end, slot or -1, first slot,
                        slot count, 0, 0 - padding to 32 bytes, the kernel loads the
                        first four as one aligned v4): slot >= 0 for a later piece; (first, count) the
                        split tile's slots on every piece of it, (0, 0) on a whole tile
  starts [ranges + 1]  block b of the ranges kernel runs items starts[b] .. starts[b+1]-1
  flags  [slots]       0, set to 1 when the slot holds its piece's sums, back to 0 once added
Tile coordinates are packed in 16 bits each: M and N up to 65535 tiles.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ..errors import InputError


# A stream-K range gets at least this many k-tiles (fewer ranges than SMs otherwise).
MIN_ITERS = 8
# Stream-K only when the last wave is at most this full: the gain is the idle part of one
# wave, the cost the partial tiles' traffic and a work-list kernel about 10% slower per
# k-tile.  Measured: with a reduce launch (docs/tuning.md, 72c049a run 2) last waves 97% and
# 94% full (2048^3, 1024x8192x1024) lost 13-15% and 88% (4096^3) broke even; with the fix-up
# (0944d5f, lab/experiments/streamk_fill.py) 88% gains 0.6%, 73% (6144^3) 2.2%.
MAX_LAST_WAVE_FILL = 0.9
MAX_TILES_PER_DIM = 1 << 16
ITEM_BYTES = 32  # one item of the work list: 8 int32, the last two padding (its first four are one 16-byte load)
# Children a node of the fix-up tree adds at most, plus one (fixup_children; the kernel's loop is
# ptx_streamk.StreamKMixin.gather).  Two made 512^3's four-piece tiles (sq-32x32) wait two levels deep
# (13.7 -> 17.4 us); four keeps tiles of up to four pieces at one level, as the flat fix-up had them,
# and 255x257x65537's 50 at three.
FIXUP_FANOUT = 4


@dataclass(frozen=True)
class StreamKPlan:
    """Who computes what: see the module docstring.  Pure numbers, no device."""
    tiles_m: int
    tiles_n: int
    k_tiles: int
    slots_per_wave: int  # P: blocks the GPU runs at once
    whole_tiles: int  # tiles 0 .. whole_tiles-1 (tile_n fastest): launch 1, one block each
    # (tile_m, tile_n, kt_begin, kt_end, slot, first, count): slot >= 0 stores a later piece;
    # count > 0: the first piece, of a tile whose later pieces have slots first .. first+count-1
    items: Tuple[Tuple[int, int, int, int, int, int, int], ...]
    starts: Tuple[int, ...]  # len ranges + 1
    slots: int
    tile_floats: int  # floats of a partial slot: BM * BN (+ BM with config.last_col)

    @property
    def ranges(self) -> int:
        return len(self.starts) - 1

    @property
    def stream_k_tiles(self) -> int:
        return self.tiles_m * self.tiles_n - self.whole_tiles

    @property
    def split_tiles(self) -> int:
        return sum(1 for it in self.items if it[6] > 0)

    @property
    def starts_offset(self) -> int:
        """Byte offset of `starts` in work_ints()."""
        return ITEM_BYTES * len(self.items)

    @property
    def flags_offset(self) -> int:
        """Byte offset of the slots' flags in work_ints()."""
        return self.starts_offset + 4 * len(self.starts)

    def work_ints(self) -> np.ndarray:
        """The work list as the kernel reads it (int32): items, starts, flags (zero).  A later
        piece's (first, count) ints are its split tile's, the first piece's (the fix-up tree's
        numbers: the later piece in slot s is piece s - first + 1 of 0 .. count)."""
        tiles = {(tm, tn): (f, c) for tm, tn, _, _, s, f, c in self.items if c > 0}
        items = np.asarray([((tm << 16) | tn, k0, k1, s) + (tiles[(tm, tn)] if s >= 0 else (f, c)) + (0, 0)
                            for tm, tn, k0, k1, s, f, c in self.items], dtype=np.int32).reshape(-1)
        return np.concatenate([items, np.asarray(self.starts, dtype=np.int32), np.zeros(self.slots, dtype=np.int32)])

    @property
    def workspace_bytes(self) -> int:
        """The partial slots (the work list and flags live in a buffer of their own)."""
        return 4 * self.slots * self.tile_floats

    def describe(self) -> str:
        t = self.tiles_m * self.tiles_n
        depth = max((len(fixup_children(0, c)) for *_, c in self.items if c > 0), default=0)
        return (f"stream-K: {t} tiles of {self.k_tiles} k-tiles on {self.slots_per_wave} block slots: "
                f"{self.whole_tiles} whole tiles, {self.stream_k_tiles} tiles in {self.ranges} even K ranges; "
                f"{self.split_tiles} tiles split, {self.slots} partial tiles through memory"
                + (f", a fix-up tree {depth} level{'s' if depth > 1 else ''} deep" if depth else ""))


def fixup_children(index: int, count: int, fanout: int = FIXUP_FANOUT) -> List[List[int]]:
    """Piece `index`'s children in the fix-up tree of a split tile of pieces 0 .. count, level by
    level: at stride s = 1, F, F^2, ... while index is a multiple of s * F, the pieces index + s,
    index + 2s, ..., index + (F-1)s that are <= count (the rule ptx_streamk.gather runs: it waits
    for a level's children, then adds their sums in this order)."""
    levels, stride = [], 1
    while index % (stride * fanout) == 0 and index + stride <= count:
        levels.append([c for c in range(index + stride, index + fanout * stride, stride) if c <= count])
        stride *= fanout
    return levels


def slot_floats(bm: int, bn: int, last_col: bool = False) -> int:
    """Floats of one partial slot: the BM x BN tile, then with config.last_col the BM sums of C's
    fused last column (codegen/ptx_last_col.py).  The kernel's slot addresses and the runtime's
    workspace both come from here."""
    return bm * bn + (bm if last_col else 0)


def plan_stream_k(m: int, n: int, k: int, bm: int, bn: int, bk: int, slots_per_wave: int,
                  min_iters: Optional[int] = None, last_col: bool = False) -> StreamKPlan:
    """The work for an M x N x K SGEMM in BM x BN x BK tiles on `slots_per_wave` block
    slots (SMs x blocks an SM); ranges of at least `min_iters` k-tiles (MIN_ITERS); partial
    slots of slot_floats(bm, bn, last_col)."""
    min_iters = MIN_ITERS if min_iters is None else min_iters
    for name, v in (("m", m), ("n", n), ("k", k)):
        if v < 0:
            raise InputError(f"{name}={v}: must be >= 0")
    if slots_per_wave < 1:
        raise InputError(f"slots_per_wave={slots_per_wave}: must be >= 1 (SMs x blocks an SM)")
    tiles_m, tiles_n, iters = -(-m // bm), -(-n // bn), -(-k // bk)
    if tiles_m >= MAX_TILES_PER_DIM or tiles_n >= MAX_TILES_PER_DIM:
        raise InputError(f"{tiles_m} x {tiles_n} tiles: stream-K packs tile coordinates in 16 bits "
                         f"(at most {MAX_TILES_PER_DIM - 1} a dimension)")
    total = tiles_m * tiles_n
    p = slots_per_wave
    rem = total % p
    ranges = min(p, rem * iters // max(1, min_iters)) if iters else 0
    if ranges <= rem or rem > MAX_LAST_WAVE_FILL * p:  # no stream-K gain: every tile whole
        rem, ranges = 0, 0
    whole = total - rem
    pieces: List[List[int]] = []  # [tm, tn, kt_begin, kt_end, slot, first, count]
    starts = [0]
    slots = 0
    if ranges:
        q, r = divmod(rem * iters, ranges)
        begin = 0
        owner = None  # the first piece of the tile being dealt out
        for c in range(ranges):
            end = begin + q + (1 if c < r else 0)
            it = begin
            while it < end:
                t, k0 = divmod(it, iters)
                k1 = min(iters, k0 + end - it)
                tm, tn = divmod(whole + t, tiles_n)
                piece = [tm, tn, k0, k1, -1, 0, 0]
                if k0 == 0:
                    owner = piece
                else:  # a later piece: a slot of its own, added by the tile's first piece
                    piece[4] = slots
                    if owner[6] == 0:
                        owner[5] = slots
                    owner[6] += 1
                    slots += 1
                pieces.append(piece)
                it += k1 - k0
            starts.append(len(pieces))
            begin = end
    return StreamKPlan(tiles_m=tiles_m, tiles_n=tiles_n, k_tiles=iters, slots_per_wave=p, whole_tiles=whole,
                       items=tuple(tuple(x) for x in pieces), starts=tuple(starts), slots=slots,
                       tile_floats=slot_floats(bm, bn, last_col))
