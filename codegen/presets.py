"""The seed ladder (shared/seeds/001, 000) as named configs, in order.

Each rung changes one thing from the rung before it, so walking the list walks the
optimisation path from the naive kernel to the z-order kernel.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Dict, Optional, Tuple, Union

from .config import MAX_SPLIT_K, ConfigError, SgemmConfig
from .sgemv_config import SgemvConfig


@dataclass(frozen=True)
class Preset:
    name: str
    config: Union[SgemmConfig, SgemvConfig]
    summary: str


_TILE2D = SgemmConfig(bm=128, bn=128, bk=8, tm=8, tn=8, stages=1, frag_regs=False)
_VEC4 = _TILE2D.replace(frag_regs=True, vec=4, a_transposed=True)
# Two stages add staging registers; min_blocks=2 keeps two blocks per SM (<= 128
# registers), which the double-buffered kernels need to hide the barrier.
_DBUF = _VEC4.replace(stages=2, min_blocks=2)
_PAD = _DBUF.replace(pad_a=4)

_LADDER: Tuple[Preset, ...] = (
    Preset("naive", SgemmConfig(bm=32, bn=32, bk=1, tm=1, tn=1, stages=0),
           "one thread per C element, lanes along N (coalesced B and C), operands from global memory"),
    Preset("smem", SgemmConfig(bm=32, bn=32, bk=32, tm=1, tn=1, stages=1),
           "32x32 shared-memory tiles of A and B, one C element per thread"),
    Preset("tile1d", SgemmConfig(bm=64, bn=64, bk=8, tm=8, tn=1, stages=1),
           "1-D thread tile: each thread computes TM=8 elements of a column"),
    Preset("tile2d", _TILE2D,
           "2-D thread tile 8x8 as an outer product, operands named in shared memory"),
    Preset("tile2d-reg", _TILE2D.replace(frag_regs=True),
           "A and B fragments cached in registers before the outer product"),
    Preset("vec4", _VEC4,
           "float4 global loads and LDS.128 fragment loads; A stored transposed in shared memory"),
    Preset("dbuf", _DBUF,
           "two shared-memory stages: next tile prefetched to registers, one barrier per k-tile "
           "(launch bounds ask for 2 blocks/SM)"),
    Preset("pad", _PAD,
           "As rows padded by 4 floats (BM+4): the transposed A stores stop conflicting"),
    Preset("zorder", _PAD.replace(warps=(4, 2), mapping="zorder", split_tile=True, reg_prefetch=True),
           "warp tile 32x64, z-order lanes, 8x8 thread tile in 4x4 pieces (no LDS conflicts), "
           "fragments double-buffered in registers, prefetched one k-slice ahead and across k-tiles (seed 000)"),
    Preset("zorder-256x128", _PAD.replace(bm=256, tm=16, warps=(4, 2), mapping="zorder", split_tile=True,
                                          reg_prefetch=True, min_blocks=1),
           "the zorder kernel on a 256x128 block with a 16x8 thread tile: twice the FFMAs per "
           "fragment load and per block-tile byte (238 registers on sm_90 through NVRTC 13.0, one block per SM)"),
)

# Seed 003's three shape-specialised GEMV kernels, as written there.
_SGEMV: Tuple[Preset, ...] = (
    Preset("sgemv-n16", SgemvConfig(rows_per_warp=2, vec=1, warps_per_block=4, unroll=1),
           "N = 16: two rows per warp, 16 lanes a row, scalar loads, shuffle reduction"),
    Preset("sgemv-n32", SgemvConfig(rows_per_warp=1, vec=1, warps_per_block=4, unroll=1),
           "N = 32: one row per warp, one float per lane"),
    Preset("sgemv-n128", SgemvConfig(rows_per_warp=1, vec=4, warps_per_block=4, unroll=1),
           "N >= 128: one row per warp, float4 loads"),
)

PRESETS: Dict[str, Preset] = {p.name: p for p in _LADDER}
SGEMV_PRESETS: Dict[str, Preset] = {p.name: p for p in _SGEMV}


def preset_names() -> Tuple[str, ...]:
    """The SGEMM ladder, in order."""
    return tuple(PRESETS)


def sgemv_preset_names() -> Tuple[str, ...]:
    return tuple(SGEMV_PRESETS)


def all_preset_names() -> Tuple[str, ...]:
    return preset_names() + sgemv_preset_names()


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name] if name in PRESETS else SGEMV_PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; known presets: {', '.join(all_preset_names())}") from None


# ---- the shape family (issue 20) ------------------------------------------------------
# One emitter, many tiles: block tiles 16x128 .. 256x128 in both orientations, each a
# z-order double-buffered kernel like the `zorder` preset (stages 2, float4, As transposed
# and padded, register prefetch).  On sm_90 they run through the PTX backend with stream-K
# (codegen/streamk.py): the plan deals the K of a partial last wave - or of every tile, when
# there are fewer tiles than SMs - over all the SMs, so the split is chosen per shape and
# SM count at launch, without a reduce kernel (skinny shapes: the big operand streamed once,
# every SM on a K range).  The `plain` members have no stream-K: one wave of small tiles, no
# workspace (the small-problem path).  `splitk-*` members are CUDA C split-K kernels whose
# split the heuristic sets per shape (codegen/heuristic.py split_for); they are the family's
# K-splitting path on the CUDA C backend (sm_80..89).  codegen/heuristic.py picks a member
# per shape; tests/codegen/test_family.py compiles each without spills.
@dataclass(frozen=True)
class FamilyMember:
    name: str
    config: SgemmConfig
    backend: str
    summary: str
    # split-K members: blocks an SM the split aims at, and the k-tiles each split keeps at
    # least (codegen/heuristic.py split_for)
    fill: int = 1
    min_ktiles: int = 8
    # and the most splits (fused split-K: the last split of a tile reads all S partials)
    max_split: int = MAX_SPLIT_K
    # the rows it is a candidate for, lo < m <= hi (with n >= 128), or the columns, lo < n <= hi (with m >= 128)
    # (codegen/heuristic.py in_band); None: the heuristic's rules by kind
    for_m: Optional[Tuple[int, int]] = None
    for_n: Optional[Tuple[int, int]] = None
    # split-K members: True, the most splits whose blocks stay within `fill` an SM (one wave of them), not the
    # fewest that fill it (heuristic.split_for's `within`)
    within_fill: bool = False


def _z(**kw) -> SgemmConfig:
    """The zorder preset's kernel on another tile (warps derived unless given, one block an SM
    unless given)."""
    kw.setdefault("warps", None)
    kw.setdefault("min_blocks", 1)
    return PRESETS["zorder"].config.replace(**kw)


def _f(**kw) -> SgemmConfig:
    """A fused split-K member's config (backend "fusedk"): BK 32, no register staging, the lean copies."""
    kw.setdefault("bk", 32)
    kw.setdefault("lean_copies", True)
    return _z(stages=1, reg_prefetch=False, split_tile=False, **kw)


