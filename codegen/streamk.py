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
3. reduce: an item that covers part of a tile's K stores its accumulators (no alpha, no
   beta) to a partial slot of BM x BN floats (row-major, ld BN; rows and columns outside
   the matrix included, as zeros); an item covering a whole tile writes C itself.  The
   slots of one tile are consecutive and in K order, and the reduce kernel computes
   C = alpha * (slot f + slot f+1 + ...) + beta * C in that order: the same bits on every
   run (no atomics).

The work list, as int32 in device memory (runtime/sgemm_launch.py uploads it once):
  items  [n_items][4]  (tile_m << 16 | tile_n, kt_begin, kt_end, slot or -1)
  starts [ranges + 1]  block b of the ranges kernel runs items starts[b] .. starts[b+1]-1
  tiles  [n_reduce][4] (tile_m << 16 | tile_n, first slot, slot count, 0), 16-byte aligned
Tile coordinates are packed in 16 bits each: M and N up to 65535 tiles.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from .kernel import STREAMK_REDUCE_PARAMS, KernelSource, LaunchGeometry

# A stream-K range gets at least this many k-tiles (fewer ranges than SMs otherwise).
MIN_ITERS = 8
# Stream-K only when the last wave is at most this full: the gain is the idle part of one
# wave, the cost the partial tiles' traffic, the reduce launch and a work-list kernel about
# 5% slower per k-tile.  Measured (docs/tuning.md, run 2 at 72c049a): last waves 97% and 94%
# full (2048^3, 1024x8192x1024) lost 13-15%, 88% (4096^3) broke even, 73% (6144^3) won 1.4%,
# 52% (8192^3) 3%, 18-25% (3072^3, 4097^3) 13-32%.
MAX_LAST_WAVE_FILL = 0.8
MAX_TILES_PER_DIM = 1 << 16
REDUCE_THREADS = 256


