"""The kernel a batch of GEMMs runs (choose_batched; runtime/choice.py asks it for batch > 1, heuristic.choose_kernel
for one GEMM): blockIdx.z is the batch entry, and a batch has no
stream-K or edge split, so the choice is a tile, by how its blocks fill the SMs' slots; only decode's batches (m <= 16,
few blocks) split over K (skinny_split, below).

Measured (H200, session 45, lab/experiments/batched_sweep.py members=1, docs/data/session45/b_99c23e3): the batched forms
of the family's members on 32 batched shapes of real workloads (benchmarks/shapes-batched.json: attention without a
fused kernel and its backward, decode attention, mixture-of-experts projections, batches of plain GEMMs) against
torch.bmm.  The rule before (the largest of 128x256, 128x128, 64x64, 32x32 whose blocks fill the SMs once) ran 12 of
them at 0.28-0.84x torch.bmm: 128x128 tiles on attention's n = 64 (half of every tile padding), on 77 x 77 outputs,
on mixture-of-experts shapes whose 128x128 blocks fill the slots badly; 32x32 tiles on decode's m of 1-8.

The rule now, from that run:
- m <= 16 (decode attention, a few tokens an expert): skinny-m16 (16 x 128 tiles; 1.6-2.4x faster than 32x32 there);
  n <= 16 the same, skinny-n16.
- Else the tile of BATCH_TILES that takes least modelled time: the batch's blocks in waves of the SMs' slots (blocks an
  SM x SMs, as the sm_90 cubins' registers allow), each wave the time of one SM's blocks at the tile's rate and of
  writing their C tiles; only tiles that pad C's area by at most heuristic.MAX_PAD take part (SMALL_MAX_PAD where the
  whole batch's C is small: one entry's small C pads as much in every entry), and on ragged C only those whose batched
  form keeps its edge clamp.  The rates are fitted on that run (BATCH_TILES): a k16 tile's 64 x 128 x 16 blocks, three
  an SM, fastest on the attention shapes; 128x128 and 128x256 win where their blocks fill the slots in fewer, fuller
  waves (16 x 512^3, 8 x 256 x 4096 x 14336).
- Where m <= 16 leaves fewer than SPLIT_FILL_BLOCKS blocks an SM, K is split (skinny_split, split_config).
- m == 1 or n == 1 (session 46): one batched GEMV launch of the SGEMV family's kernels where batched_gemv takes the batch
  (the end of this module), before the skinny members.

The edge clamp on ragged C, K in whole k-tiles and tall-256x128 came from the held-out set's losses
(benchmarks/shapes-batched-heldout.json; docs/shapes.md "Batches"), which is in sample for them.
"""
from __future__ import annotations

from typing import Tuple

from .config import SgemmConfig
from .hardware import MAX_GRID_YZ
from .heuristic import COPY_TBPS, MAX_PAD, SMALL_MAX_PAD, SMALL_MN, _ceil, _pad
from .layouts import with_layout
from .presets import get_member
from .sgemv_config import SgemvTConfig, config_for_width, long_rows, strip_lanes, thread_rows

# m or n at most this: the skinny member of that side
BATCH_SKINNY = 16
# (member, blocks an SM with row-major B, with B^T, rate of a full wave in TFLOP/s).  Blocks an SM: the sm_90 cubins'
# registers (NVRTC 13.0, 65536 an SM): wide-128x256 233 x 256 threads (1), tall-256x128 228-235 x 256 (1; added after
# the held-out set's 16 x 4096x77x40, where it ran 11% faster than sq-128x128), sq-128x128 123-128 x 256 (2; with B^T
# 134-136: 1, as with_layout's min_blocks=1 there), the k16 tiles 162-164 x 128 (3), plain-64x64 187 x 64 (5),
# plain-32x64 86-87 x 128 (5), plain-32x32 90-93 x 64 (10).  Rates (TFLOP/s of padded tiles in full waves): rounded
# from a least-squares fit of each member's time a wave against K on session 45's run b (docs/data/session45/b_99c23e3:
# wide-128x256 53.4, tall-256x128 51.4, sq-128x128 45.1, the k16 tiles 57.2-57.4, 64x64 58.2, 32x64 34.2, 32x32 29.4-38.9,
# each within 2-45% of its times), sq-128x128 and 64x64 set nearer their medians (50, 47).  Judged offline on runs b, d
# and f (lab/experiments/batch_choice_eval.py): the picks 0.7-2.9% over each shape's fastest member.
BATCH_TILES: Tuple[Tuple[str, int, int, float], ...] = (
    ("wide-128x256", 1, 1, 54.0),
    ("tall-256x128", 1, 1, 51.0),
    ("sq-128x128", 2, 1, 50.0),
    ("wide-64x128-k16", 3, 3, 57.0),
    ("tall-128x64-k16", 3, 3, 57.0),
    ("plain-64x64", 5, 5, 47.0),
    ("plain-32x64", 5, 5, 34.0),
    ("plain-32x32", 10, 10, 30.0),
)