def _fused(name: str, fill: int, min_ktiles: int, max_split: int = MAX_SPLIT_K, note: str = "",
           within_fill: bool = False, for_n: Optional[Tuple[int, int]] = None, **tile) -> FamilyMember:
    """A fused split-K member: its config (_f), and its summary spelled from the same numbers."""
    cfg = _f(**tile)
    limit = f"<= {max_split} splits" if max_split < MAX_SPLIT_K else f">= {min_ktiles} k-tiles a split"
    aim = f"at most {fill}" if within_fill else f"aiming at {fill}"
    summary = (f"{cfg.bm}x{cfg.bn}x{cfg.bk} {cfg.tm}x{cfg.tn}, fused split-K {aim} block"
               f"{'s' if fill > 1 else ''} an SM, {limit}" + (f" ({note})" if note else ""))
    return FamilyMember(name, cfg, "fusedk", summary, fill=fill, min_ktiles=min_ktiles, max_split=max_split,
                        within_fill=within_fill, for_n=for_n)


# the PTX 128x256 8x16 kernel of the large shapes (docs/tuning.md); hoist_head: measured faster on the
# 128x256, 256x128 and 64x256 tiles only (tile_config.hoist_head)
_WIDE = _z(bn=256, tn=16, warps=(4, 2), hoist_head=True)
_FAMILY: Tuple[FamilyMember, ...] = (
    FamilyMember("wide-128x256", _WIDE.replace(sass_pass=True, stream_k=True, edge_split=True), "ptx",
                 "128x256x8 8x16 + SASS pass + stream-K + edge split: the large-shape kernel"),
    FamilyMember("tall-256x128", _z(bm=256, tm=16, warps=(4, 2), sass_pass=True, stream_k=True, hoist_head=True),
                 "ptx", "256x128x8 16x8 + SASS pass + stream-K"),
    FamilyMember("sq-128x128", _z(warps=(4, 2), min_blocks=2, sass_pass=True, stream_k=True), "ptx",
                 "128x128x8 8x8, two blocks an SM, + SASS pass + stream-K"),
    FamilyMember("wide-64x256", _z(bm=64, bn=256, tn=16, stream_k=True, hoist_head=True), "ptx",
                 "64x256x8 8x16 + stream-K"),
    FamilyMember("tall-256x64", _z(bm=256, bn=64, tm=16, stream_k=True), "ptx", "256x64x8 16x8 + stream-K"),
    FamilyMember("wide-64x128", _z(bm=64, stream_k=True), "ptx", "64x128x8 8x8 + stream-K"),
    FamilyMember("tall-128x64", _z(bn=64, stream_k=True), "ptx", "128x64x8 8x8 + stream-K"),
    FamilyMember("sq-64x64", _z(bm=64, bn=64, bk=16, stream_k=True), "ptx",
                 "64x64x16 8x8 + stream-K (the small-shape default before the family)"),
    FamilyMember("sq-64x64-4x8", _z(bm=64, bn=64, tm=4, stream_k=True), "ptx", "64x64x8 4x8 + stream-K"),
    FamilyMember("wide-32x64", _z(bm=32, bn=64, bk=16, tm=4, tn=4, split_tile=False, stream_k=True), "ptx",
                 "32x64x16 4x4 + stream-K"),
    FamilyMember("tall-64x32", _z(bm=64, bn=32, bk=16, tm=4, tn=4, split_tile=False, stream_k=True), "ptx",
                 "64x32x16 4x4 + stream-K"),
    FamilyMember("sq-32x32", _z(bm=32, bn=32, bk=16, tm=4, tn=4, split_tile=False, stream_k=True), "ptx",
                 "32x32x16 4x4 + stream-K"),
    # the small-problem path: one wave of small tiles, no stream-K, no workspace
    FamilyMember("plain-64x64", _z(bm=64, bn=64, bk=16), "ptx", "64x64x16 8x8, one pass, no workspace"),
    FamilyMember("plain-32x64", _z(bm=32, bn=64, bk=16, tm=4, tn=4, split_tile=False), "ptx",
                 "32x64x16 4x4, one pass, no workspace"),
    FamilyMember("plain-32x32", _z(bm=32, bn=32, bk=16, tm=4, tn=4, split_tile=False), "ptx",
                 "32x32x16 4x4, one pass, no workspace"),
    # skinny m (m <= 64) / skinny n (n <= 64), long K: narrow tiles, stream-K over K so that
    # every SM streams its share of the big operand once
    FamilyMember("skinny-m16", _z(bm=16, bk=16, tm=4, stream_k=True), "ptx", "16x128x16 4x8 + stream-K over K (skinny m)"),
    FamilyMember("skinny-m32", _z(bm=32, bk=16, tn=4, warps=(1, 4), stream_k=True), "ptx",
                 "32x128x16 8x4 + stream-K over K (skinny m)"),
    FamilyMember("skinny-n16", _z(bn=16, bk=16, tn=4, stream_k=True), "ptx", "128x16x16 8x4 + stream-K over K (skinny n)"),
    FamilyMember("skinny-n32", _z(bn=32, bk=16, tm=4, stream_k=True), "ptx", "128x32x16 4x8 + stream-K over K (skinny n)"),
    # CUDA C split-K (sm_80..89 and a candidate on sm_90): split_k set per shape
    FamilyMember("splitk-32x128", _z(bm=32, bk=16, tn=4, warps=(1, 4)), "cuda",
                 "32x128x16 8x4, CUDA C, split-K chosen per shape (skinny m)"),
    FamilyMember("splitk-128x32", _z(bn=32, bk=16, tm=4), "cuda",
                 "128x32x16 4x8, CUDA C, split-K chosen per shape (skinny n)"),
    FamilyMember("splitk-64x64", _z(bm=64, bn=64, bk=16), "cuda",
                 "64x64x16 8x8, CUDA C, split-K chosen per shape"),
    # second round (issue 20's fitting run 1 left these shapes below cuBLAS): the big tiles
    # with and without the edge split, deeper k-tiles for the skinny kernels (more bytes in
    # flight an SM), and split-K aiming at several blocks an SM
    FamilyMember("wide-128x256-noedge", _WIDE.replace(sass_pass=True, stream_k=True), "ptx",
                 "128x256x8 8x16 + SASS pass + stream-K, no edge split"),
    FamilyMember("sq-128x128-edges", _z(warps=(4, 2), min_blocks=2, sass_pass=True, stream_k=True, edge_split=True),
                 "ptx", "128x128x8 8x8 + SASS pass + stream-K + edge split"),
    FamilyMember("skinny-n16-k32", _z(bn=16, bk=32, tm=4, tn=4, split_tile=False, stream_k=True), "ptx",
                 "128x16x32 4x4 + stream-K over K (skinny n, 128 threads)"),
    FamilyMember("skinny-m16-k32", _z(bm=16, bk=32, tm=4, tn=4, warps=(1, 4), split_tile=False, stream_k=True),
                 "ptx", "16x128x32 4x4 + stream-K over K (skinny m, 128 threads)"),
    FamilyMember("skinny-n32-256", _z(bm=256, bn=32, bk=16, stream_k=True), "ptx",
                 "256x32x16 8x8 + stream-K over K (skinny n)"),
    FamilyMember("skinny-m32-256", _z(bm=32, bn=256, bk=16, warps=(2, 2), stream_k=True), "ptx",
                 "32x256x16 8x8 + stream-K over K (skinny m)"),
    # m of 33-48 (session 6, lab/experiments/tile48.py on the H100): a 48-row tile streams B once where
    # 16-row tiles read it three times and 64-row ones pad a quarter: 48x2048x8192 61.8 us against
    # skinny-m16-k32's 65.3 (cuBLAS 57.1), 48x4096x4096 56.3 against 62.2 (cuBLAS 58.1)
    FamilyMember("skinny-m48", _z(bm=48, bn=64, bk=24, tm=4, tn=8, split_tile=False, stream_k=True), "ptx",
                 "48x64x24 4x8 + stream-K over K (skinny m of 33-48)", for_m=(32, 48)),
    # session 7 (lab/device_runs/session7_bk.sh, H100): the 64x128 / 128x64 8x8 tiles with a k-tile of 16.
    # Nsight Compute found their main loop waiting on global loads (long-scoreboard stalls 0.16-0.66 an
    # issued instruction against cuBLAS's 0.02-0.10): at BK 8 a tile's loads have one k-tile of FFMAs
    # (~0.6-0.8 us at three blocks an SM) to arrive in; BK 16 doubles that, at 162-187 registers (still
    # three blocks an SM).  1500x3072x128 40.2 -> 36.1 us, 64x4096x16384 196.0 -> 188.1, 255x257x65537
    # 307.0 -> 289.9 (cuBLAS 39.1, 190.8, 249.1)
    FamilyMember("wide-64x128-k16", _z(bm=64, bk=16, stream_k=True), "ptx", "64x128x16 8x8 + stream-K"),
    FamilyMember("tall-128x64-k16", _z(bn=64, bk=16, stream_k=True), "ptx", "128x64x16 8x8 + stream-K"),
    FamilyMember("splitk-64x64-f4", _z(bm=64, bn=64, bk=16), "cuda",
                 "64x64x16 8x8, CUDA C, split-K aiming at 4 blocks an SM", fill=4),
    FamilyMember("splitk-32x128-f4", _z(bm=32, bk=16, tn=4, warps=(1, 4)), "cuda",
                 "32x128x16 8x4, CUDA C, split-K aiming at 4 blocks an SM (skinny m)", fill=4),
    FamilyMember("splitk-128x32-f4", _z(bn=32, bk=16, tm=4), "cuda",
                 "128x32x16 4x8, CUDA C, split-K aiming at 4 blocks an SM (skinny n)", fill=4),
    FamilyMember("splitk-64x128", _z(bm=64), "cuda", "64x128x8 8x8, CUDA C, split-K aiming at 2 blocks an SM",
                 fill=2),
    FamilyMember("splitk-128x128", _z(warps=(4, 2), min_blocks=2), "cuda",
                 "128x128x8 8x8, CUDA C, split-K aiming at 2 blocks an SM", fill=2),
    # third round: tiny outputs with long K (65x33x4097, 700x35x2048) ran 64 blocks of 64x64
    # with 8+ k-tiles each, latency-bound: smaller tiles and splits of >= 4 k-tiles put 2-6x
    # more blocks on the SMs, each with a shorter chain of dependent k-tiles
    FamilyMember("splitk-32x32-f4", _z(bm=32, bn=32, bk=16, tm=4, tn=4, split_tile=False), "cuda",
                 "32x32x16 4x4, CUDA C, split-K aiming at 4 blocks an SM, >= 4 k-tiles a split", fill=4, min_ktiles=4),
    FamilyMember("splitk-32x64-f4", _z(bm=32, bn=64, bk=16, tm=4, tn=4, split_tile=False), "cuda",
                 "32x64x16 4x4, CUDA C, split-K aiming at 4 blocks an SM, >= 4 k-tiles a split", fill=4, min_ktiles=4),
    FamilyMember("splitk-64x64-k4", _z(bm=64, bn=64, bk=16), "cuda",
                 "64x64x16 8x8, CUDA C, split-K aiming at 4 blocks an SM, >= 4 k-tiles a split", fill=4, min_ktiles=4),
    # fourth round: fused split-K (backend "fusedk", codegen/emit_fusedk.py): one launch, a
    # cp.async ring, the last split of a tile sums the partials in order.  For the shapes the
    # split-K second launch and per-float copies kept below cuBLAS: tiny outputs with long K,
    # skinny n / m at 32-64.  (stages=1, no register prefetch: the config's staging design is
    # the SGEMM emitters'; this kernel's ring depth is its own, emit_fusedk.depth.)
    _fused("fused-32x32", 4, 2, bm=32, bn=32, tm=4, tn=4),
    _fused("fused-32x32-k8", 4, 8, bm=32, bn=32, tm=4, tn=4),
    _fused("fused-32x64", 4, 4, bm=32, bn=64, tm=4, tn=4),
    _fused("fused-64x64", 2, 4, 16, bm=64, bn=64, tm=8, tn=4),
    _fused("fused-128x32", 2, 4, 16, "skinny n", bm=128, bn=32, tm=8, tn=4),
    _fused("fused-128x32-f1", 1, 4, 16, "skinny n", bm=128, bn=32, tm=8, tn=4),
    _fused("fused-256x32", 1, 4, 16, "skinny n: twice the FFMAs per fragment load of 128x32 8x4",
           bm=256, bn=32, bk=16, tm=8, tn=8),
    _fused("fused-64x128", 2, 4, 8, "skinny m", bm=64, bn=128, tm=8, tn=8),
    _fused("fused-128x64", 2, 4, 8, "skinny n", bm=128, bn=64, tm=8, tn=8),
    _fused("fused-128x128", 2, 4, 4, bm=128, bn=128, tm=8, tn=8),
    # session 34 (lab/experiments/fused_n16.py, H200, docs/data/session34): n of 13-16 in NN.  skinny-n16-k32 reads A's
    # rows 128 bytes a k-tile through staging registers; this tile's cp.async ring with K split so that its blocks
    # stay within one wave of two an SM (three fit, by shared memory: one wave of three ran 1-15% slower, two waves
    # up to 47%) ran 6-27% faster than regtile.sgemm's plan on 12 shapes of n 13-16 (session34_d, _e): 8192x16x8192
    # 84.8 us against 94.9, 2048x16x2048 14.9 / 20.3, 32768x16x2048 79.0 against the few-vector route's 102.8
    # (fewvec_config.N_YIELDS_TO).  A candidate for n of 9-16 only (for_n: n <= 8 unmeasured, and 76x9x474 on A^T, whose
    # stand-in skinny-n16-k32 needs m >= 128 as the band does, was left no candidate before the band)
    _fused("fused-128x16", 2, 4, note="skinny n of 9-16", within_fill=True, for_n=(8, 16), bm=128, bn=16, tm=4,
           tn=4),
    # session 4 (docs/shapes-history.md): more, shorter splits for the small skinny-n outputs on the CUDA C
    # path (blocks of 64-128 threads and 8-12 KB: 16 an SM fit).  Measured and left out: the fused
    # kernel's ring depth and wide sum as knobs on nine members (0-35% slower than the same tiles
    # without them; the knobs are removed since, docs/shapes-history.md), splitk-32x32-f8 and fused tiles 48 columns wide (BK 48 or 24: N = 33..48
    # padded to 48, not 64) - none the fastest on any suite shape.
    FamilyMember("splitk-32x64-f8", _z(bm=32, bn=64, bk=16, tm=4, tn=4, split_tile=False), "cuda",
                 "32x64x16 4x4, CUDA C, split-K aiming at 8 blocks an SM, >= 2 k-tiles a split", fill=8, min_ktiles=2),
    # session 16 (lab/device_runs/session16_d.sh, H100): a small problem leaves each SM one or two blocks with a
    # short chain of k-tiles, each waiting out a global load's round trip behind one k-tile of FFMAs; a k-tile of 32
    # halves the round trips.  The same members with BK 32 (us): 784x576x192 sq-64x64-4x8 12.8 -> 7.7, wide-32x64
    # 13.3 -> 7.9 (cuBLAS 11.2); 768x768x192 wide-32x64 13.9 -> 10.8 (13.5); 1536x512x256 17.2 -> 14.3 (17.7);
    # 1024x1024x256 sq-64x64-4x8 20.2 -> 16.8 (18.0); slower from K = 384 (196x1152x384 14.2 -> 22.9): the table
    # decides.
    FamilyMember("sq-64x64-4x8-k32", _z(bm=64, bn=64, bk=32, tm=4, stream_k=True), "ptx", "64x64x32 4x8 + stream-K"),
    FamilyMember("wide-32x64-k32", _z(bm=32, bn=64, bk=32, tm=4, tn=4, split_tile=False, stream_k=True), "ptx",
                 "32x64x32 4x4 + stream-K"),
    FamilyMember("tall-64x32-k32", _z(bm=64, bn=32, bk=32, tm=4, tn=4, split_tile=False, stream_k=True), "ptx",
                 "64x32x32 4x4 + stream-K"),
    # today's default on sm_80..89 (the zorder preset through CUDA C)
    FamilyMember("cuda-zorder", PRESETS["zorder"].config, "cuda", "the zorder preset, CUDA C (sm_80..89 default)"),
)
# The PTX members take their edge tiles' copies on the edge vector path (config.py
# edge_vector_path): measured in issue 20's third round (docs/shapes-history.md), it took 2000^3 from
# 0.83x to 0.96x cuBLAS and 1000^3 from 0.96x to 1.09x.  Not the two 128x256 8x16 kernels: their
# interior PTX is the same, but ptxas then allocates the whole kernel differently and their main
# loop ran 3-6% slower on aligned shapes (2048^3 336 -> 356 us, 8192^3 20.6 -> 21.8 ms).
_NO_EDGE_VECTOR_PATH = ("wide-128x256", "wide-128x256-noedge")
_FAMILY = tuple(dataclasses.replace(m, config=m.config.replace(edge_vector_path=True))
                if m.backend == "ptx" and m.name not in _NO_EDGE_VECTOR_PATH else m for m in _FAMILY)
