"""The config of a family member generated for the problem's operands: the copy paths of the leading
dimensions (for_rows), C's last column (for_columns), C's unaligned rows (for_c), the fused kernel's
lean copies (for_lean_copies) and, in TN, the small members' cp.async ring (for_ring), in that order
(for_operands).  (Until session 28 for_vector_edges gave the 128x256 members the edge vector path where
aligned rows had a ragged extent along the vectors: their tile across the bound took the checked copies on
every k-tile then; it takes them on its last one now, ptx_edges.clamp_setup.)  Each keeps the config, and its
kernel text, where the operands do not ask for its path or the config cannot take it.  Pure (no GPU, no runtime
import): what regtile.sgemm's plans run (runtime/choice.py) and what the sweep names as the table's member
(tools/shape_sweep.py); the member itself comes from codegen/heuristic.py."""
from __future__ import annotations

from typing import Optional, Tuple

from .config import ConfigError, SgemmConfig
from .heuristic import leading_dims, member_config
from .layouts import with_layout


UNALIGNED_MAX_THREAD_TILE = 64  # accumulators a thread, at most, of a kernel given the unaligned rows' copies
# The tiles (tile_of) that take the vector floats rather than the float copies on A^T (TN; TT takes it, not timed):
# those measured faster so.  H200, session 32, on TN shapes of unaligned rows whose choice the member is (g_90e5c69; a_09ea5b2):
# wide-64x128 faster with the vector floats on 30 of 30, 3.2% (geometric mean; at worst 0.8% faster), sq-64x64-4x8
# 27 of 30, 3.4% (at worst 1.7% slower), sq-64x64-4x8-k32 22 of 30, 2.0% (1.4%); tall-128x64 and sq-64x64 4 of 4,
# 3-6% (plain-64x64 shares sq-64x64's tile).  The 4x4 tiles went both ways (wide-32x64 15 of 27, tall-64x32 17 of 28,
# sq-32x32 18 of 28, from 0.68x to 1.18x the float copies' time; the k32 ones slower on 19 of 27 and 19 of 28) and keep
# the float copies, as do the tiles not timed (the skinny members').
A_T_VECTOR_FLOATS_TILES = frozenset({(64, 128, 8, 8, 8), (128, 64, 8, 8, 8), (64, 64, 8, 4, 8), (64, 64, 32, 4, 8),
                                     (64, 64, 16, 8, 8)})
VECTOR_FLOATS_K16 = 16  # the k-tile of the members with the SASS pass that take the vector floats instead (for_rows)
HELD_BLOCKS = 3  # blocks an SM the k16 members run (128 threads, <= 168 registers), which a held kernel keeps


def tile_of(cfg: SgemmConfig) -> Tuple[int, int, int, int, int]:
    """(bm, bn, bk, tm, tn): the key of the tile sets below."""
    return cfg.bm, cfg.bn, cfg.bk, cfg.tm, cfg.tn


def taken(cfg: SgemmConfig, **fields) -> SgemmConfig:
    """`cfg` with `fields`, or `cfg` itself (its text kept) where the config's checks refuse them (no register room,
    a field the tile cannot take): each form below is asked for, never forced."""
    try:
        return cfg.replace(**fields)
    except ConfigError:
        return cfg


def held_cap(cfg: SgemmConfig) -> int:
    """The register cap (config.max_registers, PTX .maxnreg) that keeps HELD_BLOCKS blocks of the tile an SM:
    168 for the k16 members' 128 threads."""
    return cfg.register_cap(HELD_BLOCKS)


