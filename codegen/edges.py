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
from .heuristic import COPY_TBPS, LAUNCH_US

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


# ---- the vector trim: C's last column (N % 4 == 1; or an A^T's last row) in a launch of its own ---------------
# An operand whose vectors run along a block dimension (B along N, A^T along M: mapping.k_in_line) whose extent is
# not a multiple of 4 has a vector straddling the edge in every row, so its edge tiles take the bounds-checked
# per-float copies on every k-tile (clamp_setup: with a multiple of 4 they are clamped float4s and the tile counts
# as inside).  Those tiles run last in their SM's chain.  Measured on the H200 (session 27, lab/experiments/
# ragged_extents_ab.py, rows 16-byte aligned, us): 1024x4096x2048 wide-128x256-noedge 329.5, with N = 4095 371.6
# (M or K ragged: 329.5, 330.4); 1112x3336x2224 357.6 / 402.6 (N = 3333); tall-256x128 2048x4100x1024 349.4 /
# 363.8 (N = 4097); tall-128x64-k16 5556x556x5556 728.5 / 757.5 (N = 555).  Trimmed, the main kernel runs
# N - N % 4 columns, all of whose vectors are whole, and the column left is a GEMV of its own (runtime/plans.GemmPlan),
# which reads op(A) once more.  Measured (session 27, lab/experiments/vector_trim_ab.py, packed operands, with / without
# the trim, us): 1111x3333x2222 388.9 / 396.6, 1919x2929x3939 969.3 / 983.3, 1024x50257x768 1607.0 / 1600.5.  Not
# taken: two or three columns (N % 4 of 2, 3), which no GEMV takes and the few-vector route left to SGEMM members of
# one column of blocks over the whole K (1234x5678x910 333.3 / 311.2, 4001x4003x4007 2723.3 / 2698.8; 1023x4095x2047
# 363.7 / 367.1, 4095^3 2782.9 / 2834.5); and where the heuristic picks another member for the trimmed N (GemmPlan
# keeps the trim only with the same tile: 4099x4093x4091 took wide-128x256's edge split on 4092 columns, 2924.0 /
# 2856.5; 2047x4097x1023 went from tall-256x128 to it, 364.6 / 380.0 - a gain the rule does not model).
TRIM_SAVING = 0.04  # the least of the penalties above, as a share of one wave's time
TRIM_TFLOPS = 45.0  # the main kernel's rate for that estimate (the 128x128-class members' order)


@dataclass(frozen=True)
class VectorTrim:
    """C's last `count` columns (axis "n") or rows (axis "m") by a GEMM of their own (a GEMV: count is 1)."""
    axis: str
    count: int

    def describe(self) -> str:
        what = "column" if self.axis == "n" else "row"
        if self.count == 1:
            return f"vector trim: the last {what} of C in a launch of its own"
        return f"vector trim: the last {self.count} {what}s of C in a launch of their own"


def vector_trim(cfg, backend: str, m: int, n: int, k: int, sm_count: int) -> Optional[VectorTrim]:
    """The trim for a chosen PTX config on M x N x K (None: none), where the strip's estimated cost (its operand
    read once at the heuristic's copy bandwidth, and a launch) is below the saving: TRIM_SAVING of one wave of the main kernel
    (2 M N K FLOPs at TRIM_TFLOPS over ceil(tiles / SMs) waves: the slow edge tiles delay one tile of each SM's
    chain, not every one)."""
    if backend != "ptx" or cfg.vec != 4 or cfg.batched or cfg.last_col or min(m, n, k) < 1:
        return None
    if not cfg.trans_b and n % 4 == 1 and n > 4:
        trim, strip_bytes = VectorTrim("n", 1), 4.0 * m * k
    elif cfg.trans_a and m % 4 == 1 and m > 4:
        trim, strip_bytes = VectorTrim("m", 1), 4.0 * k * n
    else:
        return None
    waves = -(-(-(-m // cfg.bm) * -(-n // cfg.bn)) // max(1, sm_count))
    saving = TRIM_SAVING * 2.0 * m * n * k / (TRIM_TFLOPS * 1e6) / waves
    strip = strip_bytes / (COPY_TBPS * 1e6) + LAUNCH_US
    return trim if strip < saving else None