# The PTX members clamp their copies' sources at the M and N edges (config.py edge_clamp): an edge
# tile then runs the interior's unchecked float4 copies, and only a partial last k-tile the checked
# ones (session 8, docs/shapes-history.md: 2000^3 on wide-128x256-noedge 439.0 -> 329.6 us).  The two k16
# members take the SASS register-bank pass with it: with the clamp alone ptxas allocated their
# stream-K ranges kernel's registers otherwise (713 of its 1024 main-loop FFMAs bank-conflicted,
# against 113) and they ran 3-5% slower on aligned shapes (8192x128x8192 347.4 -> 362.0 us; H100,
# 10b6bc3); with the pass (151) they ran as without the clamp there (348.3 -> 348.1 us, 512x4096x4096
# 349.1 -> 349.8) and 1-5% faster on ragged shapes (2000^3 361.3 -> 343.5, 700x5124x2048 331.6 ->
# 315.1; eaef4f0).
_PASS_WITH_CLAMP = ("wide-64x128-k16", "tall-128x64-k16")
_FAMILY = tuple(dataclasses.replace(m, config=m.config.replace(edge_clamp=True,
                                                               sass_pass=m.config.sass_pass or m.name in _PASS_WITH_CLAMP))
                if m.backend == "ptx" else m for m in _FAMILY)
FAMILY: Dict[str, FamilyMember] = {m.name: m for m in _FAMILY}


def family_names() -> Tuple[str, ...]:
    return tuple(FAMILY)


def get_member(name: str) -> FamilyMember:
    found = FAMILY.get(name)
    if found is None:
        raise ConfigError(f"unknown family member {name!r}; known members: {', '.join(FAMILY)}")
    return found