# for_rows: the unaligned rows' form of the k16 members with the SASS pass (k16_form), by layout.  Held: at held_cap,
# three blocks an SM.
# - Row-major A and B (NN), measured on the H100 (2026-11-28, lab/experiments/variants_ab.py,
#   docs/data/session25/c_9e78596, us, vector floats / float copies / float copies at 168): tall-128x64-k16, whose A
#   tile (16-float lines along K) is two thirds of a k-tile's floats, takes the float copies held (FLOAT_COPIES_HELD_K16):
#   5555x555x5555 839.6 / 850.8 / 799.0, 5555x555x5557 839.3 / 854.3 / 801.1, 2777x555x5555 428.0 / 432.2 / 408.0,
#   3333x777x3333 452.4 / 462.0 / 439.0, 3001x3001x64 46.8 / 55.2 / 47.2 (unheld, the float copies take 178 registers,
#   196 in the stream-K ranges kernel: two blocks an SM).  wide-64x128-k16 (B, 128-float lines along N, two thirds)
#   keeps the vector floats unheld: the float copies lost held too (1023x1025x1023 60.3 / 65.8 / 66.0, 255x257x65537
#   213.6 / 227.7 / 227.8, 777x7777x777 242.7 / 263.4 / 248.5), and on the H200 (session 32, e_bf6038c, 20 shapes whose
#   NN choice it is on unaligned rows) the vector floats held ran 0.95% slower, the float copies held 4.6%.
# - On A^T (TN; TT takes it, not timed) A's rows are the 128- or 64-float lines along M: both members take the vector
#   floats held.  H200, session 32, on the TN shapes whose choice the member is on unaligned rows: tall-128x64-k16
#   faster than its float copies held on 17 of 18, 5.6% (geometric mean; 3001x3001x64, four k-tiles, 1.5% slower;
#   unheld 2.2% slower; b_75e735a: 5555x555x5555 788.4 -> 737.3 us), where in NN the same held vector floats ran 1.6%
#   slower on all 18 (c_beb6600); wide-64x128-k16 faster than its vector floats unheld on 22 of 24, 12.4% (767x3075x769
#   127.8 -> 87.9 us, 1531x2039x1021 188.7 -> 140.6; 4343x1090x70 2.5% slower; float copies held 7.2%, unheld 2.3%:
#   d_420d4bf).
# - On B^T alone (NT) both operands' rows are the 16-float lines along K: both members take the float copies held.
#   wide-64x128-k16 faster than its vector floats unheld on 18 of 20 NT shapes whose choice it is on unaligned rows,
#   2.2% (its vector floats held 0.15%, the float copies unheld 6.3% slower: d_420d4bf); tall-128x64-k16's float
#   copies held ran faster than its vector floats held on 7 of 7 NT shapes (a_09ea5b2).
FLOAT_COPIES_HELD_K16 = frozenset({(128, 64, 16, 8, 8)})


def for_rows(cfg: SgemmConfig, backend: str, lda: int, ldb: int) -> SgemmConfig:
    """`cfg` for operands with these leading dimensions: a PTX kernel with float4 copies gets
    the unaligned rows' copies (config.unaligned_rows: a float a thread inside K, consecutive
    threads on consecutive floats) where lda or ldb is not a multiple of 4 - rows that can never
    take its float4 path.  Aligned
    leading dimensions keep `cfg` (and its text: the kernel of the aligned shapes), and so does a
    config whose register cap has no room for the path (the register rule refuses it).

    Not the 8x16 / 16x8 thread tiles (UNALIGNED_MAX_THREAD_TILE): measured (H100, 2026-11-25,
    e3feb62, docs/shapes-history.md "Unaligned rows") the 128x256 8x16 member ran 8191x8193x1025 and
    4099x4093x4091 7-9% slower with the path (3095 -> 3371 us, 2952 -> 3158 us; 231 -> 245
    registers), where the 64x128, 128x64 and 32x32 members gained 0-6%.  These, and those whose
    registers leave no room for the float copies, get the unchecked vector floats instead where
    they clamp their edges (config.unaligned_vectors: no more registers in the loop, the float4's
    shared-memory stores; session 8).  So do the k16 members with the SASS pass (VECTOR_FLOATS_K16):
    measured (H100, 2026-11-27, a3e76db, lab/device_runs/session9_b.sh) the vector floats ran
    255x257x65537 in 281.6 us against 287.7 with the float copies (tall-128x64-k16), 1023x1025x1023
    in 67.1 against 67.8 and 1009x1013x1019 in 61.7 against 61.8 (wide-64x128-k16); sq-32x32 went the
    other way (513x129x16383: 112.1 against 105.5), so the smaller tiles keep the float copies.  Since
    session 25 tall-128x64-k16 takes the float copies held at three blocks an SM (FLOAT_COPIES_HELD_K16); since
    session 32 the k16 members' form follows the layout (k16_form), and on A^T the tiles of A_T_VECTOR_FLOATS_TILES
    take the vector floats.  The 8x16 members' float copies were measured again in every layout, NT included, where
    both operands' vectors run along K (H200, session 36, docs/data/session36/c_9ebbf2a): slower on all nine shapes
    (NT 4099x4093x4091 2930.8 -> 3096.0 us, TN 8191x8193x1025 2796.0 -> 3106.7)."""
    if backend != "ptx" or cfg.vec != 4 or cfg.unaligned_rows or (lda % 4 == 0 and ldb % 4 == 0):
        return cfg
    if cfg.edge_clamp and cfg.sass_pass and cfg.bk == VECTOR_FLOATS_K16:
        return cfg.replace(**k16_form(cfg))
    a_t_vectors = cfg.trans_a and cfg.edge_clamp and tile_of(cfg) in A_T_VECTOR_FLOATS_TILES
    if cfg.tm * cfg.tn <= UNALIGNED_MAX_THREAD_TILE and not a_t_vectors:
        rows = taken(cfg, unaligned_rows=True)
        if rows is not cfg:
            return rows
    return cfg.replace(unaligned_vectors=True) if cfg.edge_clamp else cfg