def batch_time(name: str, m: int, n: int, k: int, batch: int, sm_count: int, trans_b: bool = False) -> float:
    """Modelled microseconds of BATCH_TILES' member `name` on a batch of M x N x K (the ranking only): the blocks in
    waves of the SMs' slots, a wave one SM's blocks of BM x BN x K (K in whole k-tiles) at the tile's rate, and their C
    tiles written at the SM's share of the copy bandwidth (what keeps big tiles off small K: 384 x 197x197x64 ran 9%
    faster on 32x32 tiles than on 64x128 ones, 1.29 against 1.69 times C's area)."""
    _, nn_blocks, bt_blocks, rate = next(t for t in BATCH_TILES if t[0] == name)
    c = get_member(name).config
    per_sm = bt_blocks if trans_b else nn_blocks
    blocks = batch * _ceil(m, c.bm) * _ceil(n, c.bn)
    waves = _ceil(blocks, per_sm * sm_count)
    c_write_us = 4.0 * sm_count / (COPY_TBPS * 1e6)  # a float of C at one SM's share of the copy bandwidth
    k_run = _ceil(k, c.bk) * c.bk  # the last k-tile runs whole: K = 40 on BK = 16 is 48 (measured 18% slower)
    return waves * per_sm * c.bm * c.bn * (2.0 * k_run * sm_count / (rate * 1e6) + c_write_us)


def _runs(name: str, m: int, n: int, trans_a: bool, trans_b: bool, bound: float) -> bool:
    """Does BATCH_TILES' member take part on this C: its tile pads C's area by at most `bound`, and where C's tiles
    are ragged its batched form keeps the edge clamp (sq-128x128 at two blocks an SM has none: every ragged tile
    there takes the checked loads, 16 x 4096x77x40 ran 37% slower on it than on tall-256x128 with the clamp)."""
    c = get_member(name).config
    if _pad(m, n, c.bm, c.bn) > bound:
        return False
    return (m % c.bm == 0 and n % c.bn == 0) or with_layout(c, trans_a, trans_b, batched=True).edge_clamp


def batch_member(m: int, n: int, k: int, batch: int, sm_count: int, trans_b: bool = False,
                 trans_a: bool = False) -> str:
    """The member of a batch of `batch` M x N x K GEMMs (the module docstring's rule)."""
    if m <= BATCH_SKINNY:
        return "skinny-m16"
    if n <= BATCH_SKINNY:
        return "skinny-n16"
    bound = SMALL_MAX_PAD if batch * m * n <= SMALL_MN else MAX_PAD  # the batch's C, not one entry's, is small
    names = [t[0] for t in BATCH_TILES if _runs(t[0], m, n, trans_a, trans_b, bound)]
    names = names or ["plain-32x32"]
    return min(names, key=lambda name: batch_time(name, m, n, k, batch, sm_count, trans_b))


# Decode's batches split over K (skinny_split): skinny-m16's tile as the CUDA C split-K kernel, blockIdx.z = entry x
# splits + split, then a reduce an entry.  A batch of m <= 16 has one row of tiles an entry: 32-256 entries of p V
# (n = 128, K of 512-4096) made 32-256 blocks, each walking all of K alone (0.44-0.75x torch.bmm, d_930d427).
SPLIT_FILL_BLOCKS = 4  # blocks an SM the splits aim at (skinny-m16's CUDA C kernel: 64 threads, 208 registers: 4 fit)
SPLIT_MIN_KTILES = 8  # k-tiles a split at least
SPLIT_MAX = 32


