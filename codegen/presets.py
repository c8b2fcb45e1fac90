"""The seed ladder (shared/seeds/001, 000) as named configs, in order.

Each rung changes one thing from the rung before it, so walking the list walks the
optimisation path from the naive kernel to the z-order kernel.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple, Union

from .config import ConfigError, SgemmConfig
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
    found = PRESETS.get(name) or SGEMV_PRESETS.get(name)
    if found is None:
        raise ConfigError(f"unknown preset {name!r}; known presets: {', '.join(all_preset_names())}")
    return found