def k16_form(cfg: SgemmConfig) -> dict:
    """The fields of a k16 SASS-pass member's unaligned rows' form in its layout (the note above FLOAT_COPIES_HELD_K16):
    on A^T the vector floats held, on B^T alone the float copies held, row-major the float copies held on the tiles of
    FLOAT_COPIES_HELD_K16 and the vector floats elsewhere.  A member with a register cap of its own keeps it and takes
    the vector floats."""
    if cfg.max_registers:
        return {"unaligned_vectors": True}
    if cfg.trans_a:
        return {"unaligned_vectors": True, "max_registers": held_cap(cfg)}
    if cfg.trans_b or tile_of(cfg) in FLOAT_COPIES_HELD_K16:
        return {"unaligned_rows": True, "max_registers": held_cap(cfg)}
    return {"unaligned_vectors": True}


LAST_COL_MAX_TILE_COLUMNS = 4  # for_columns: whole tile columns, at most, beside the fused last column
# Tiles whose fused-column kernels for_columns holds at held_cap (config.max_registers), and the tile
# columns they take it beside.  The k16 members run three blocks of 128 threads an SM (their kernels at 159-168 registers in every layout); the column's sums
# took their stream-K ranges kernel to 173-183, two blocks, and at 168 ptxas fits it in 154-168
# without spilling.  Measured (H100, 2026-11-27, lab/experiments/held_registers.py and fixup_ab.py,
# c12fb85, us, unheld -> held): 255x257x65537 246.2 -> 239.1, 4096x257x4096 227.9 -> 212.5, and at
# q = 8, where the unheld column lost, 1023x1025x1023 66.4 (no column) -> 64.2, 1000x1025x1000 63.7
# -> 60.8.  The same cap without the column was slower (1023x1025x1023 66.4 -> 67.1, 1009x1013x1019
# 61.1 -> 61.9): ptxas's schedule under it is worse, which only the third block pays back.
LAST_COL_HELD = frozenset({(64, 128, 16, 8, 8), (128, 64, 16, 8, 8)})
LAST_COL_HELD_MAX_TILE_COLUMNS = 8