def skinny_split(m: int, n: int, k: int, batch: int, sm_count: int) -> int:
    """Splits over K for a batch on skinny-m16's tile (m <= BATCH_SKINNY): the fewest, a power of two, whose blocks
    reach SPLIT_FILL_BLOCKS an SM, each split keeping SPLIT_MIN_KTILES k-tiles; 1 where the entries' blocks do."""
    c = get_member("skinny-m16").config
    if m > BATCH_SKINNY:
        return 1
    blocks = batch * _ceil(n, c.bn)
    s = 1
    while (blocks * s < SPLIT_FILL_BLOCKS * sm_count and 2 * s <= SPLIT_MAX
           and _ceil(k, c.bk) >= SPLIT_MIN_KTILES * 2 * s and batch * 2 * s <= MAX_GRID_YZ):  # z: entry x split
        s *= 2
    return s


def split_config(split: int, trans_a: bool, trans_b: bool):
    """(config, backend) of skinny-m16's tile split `split` ways over K, batched, in the layouts: the CUDA C split-K
    kernel (the PTX backend has no split-K), without the PTX-only stream-K and edge clamp."""
    tile = get_member("skinny-m16").config.replace(stream_k=False, edge_clamp=False, edge_vector_path=False)
    return with_layout(tile, trans_a, trans_b, batched=True).replace(split_k=split), "cuda"


def choose_batched(m: int, n: int, k: int, batch: int, arch: str, sm_count: int, trans_a: bool = False,
                   trans_b: bool = False) -> Tuple[SgemmConfig, str]:
    """(config, backend) of a batch of `batch` M x N x K GEMMs (blockIdx.z = batch entry): batch_member's tile,
    generated batched for the layouts (sm_80..89: the zorder preset); skinny-m16's split over K where its entries'
    blocks are few (skinny_split)."""
    m, n, k, batch, sm_count = int(m), int(n), int(max(k, 1)), int(batch), int(sm_count)
    name = batch_member(m, n, k, batch, sm_count, trans_b, trans_a) if arch == "sm_90" else "cuda-zorder"
    split = skinny_split(m, n, k, batch, sm_count) if name == "skinny-m16" else 1
    if split > 1:
        return split_config(split, trans_a, trans_b)
    mem = get_member(name)
    return with_layout(mem.config, trans_a, trans_b, batched=True), mem.backend


