"""Edge split: a big-tile kernel on the tile-aligned interior of C, a small-tile kernel on
the ragged edges.

A one-pass grid of BM x BN tiles computes whole tiles at the bottom and right edges even
where only a few of their rows or columns are in C: 4097^3 in 128x256 tiles is 33 x 17
tiles for 4224 x 4352 elements, 8.7% of the FFMAs spent on padding; 2049^3 16%, 5000^3
4.6% (and the edge tiles' copies take the bounds-checked path).  With `edge_split` (PTX
backend) the module also holds a small-tile kernel (edge_config(): 64x64x8, 4x8 threads,
stream-K), and an SGEMM whose padding the cost model below finds worth it runs as

1. the interior: rows 0 .. M'-1, columns 0 .. N'-1 (M' = BM * floor(M / BM), N' likewise)
   by the config's own kernel (its stream-K plan computed for M' x N');
2. the bottom strip: rows M' .. M-1, every column, by the edge kernel;
3. the right strip: rows 0 .. M'-1, columns N' .. N-1, by the edge kernel;

three SGEMMs on sub-matrices of the same A, B and C (pointer offsets, the same leading
dimensions: rows row0.. of op(A) start at A + row0 * lda, or A + row0 with trans_a; columns
col0.. of op(B) at B + col0, or B + col0 * ldb with trans_b: part_offsets), one after the other on one stream.  Every element of C is written by exactly
one of them (tests/codegen/test_edges.py).

Cost model: time in units of "padded C elements of the main kernel's interior tiles" (K
cancels).  The full grid costs its interior tiles plus EDGE_TILE_COST per element of its
edge tiles (padding included: they run every FFMA, and their copies take the bounds-checked
path); the split costs the interior plus EDGE_COST per element of the edge kernel's padded
strips.  Measured on the H100 (docs/perf-log.md, "Edge split"): the edge kernel's strips
cost 1.65-1.7 per padded element, the 128x256 kernel's edge tiles about 3 at 5000^3; both
are taken as 2, so the split is taken where the small tiles pad less than the big ones
did, by at least MIN_GAIN of the full grid's cost (the strips add short launches).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from ..errors import InputError
from .config import EDGE_TILE

EDGE_COST = 2.0
EDGE_TILE_COST = 2.0
MIN_GAIN = 0.02


# The switches the strips take from the main config where it has them on: the operand layouts
# (the same A and B), the edge copies (the strips are all edge tiles) and the unaligned rows'
# copies (the strips read the same rows).
MAIN_FIELDS = ("trans_a", "trans_b", "edge_vector_path", "edge_clamp", "unaligned_rows", "unaligned_vectors",
               "c_staged")


def edge_config(main=None):
    """The edge kernel's config: the zorder preset on a 64x64x8 block with a 4x8 thread tile
    (128 threads) and stream-K, so that a strip of few tiles still spreads its K over every
    SM.  Of three small tiles measured on the strips of 4097^3, 5000^3 and 2049^3
    (64x64x8 4x8, 64x64x16 8x8, 32x128x16 4x8), it was the fastest on each.  `main` (the
    module's main config) gives it the same operand layouts (trans_a, trans_b), edge copies
    (edge_vector_path, edge_clamp) and unaligned rows' copies (unaligned_rows, unaligned_vectors)."""
    from .presets import get_preset
    bm, bn = EDGE_TILE
    cfg = get_preset("zorder").config.replace(bm=bm, bn=bn, tm=4, tn=8, warps=None, min_blocks=1,
                                               stream_k=True)
    if main is None:
        return cfg
    return cfg.replace(**{field: True for field in MAIN_FIELDS if getattr(main, field)})


@dataclass(frozen=True)
class Part:
    """One SGEMM of the split: C[row0 : row0+rows, col0 : col0+cols] by `kernel`."""
    kernel: str  # "main" or "edge"
    row0: int
    col0: int
    rows: int
    cols: int


@dataclass(frozen=True)
class EdgePlan:
    m: int
    n: int
    parts: Tuple[Part, ...]  # empty: no split, the main kernel takes all of C
    full_cost: float  # the main kernel's grid over all of C: interior + EDGE_TILE_COST x edge tiles
    split_cost: float  # interior + EDGE_COST x the edge kernel's padded strips (inf: no split possible)

    @property
    def split(self) -> bool:
        return bool(self.parts)

    def describe(self) -> str:
        if self.split:
            shown = ", ".join(f"{p.kernel} {p.rows}x{p.cols} at ({p.row0}, {p.col0})" for p in self.parts)
            return f"edge split: {shown}; cost {self.split_cost / self.full_cost:.3f} of the full grid's"
        if self.split_cost == float("inf") or not self.full_cost:
            return "edge split: no (C has no ragged edge, or no tile-aligned interior)"
        return f"edge split: no (it would cost {self.split_cost / self.full_cost:.3f} of the full grid's)"


def part_offsets(layouts, row0: int, col0: int, lda: int, ldb: int, ldc: int) -> Tuple[int, int, int]:
    """Float offsets of a part's A, B and C from the whole SGEMM's, for the operand layouts of
    `layouts` (an SgemmConfig or its KernelSource: trans_a, trans_b): op(A)'s row row0, op(B)'s
    column col0, C's (row0, col0).  The launch (runtime/sgemm_launch.py) offsets each part by it."""
    a = row0 if layouts.trans_a else row0 * lda
    b = col0 * ldb if layouts.trans_b else col0
    return a, b, row0 * ldc + col0


def _padded(rows: int, cols: int, bm: int, bn: int) -> int:
    return -(-rows // bm) * bm * (-(-cols // bn) * bn) if rows and cols else 0


def plan_for_source(source, m: int, n: int) -> Optional[EdgePlan]:
    """The split of M x N for an edge-split module (a KernelSource with `edge`), from the
    geometry of its two kernels; None for any other source."""
    edge = getattr(source, "edge", None)
    if edge is None:
        return None
    g, e = source.geometry, edge.geometry
    return plan_edges(m, n, g.tile_m, g.tile_n, e.tile_m, e.tile_n)


def plan_edges(m: int, n: int, bm: int, bn: int, edge_bm: int, edge_bn: int) -> EdgePlan:
    """Whether and how to split M x N between a BM x BN kernel and an edge_bm x edge_bn one."""
    for name, v in (("m", m), ("n", n), ("bm", bm), ("bn", bn), ("edge_bm", edge_bm), ("edge_bn", edge_bn)):
        if v < 0 or (name not in ("m", "n") and v == 0):
            raise InputError(f"{name}={v}: must be {'>= 0' if name in ('m', 'n') else '> 0'}")
    mi, ni = m // bm * bm, n // bn * bn
    full = mi * ni + EDGE_TILE_COST * (_padded(m, n, bm, bn) - mi * ni)
    if not mi or not ni or (mi == m and ni == n):
        return EdgePlan(m, n, (), full, float("inf"))
    parts = [Part("main", 0, 0, mi, ni)]
    if m > mi:
        parts.append(Part("edge", mi, 0, m - mi, n))
    if n > ni:
        parts.append(Part("edge", 0, ni, mi, n - ni))
    split = mi * ni + EDGE_COST * sum(_padded(p.rows, p.cols, edge_bm, edge_bn) for p in parts[1:])
    if split > (1.0 - MIN_GAIN) * full:  # not worth the launches
        return EdgePlan(m, n, (), full, split)
    return EdgePlan(m, n, tuple(parts), full, split)