def for_columns(cfg: SgemmConfig, backend: str, n: int) -> SgemmConfig:
    """`cfg` for a C of n columns: where n is one past q whole tile columns (n % BN == 1) with
    q <= LAST_COL_MAX_TILE_COLUMNS (LAST_COL_HELD_MAX_TILE_COLUMNS on the LAST_COL_HELD tiles, which
    also take their register cap), a PTX kernel that can takes C's last column fused into its last
    tile column (config.last_col, codegen/ptx_last_col.py) instead of a tile column one column wide;
    every other n, and configs that cannot take it (split-K, the edge split, batches, one stage, no
    register room: the rules in tile_config.py), keep `cfg` (and its text).

    The padding it saves is 1 / (q + 1) of the tiles; what it costs is the last tile column's
    sums, and registers (held: LAST_COL_HELD).  Measured (H100, 2026-11-27, fc4ba71,
    lab/experiments/last_col_ab.py, against the same kernel without it): q = 4 or fewer gained -
    255x257x65537 276.2 -> 249.2 us (tall-128x64-k16, unheld), 4096x257x4096 236.9 -> 225.2,
    513x129x16383 104.3 -> 99.8 (sq-32x32), 300x129x50000 174.5 -> 164.4 (sq-64x64, q = 2); q = 8
    and more lost unheld - 1023x1025x1023 66.0 -> 67.3 and 1000x1025x1000 63.6 -> 64.0
    (wide-64x128-k16; held they gain, above), 8191x8193x1025 3023.2 -> 3046.7 (wide-128x256-noedge,
    q = 32)."""
    if backend != "ptx" or cfg.last_col or n <= cfg.bn or n % cfg.bn != 1:
        return cfg
    held = held_cap(cfg) if tile_of(cfg) in LAST_COL_HELD else 0
    if cfg.max_registers and cfg.max_registers != held:  # a cap of its own (for_rows' held float copies: the same)
        held = 0
    if (n - 1) // cfg.bn > (LAST_COL_HELD_MAX_TILE_COLUMNS if held else LAST_COL_MAX_TILE_COLUMNS):
        return cfg
    return taken(cfg, last_col=True, **({"max_registers": held} if held else {}))


def for_c(cfg: SgemmConfig, backend: str, ldc: int) -> SgemmConfig:
    """`cfg` for a C of leading dimension ldc: where ldc % 4 != 0 a PTX kernel with the float4 epilogue
    stores C's rows through shared memory (config.c_staged: a warp writes runs of BN / TN consecutive columns of C's
    rows; the kernel still tests C at run time and keeps the float4 stores for aligned rows); configs
    that cannot take it (no float4 epilogue, last_col) keep `cfg`.  What unaligned rows of C cost
    without it (H100, 2026-11-27, lab/experiments/c_store_probe.py, the same kernel into C with ldc = N
    and N + 1, us): 3000x3000x64 wide-128x256-noedge 47.1 / 78.0, wide-64x128-k16 36.1 / 47.7;
    3000x7000x212 tall-256x128 207.4 / 283.4; 1024x50256x768 wide-128x256-noedge 1538.9 / 1723.6.  With
    it (72adf36, lab/experiments/variants_ab.py, the plans with and without it, us): 3001x3001x64 80.9
    -> 52.7, 2999x7001x211 306.9 -> 242.9, 333x33333x333 236.9 -> 199.2, 1024x50257x768 1804.0 -> 1639.9,
    999^3 59.2 -> 56.3, 1111x3333x2222 412.0 -> 401.1; at most 1.4% slower (5555x555x5555 834.9 -> 847.0,
    tall-128x64-k16) on the 22 shapes with N % 4 != 0 measured (docs/data/c_staged_ab_2026-11-27_72adf36.log)."""
    if backend != "ptx" or cfg.vec != 4 or cfg.c_staged or ldc % 4 == 0:
        return cfg
    return taken(cfg, c_staged=True)


# On B^T the lean copies pay only where a split runs this many k-tiles or more (session 33, H200,
# docs/data/session33/f_c57b368, lean against none on the fused picks in NT and TT, by k-tiles a split: 3 slower on 14
# of 16, up to 34% - fused-32x32's B^T copies' addresses take it from 168 to 222 registers, and with a 4-stage ring its
# lean loop runs none of 3; 4 slower on 5 of 6; 6 to 16 faster on 31 of 31, 2-9%).  A^T's (TN) are on as in NN:
# faster or within 2% on all 39 shape-members there.
B_T_LEAN_MIN_KTILES = 6