# ---- batches of GEMVs: m == 1 or n == 1 (decode attention a head) ----------------------------------------------------
# A batch of m == 1 GEMMs on skinny-m16's tile pads 15 of its 16 rows and walks K one k-tile at a time: decode's p V
# (256 x 1x128x1024 NN) ran 0.75x torch.bmm split over K, q K^T (256 x 1x1024x128 NT) 0.98x (session 45,
# docs/data/session45/g_ea40f30).  The SGEMV family's kernels, batched (sgemv_config.BATCHED_DOC), stream each entry's
# matrix once with float4 loads.  Measured on the H200 (session 46, lab/experiments/batched_gemv_ab.py,
# docs/data/session46/b_f7d6b47: every candidate config interleaved with torch.bmm on 14 batches):
# - op N (q K^T: a dot product of head-dim floats a matrix row): the single GEMV's row rule (config_for_width, and 8
#   float4 loads a lane on long rows, sgemv_config.long_rows) was fastest or within 1% on every shape but the tiny
#   32 x 128x128 (2.4 us against 2.2): 97.5% of the copy bandwidth on 256 x 1x1024x128, 1.51x torch.bmm (cuBLAS's
#   batched GEMM there moves 65%).  32 x 4096x1x4096: 4 float4 loads a lane 502.9 us, 8 479.1 (8 warps a block 473.4; bmm 499.1).
# - op T (p V: x^T V, a column strip a block): strips of 128 columns (32 x 8 threads) where the batch's strips make at
#   least GEMV_TARGET_BLOCKS; narrower strips, down to 32 columns (8 x 32 threads, the thread rows of a warp meeting
#   by shuffles), where they do not: 64 x 1x128x4096 (64 strips of 128 columns) ran 46.2 us on 128-column strips, 33.4
#   on 64-column, 31.8 on 32-column (256 blocks), 39.8 on 16-column (bmm 35.8).  256 x 1x128x1024: 128-column strips
#   (256 blocks) 31.7 us, 64-column 32.5 (bmm 36.5).  Rows in flight a thread: 8 ran faster than 4 only where the
#   batch made at most 2 blocks an SM (256 x 1x128x1024 31.2 / 32.6 us, 64 x 1x128x4096 31.3 / 32.6, runs c_629dfe1),
#   4 faster on the eight other shapes (by 1-7%, e.g. 512 x 1x128x512 31.8 / 32.3 and, in run e_3346f14, 512 x 1x80x512
#   on 16-column strips 23.3 / 24.9); hence GEMV_DEEP_BLOCKS (fitted on those ten).  Judged with the narrow strips below
#   on eight p V batches neither was fitted on (run f_8a422c2, shapes=check): 1.009-1.240x torch.bmm, within 0.6% of
#   the fastest candidate on seven and 2.8% on 40 x 1x96x4096.
# - A matrix narrower than its strip (head dims of 48-112): the same strips, the threads past its columns idle.  Until
#   session 47 a strip reaching past N read scalars (the third batched set's NN 256 x 1x80x1500 ran 0.76x torch.bmm
#   on one 128-column strip), and session 46 took the widest strips that tile the columns instead (16 columns there:
#   52.4 -> 36.5 us, run e_3346f14).  Since such a strip reads float4s (emit_sgemv.VEC_BLOCK_TEST), the one strip ran
#   faster (run b_78a0360, shapes=narrow): 256 x 1x80x1500 31.0 us against 36.6 on the tiling strips, 512 x 1x80x512
#   22.6 / 23.3, 128 x 1x112x1024 15.6 (64-column strips) / 17.7 (16-column), 128 x 1x48x1024 8.3 (32-column) / 8.7.
# A batch whose blocks would leave more than half the SMs empty (a few entries of few strips or rows: each block would
# walk a long matrix alone) stays with the GEMM members, which split K there (skinny_split).
GEMV_TARGET_BLOCKS = 1.5  # blocks an SM that op T's strips aim at before they narrow
GEMV_MIN_STRIP_THREADS = 8  # op T's narrowest strip: 8 float4 lanes, 32 columns (a 128-byte line a row)
GEMV_MIN_FILL = 0.5  # blocks an SM below which the GEMM members run the batch
GEMV_DEEP_BLOCKS = 2  # op T: 8 rows in flight a thread where the batch's blocks are at most this many an SM


def batched_gemv(rows: int, cols: int, op: str, batch: int, sm_count: int):
    """The batched GEMV config of `batch` GEMVs y = op(A) x, A row-major rows x cols (op N: a dot product a row; op T:
    x^T A, a column strip a block), or None where its blocks would leave more than half the SMs without one
    (GEMV_MIN_FILL).  The rules and their measurements: the comment above."""
    if op == "N":
        cfg = long_rows(config_for_width(cols), cols).replace(batched=True)
        blocks = _ceil(rows, cfg.rows_per_block)
    else:
        vec, tx = strip_lanes(cols)  # as config_for_shape_t, then narrower while the batch's strips are few
        while (tx > GEMV_MIN_STRIP_THREADS and vec == 4
               and batch * _ceil(cols, tx * vec) < GEMV_TARGET_BLOCKS * sm_count):
            tx //= 2
        blocks = _ceil(cols, tx * vec)  # the strips of one entry
        ty = thread_rows(rows, tx)
        # 8 rows in flight a thread only where the batch's blocks are at most GEMV_DEEP_BLOCKS an SM (few threads
        # an SM: each needs more loads in flight), else 4 (comment above)
        deep = batch * blocks <= GEMV_DEEP_BLOCKS * sm_count
        unroll = 8 if rows >= 8 * ty and deep else 4 if rows >= 4 * ty else 1
        cfg = SgemvTConfig(threads_x=tx, threads_y=ty, vec=vec, unroll=unroll,
                           warp_reduce=tx < 32 and tx * ty >= 64, batched=True)
    if batch * blocks < GEMV_MIN_FILL * sm_count or batch > MAX_GRID_YZ:
        return None
    return cfg