@dataclass(frozen=True)
class StreamKPlan:
    """Who computes what: see the module docstring.  Pure numbers, no device."""
    tiles_m: int
    tiles_n: int
    k_tiles: int
    slots_per_wave: int  # P: blocks the GPU runs at once
    whole_tiles: int  # tiles 0 .. whole_tiles-1 (tile_n fastest): launch 1, one block each
    items: Tuple[Tuple[int, int, int, int, int], ...]  # (tile_m, tile_n, kt_begin, kt_end, slot)
    starts: Tuple[int, ...]  # len ranges + 1
    reduce_tiles: Tuple[Tuple[int, int, int, int], ...]  # (tile_m, tile_n, first slot, slots)
    slots: int
    tile_floats: int  # BM * BN

    @property
    def ranges(self) -> int:
        return len(self.starts) - 1

    @property
    def stream_k_tiles(self) -> int:
        return self.tiles_m * self.tiles_n - self.whole_tiles

    @property
    def starts_offset(self) -> int:
        """Byte offset of `starts` in work_ints()."""
        return 16 * len(self.items)

    @property
    def tiles_offset(self) -> int:
        """Byte offset of the reduce tiles in work_ints(): 16-byte aligned (read as int4)."""
        return -(-(self.starts_offset + 4 * len(self.starts)) // 16) * 16

    def work_ints(self) -> np.ndarray:
        """The work list as the kernels read it (int32): items, starts, reduce tiles."""
        items = np.asarray([((tm << 16) | tn, k0, k1, s) for tm, tn, k0, k1, s in self.items],
                           dtype=np.int32).reshape(-1)
        tiles = np.asarray([((tm << 16) | tn, f, n, 0) for tm, tn, f, n in self.reduce_tiles],
                           dtype=np.int32).reshape(-1)
        pad = np.zeros((self.tiles_offset - self.starts_offset) // 4 - len(self.starts), dtype=np.int32)
        return np.concatenate([items, np.asarray(self.starts, dtype=np.int32), pad, tiles])

    @property
    def workspace_bytes(self) -> int:
        """The partial tiles (the work list lives in a buffer of its own)."""
        return 4 * self.slots * self.tile_floats

    def describe(self) -> str:
        t = self.tiles_m * self.tiles_n
        return (f"stream-K: {t} tiles of {self.k_tiles} k-tiles on {self.slots_per_wave} block slots: "
                f"{self.whole_tiles} whole tiles, {self.stream_k_tiles} tiles in {self.ranges} even K ranges; "
                f"{self.slots} partial tiles summed by the reduce kernel")


def plan_stream_k(m: int, n: int, k: int, bm: int, bn: int, bk: int, slots_per_wave: int,
                  min_iters: int = MIN_ITERS) -> StreamKPlan:
    """The work for an M x N x K SGEMM in BM x BN x BK tiles on `slots_per_wave` block
    slots (SMs x blocks an SM)."""
    for name, v in (("m", m), ("n", n), ("k", k)):
        if v < 0:
            raise ValueError(f"{name}={v}: must be >= 0")
    if slots_per_wave < 1:
        raise ValueError(f"slots_per_wave={slots_per_wave}: must be >= 1 (SMs x blocks an SM)")
    tiles_m, tiles_n, iters = -(-m // bm), -(-n // bn), -(-k // bk)
    if tiles_m >= MAX_TILES_PER_DIM or tiles_n >= MAX_TILES_PER_DIM:
        raise ValueError(f"{tiles_m} x {tiles_n} tiles: stream-K packs tile coordinates in 16 bits "
                         f"(at most {MAX_TILES_PER_DIM - 1} a dimension)")
    total = tiles_m * tiles_n
    p = slots_per_wave
    rem = total % p
    ranges = min(p, rem * iters // max(1, min_iters)) if iters else 0
    if ranges <= rem or rem > MAX_LAST_WAVE_FILL * p:  # no stream-K gain: every tile whole
        rem, ranges = 0, 0
    whole = total - rem
    items: List[Tuple[int, int, int, int, int]] = []
    starts = [0]
    reduce_tiles: List[Tuple[int, int, int, int]] = []
    slots = 0
    if ranges:
        q, r = divmod(rem * iters, ranges)
        begin = 0
        for c in range(ranges):
            end = begin + q + (1 if c < r else 0)
            it = begin
            while it < end:
                t, k0 = divmod(it, iters)
                k1 = min(iters, k0 + end - it)
                tm, tn = divmod(whole + t, tiles_n)
                slot = -1 if (k0, k1) == (0, iters) else slots
                items.append((tm, tn, k0, k1, slot))
                if slot >= 0:
                    if k0 == 0:
                        reduce_tiles.append((tm, tn, slot, 0))
                    tm_, tn_, f, cnt = reduce_tiles[-1]
                    reduce_tiles[-1] = (tm_, tn_, f, cnt + 1)
                    slots += 1
                it += k1 - k0
            starts.append(len(items))
            begin = end
    return StreamKPlan(tiles_m=tiles_m, tiles_n=tiles_n, k_tiles=iters, slots_per_wave=p, whole_tiles=whole,
                       items=tuple(items), starts=tuple(starts), reduce_tiles=tuple(reduce_tiles), slots=slots,
                       tile_floats=bm * bn)


# ---- the reduce kernel (PTX, in the SGEMM kernel's module) ----------------------------
REDUCE_VEC = 4  # consecutive tile elements a thread: one float4 of each partial slot
REDUCE_CHUNK = REDUCE_THREADS * REDUCE_VEC


def reduce_grid(plan: StreamKPlan) -> Tuple[int, int, int]:
    """(split tiles, chunks of REDUCE_CHUNK elements a tile, 1)."""
    return (len(plan.reduce_tiles), -(-plan.tile_floats // REDUCE_CHUNK), 1)


def emit_reduce_ptx(name: str, bm: int, bn: int) -> KernelSource:
    """C = alpha * (partials[f] + partials[f+1] + ...) + beta * C for split tile
    tiles[blockIdx.x] = (tile_m << 16 | tile_n, f, count), elements blockIdx.y *
    REDUCE_CHUNK + 4 * threadIdx.x .. + 3 of the tile (row-major, ld BN): slots added in
    K order; C read only when beta != 0, written as the SGEMM epilogue writes it
    (fma(alpha, sum, beta * C)); rows outside M and columns outside N untouched.  The
    entry only: it is appended to the SGEMM's PTX module."""
    tile = bm * bn
    assert tile % REDUCE_VEC == 0
    params = ",\n".join(f"\t.param {'.f32' if t == 'float' else '.u32' if t == 'int' else '.u64'} {name}_{p}"
                        for p, t in STREAMK_REDUCE_PARAMS)
    stores = []
    for j in range(REDUCE_VEC):
        stores.append(f"""\tadd.s32 %r14, %r10, {j};
\tdiv.u32 %r11, %r14, {bn};
\trem.u32 %r12, %r14, {bn};
\tadd.s32 %r11, %r8, %r11;  // row
\tadd.s32 %r12, %r9, %r12;  // column
\tsetp.lt.s32 %p2, %r11, %r0;
\tsetp.lt.and.s32 %p2, %r12, %r1, %p2;
\t@!%p2 bra $L_skip{j};
\tmul.wide.s32 %rd6, %r11, %r2;
\tcvt.s64.s32 %rd7, %r12;
\tadd.s64 %rd6, %rd6, %rd7;
\tshl.b64 %rd6, %rd6, 2;
\tadd.s64 %rd6, %rd1, %rd6;
\tmov.f32 %f4, 0f00000000;
\t@%p0 ld.global.f32 %f4, [%rd6];
\t@%p0 mul.f32 %f4, %f1, %f4;
\tfma.rn.f32 %f5, %f0, %s{j}, %f4;
\tst.global.f32 [%rd6], %f5;
$L_skip{j}:""")
    stores_text = "\n".join(stores)
    body = f"""
// stream-K reduction: the tiles whose K was split (codegen/streamk.py)
.visible .entry {name}(
{params}
)
.maxntid {REDUCE_THREADS}, 1, 1
{{
\t.reg .pred %p<6>;
\t.reg .b32 %r<24>;
\t.reg .f32 %f<8>;
\t.reg .f32 %s<4>;
\t.reg .f32 %t<4>;
\t.reg .b64 %rd<16>;
\tld.param.u32 %r0, [{name}_M];
\tld.param.u32 %r1, [{name}_N];
\tld.param.f32 %f0, [{name}_alpha];
\tld.param.u64 %rd0, [{name}_partials];
\tld.param.f32 %f1, [{name}_beta];
\tld.param.u64 %rd1, [{name}_C];
\tld.param.u32 %r2, [{name}_ldc];
\tld.param.u64 %rd2, [{name}_tiles];
\tcvta.to.global.u64 %rd0, %rd0;
\tcvta.to.global.u64 %rd1, %rd1;
\tcvta.to.global.u64 %rd2, %rd2;
\tmov.u32 %r3, %ctaid.y;
\tmov.u32 %r10, %tid.x;
\tshl.b32 %r10, %r10, 2;
\tmad.lo.s32 %r10, %r3, {REDUCE_CHUNK}, %r10;  // e: first of this thread's {REDUCE_VEC} elements
\tsetp.ge.u32 %p1, %r10, {tile};
\t@%p1 bra.uni $L_done;
\tmov.u32 %r3, %ctaid.x;
\tmul.wide.u32 %rd3, %r3, 16;
\tadd.s64 %rd3, %rd2, %rd3;
\tld.global.nc.v4.u32 {{%r4, %r5, %r6, %r7}}, [%rd3];  // (tile_m << 16 | tile_n, first slot, slots, 0)
\tshr.u32 %r8, %r4, 16;
\tmul.lo.s32 %r8, %r8, {bm};  // first row of the tile
\tand.b32 %r9, %r4, 65535;
\tmul.lo.s32 %r9, %r9, {bn};  // first column
\tmul.wide.u32 %rd4, %r5, {tile};
\tcvt.u64.u32 %rd5, %r10;
\tadd.s64 %rd4, %rd4, %rd5;
\tshl.b64 %rd4, %rd4, 2;
\tadd.s64 %rd5, %rd0, %rd4;  // slot f, element e
\tld.global.cs.v4.f32 {{%s0, %s1, %s2, %s3}}, [%rd5];
\tmov.u32 %r13, 1;
$L_sum:
\tsetp.ge.u32 %p3, %r13, %r6;
\t@%p3 bra.uni $L_summed;
\tadd.s64 %rd5, %rd5, {4 * tile};
\tld.global.cs.v4.f32 {{%t0, %t1, %t2, %t3}}, [%rd5];
\tadd.rn.f32 %s0, %s0, %t0;
\tadd.rn.f32 %s1, %s1, %t1;
\tadd.rn.f32 %s2, %s2, %t2;
\tadd.rn.f32 %s3, %s3, %t3;
\tadd.s32 %r13, %r13, 1;
\tbra.uni $L_sum;
$L_summed:
\tsetp.neu.f32 %p0, %f1, 0f00000000;  // beta != 0: read C
{stores_text}
$L_done:
\tret;
}}
"""
    geo = LaunchGeometry(block=(REDUCE_THREADS, 1, 1), tile_m=bm, tile_n=bn, dynamic_smem_bytes=0, stream_k=True)
    return KernelSource(name=name, language="ptx", text=body, geometry=geo, params=STREAMK_REDUCE_PARAMS)