def for_lean_copies(cfg: SgemmConfig, backend: str, lda: int, ldb: int, m: int, n: int,
                    k: Optional[int] = None) -> SgemmConfig:
    """`cfg` without the fused kernel's lean copies (config.lean_copies) unless every block can run their loop: rows
    of A and B 16-byte aligned, and M and N whole tiles (m % BM == n % BN == 0: no edge block, which takes
    load_tile's loop instead); on B^T only where each split runs B_T_LEAN_MIN_KTILES k-tiles of `k` or more.
    Measured (H100, lab/experiments/fusedk_spread_ab.py and variants_ab.py, us, with the loop / without):
    - where every block runs it (2026-11-28, docs/data/session24/b_8467a0d): 32768x32x4096 210.9 / 246.5,
      16384x32x16384 429.8 / 483.6, 4096x32x11008 85.3 / 92.3 (fused-128x32-f1); 65536x32x2048 261.7 / 249.5 lost
      (three blocks an SM: Nsight Compute put more MIO-throttle and short-scoreboard stalls on the lean kernel,
      docs/data/session24/c_fa841b9);
    - where no block runs it (session 24): 8192x24x8192 135.5 / 130.3;
    - where some blocks run it and the edge blocks run load_tile's loop in the same launch (2026-11-28,
      docs/data/session25/e_3ba3d89, fused-128x32-f1): 16384x48x384 36.2 / 27.6, 16384x48x4096 327.1 / 249.2,
      4096x48x11008 242.7 / 171.2, 16384x40x4096 353.8 / 249.4 (an N edge); 1000x32x16384 64.0 / 51.0,
      4000x32x11008 95.8 / 93.0 (an M edge) - while 16384x96x1024, whole tiles, ran 82.0 / 95.4."""
    if backend != "fusedk" or not cfg.lean_copies:
        return cfg
    if lda % 4 or ldb % 4 or n % cfg.bn or m % cfg.bm:
        return cfg.replace(lean_copies=False)
    if cfg.trans_b and (k is None or -(-k // cfg.bk) // cfg.split_k < B_T_LEAN_MIN_KTILES):
        return cfg.replace(lean_copies=False)
    return cfg


# for_ring: the members that run the ring in TN (4x4 thread tiles, block tiles up to 64x64: the 4x8 and 8x8 tiles lost
# with it), the k-tiles their K must hold more than, the tiles they need at least, and the ring's stages.
RING_THREAD_TILE = 16
RING_MAX_BLOCK_SIDE = 64
RING_MIN_KTILES = 16
RING_MIN_TILES = 8
RING_TN_STAGES = 4


def for_ring(cfg: SgemmConfig, backend: str, m: int, n: int, k: Optional[int]) -> SgemmConfig:
    """`cfg` as the cp.async ring of RING_TN_STAGES stages (codegen/ptx_ring.py: no staging registers, three k-tiles in
    flight; without the SASS pass, which the 4x4 members do not run) where it was measured faster: the PTX members of
    4x4 thread tiles (RING_THREAD_TILE) and block tiles up to 64x64 (RING_MAX_BLOCK_SIDE) with the two-stage loop, in
    TN (A^T and B: both operands' rows land in shared memory untransposed, so aligned rows copy by 16-byte cp.asyncs;
    A's transposed copy in NN / NT is a 4-byte cp.async a float, which lost there: session 7, docs/shapes-history.md
    "The cp.async ring, built and measured: slower", and session 37's NN / NT rows), on tiles whose K holds more than
    RING_MIN_KTILES k-tiles, at least RING_MIN_TILES tiles.  The stream-K members (sq-32x32, wide-32x64, tall-64x32
    and their k32 forms) run the ring in their K-range kernel too, which is where these shapes spend their time: the
    K a range holds is shorter than the whole K that the rule reads (what was measured, below, is that kernel).

    Measured (H200, session 37, docs/data/session37/b_508dc83, us, the plan as committed / this ring; cuBLAS's TN in
    brackets) on every TN suite and held-out shape whose pick is a small PTX member:
    - taken (K > 16 k-tiles, >= 8 tiles): faster on 14 of 17 - 127x511x257 8.2 / 7.2 (8.0), 512^3 14.9 / 13.9 (14.5),
      49x1280x320 8.9 / 8.2 (8.2), 3136x96x384 15.3 / 14.1, 32x3072x3072 24.9 / 22.8, 16384x30x4096 129.5 / 115.8
      (120.3), 13824x24x5120 127.3 / 116.3, 18944x20x3584 122.0 / 115.1 (119.2), 10240x28x2560 52.1 / 49.1, 2048x256x512
      20.1 / 19.6, 1500x384x384 17.7 / 17.2, 257x1280x1280 31.3 / 30.5, 640x360x1200 22.8 / 22.4, 384^3 8.5 / 8.3;
      slower on 77x3072x768 18.6 / 19.2, 197x768x768 15.7 / 15.9, 333x777x999 24.1 / 24.2;
    - left (K of 16 k-tiles or fewer, or fewer tiles): 256^3 5.7 / 5.9 (16 k-tiles), 196x576x96 3.2 / 3.3, 12544x32x144
      7.2 / 7.7, 50x50x50000 (2 tiles, stream-K's short pieces of K) 24.6 / 29.1; 49x960x160 4.4 / 4.2 the one faster.
    The 4x8 and 8x8 tiles went the other way (sq-64x64 and plain-64x64, its tile, slower on all 11 of their picks,
    1-23%; sq-64x64-4x8 and its k32 form on 4 of 7), and so did the skinny members' 4x4 tiles (128x16, 16x128: slower
    on all 8 of their TN picks, 0.4-18%, docs/data/session37/c_fb40cee): they keep `cfg`, and so does a config the
    ring cannot take (`taken`: the config's checks refuse the ring with split-K, the SASS pass or C's fused last
    column)."""
    if (backend != "ptx" or k is None or not cfg.trans_a or cfg.trans_b or cfg.batched or cfg.stages != 2
            or cfg.tm * cfg.tn != RING_THREAD_TILE or max(cfg.bm, cfg.bn) > RING_MAX_BLOCK_SIDE
            or cfg.unaligned_vectors):
        return cfg
    tiles = -(-m // cfg.bm) * -(-n // cfg.bn)
    if -(-k // cfg.bk) <= RING_MIN_KTILES or tiles < RING_MIN_TILES:
        return cfg
    return taken(cfg, stages=RING_TN_STAGES, hoist_head=False)


def for_operands(cfg: SgemmConfig, backend: str, lda: int, ldb: int, m: int, n: int,
                 ldc: Optional[int] = None, k: Optional[int] = None) -> SgemmConfig:
    """`cfg` generated for the problem's operands: the leading dimensions' copy paths (for_rows),
    then C's columns (for_columns) and rows (for_c; ldc None: packed, N), the fused kernel's lean copies
    (for_lean_copies; `k` for B^T's) and the ring (for_ring; `k`: none without it).  What regtile.sgemm's plans run
    (runtime/choice.py) and what the sweep names as the table's member (tools/shape_sweep.py)."""
    cfg = for_c(for_columns(for_rows(cfg, backend, lda, ldb), backend, n), backend, n if ldc is None else ldc)
    return for_ring(for_lean_copies(cfg, backend, lda, ldb, m, n, k), backend, m, n, k)


def member_for_shape(name: str, m: int, n: int, k: int, sm_count: int, trans_a: bool = False,
                     trans_b: bool = False, lda: int = 0, ldb: int = 0) -> Tuple[SgemmConfig, str]:
    """(config, backend) of family member `name` for M x N x K with packed operands in the layout (row-major: lda =
    K, ldb = ldc = N; heuristic.leading_dims), or `lda` / `ldb` where given: its split for the shape
    (heuristic.member_config), generated for the layout (layouts.with_layout) and those operands (for_operands), as
    regtile.sgemm builds a plan's kernel; what the sweeps time and label as the member."""
    cfg, backend = member_config(name, m, n, k, sm_count)
    packed_a, packed_b, _ = leading_dims(m, n, k, trans_a, trans_b)
    lda, ldb = lda or packed_a, ldb or packed_b
    return for_operands(with_layout(cfg, trans_a, trans_b), backend, lda, ldb, m, n, k=k), backend
