"""The workload suite of issue 20: GEMM shapes (row-major M x N x K) that real workloads use.

    python3 benchmarks/shapes.py        rewrites benchmarks/shapes.json (and shapes-heldout.json,
                                        shapes-heldout-2.json, -3.json, -4.json, -5.json, and the
                                        fitting grids shapes-fit-small.json, -tall.json,
                                        -tiny.json, -flat.json, -narrow.json, -ragged.json,
                                        -ragged-mid.json, -ragged-big.json, -aligned.json; the
                                        aligned partners shapes-pair-aligned.json and the skinny
                                        probe shapes-skinny-probe.json: timed, not in the table)
                                        from the lists below

tools/shape_sweep.py reads the JSON (the sweep and the heuristic's fitting run both time
every shape of it).  Each entry: {"m", "n", "k", "group"}; groups:
  square      squares 128-16384, powers of two and not
  proj        transformer / MLP projections: tokens x d_out x d_in (forward, m = tokens)
              and d_out x tokens x d_in (the other orientation), sampled from d in
              {768, 1024, 2048, 4096, 5120, 8192} x tokens in {1, 8, 16, 64, 128, 512, 2048,
              8192} so that every d and every token count appears in both orientations
  skinny      m or n in 1..64 with long K (up to 500,000); m = 1 / n = 1 are GEMVs (routed
              to the GEMV family by the coordinator; timed here with the GEMM family)
  small       small K (64-256), or small N (<= 64) with large M
  ragged      odd, prime and 2^k +- 1 sizes, and the mid-size shapes of issue 20
"""
from __future__ import annotations

import functools
import itertools
import json
import math
import os

SQUARES = (128, 256, 384, 512, 768, 1000, 1024, 1536, 2000, 2048, 3000, 3072, 4096, 5000, 6144, 8192, 12288,
           16384)
DS = (768, 1024, 2048, 4096, 5120, 8192)
TOKENS = (1, 8, 16, 64, 128, 512, 2048, 8192)
SKINNY = ((1, 7680, 2560), (1, 6144, 2048), (1, 512, 500000), (2, 4096, 16384), (4, 1024, 65536),
          (8, 8192, 8192), (16, 2048, 2048), (16, 4096, 4096), (32, 4096, 4096), (32, 1024, 131072),
          (48, 2048, 8192), (64, 4096, 16384), (64, 1024, 500000), (4096, 1, 4096), (8192, 8, 8192),
          (2048, 16, 32768), (16384, 32, 16384), (4096, 64, 65536), (1024, 4, 500000), (7680, 2, 2560))
SMALL = ((1500, 4224, 176), (1500, 3072, 128), (8192, 8192, 64), (16384, 4096, 128), (65536, 1024, 256),
         (4096, 16384, 64), (32768, 2048, 192), (700, 35, 2048), (65536, 16, 1024), (100000, 64, 512),
         (32768, 32, 4096), (50000, 48, 256), (16384, 8, 16384))
RAGGED = ((127, 511, 257), (4097, 4097, 4097), (2049, 2047, 1025), (1009, 1013, 1019), (4099, 4093, 4091),
          (8191, 8193, 1025), (65, 33, 4097), (1023, 1025, 1023), (3000, 512, 2816), (700, 5124, 2048),
          (1500, 512, 2560), (7000, 1760, 1760), (255, 257, 65537), (6143, 2047, 3071), (513, 129, 16383),
          (3, 5, 7), (17, 8191, 4099))


# Held out (session 14): shapes of real models that the suite does not hold and the heuristic's table was
# not fitted on - LLaMA-7B / 13B / 3-8B (d 4096 / 5120, MLP 11008 / 13824 / 14336, vocab 32000), GPT-2
# (768, 3072, vocab 50257: an odd N), BERT-large (1024, 384 tokens) - in the suite's groups.  The sweep
# on them (`shape_sweep --suite benchmarks/shapes-heldout.json`) says how the table carries to shapes
# it never saw; they are not for fitting.
HELDOUT = {
    "decode": ((1, 11008, 4096), (1, 4096, 11008), (1, 14336, 4096), (1, 32000, 4096), (4, 11008, 4096),
               (8, 4096, 14336), (12, 5120, 13824), (16, 13824, 5120), (24, 4096, 4096), (32, 11008, 4096),
               (40, 5120, 5120), (64, 14336, 4096), (96, 4096, 11008), (128, 4096, 14336)),
    "prefill": ((256, 11008, 4096), (384, 1024, 1024), (384, 4096, 1024), (500, 4096, 4096), (1000, 11008, 4096),
                (1536, 4096, 14336), (2048, 13824, 5120), (3000, 4096, 4096), (4096, 1024, 4096),
                (4096, 32000, 4096), (1024, 50257, 768), (128, 3072, 768), (8192, 3072, 768)),
    "grad": ((4096, 4096, 2048), (11008, 4096, 1024), (4096, 11008, 512), (768, 3072, 8192), (14336, 4096, 256)),
    "skinny-n": ((11008, 16, 4096), (4096, 32, 11008), (14336, 64, 4096), (8192, 24, 8192), (5120, 40, 5120),
                 (32000, 8, 4096)),
    "ragged": ((999, 999, 999), (2500, 2500, 2500), (3333, 2222, 1111), (1023, 4095, 2047), (2040, 4100, 16000),
               (6000, 2000, 3000), (100, 100, 100000)),
}

# A second held-out set (session 14), for after HELDOUT went into the table's fit: other models' shapes - Phi-2
# (2560 / 10240), Qwen2-7B (3584 / 18944), Falcon-7B (4544), ViT-B/L (197 / 577 tokens), T5 (512 / 2048),
# ResNet-50's convolutions as im2col GEMMs (spatial x channels x 9 channels) - in the same groups.
HELDOUT_2 = {
    "decode": ((1, 10240, 2560), (1, 2560, 10240), (2, 18944, 3584), (3, 4096, 14336), (6, 4544, 4544),
               (20, 3584, 18944), (48, 10240, 2560), (80, 2560, 10240)),
    "prefill": ((197, 768, 768), (197, 3072, 768), (197, 768, 3072), (577, 1024, 1024), (1500, 3584, 3584),
                (2048, 18944, 3584), (4096, 4544, 4544), (512, 2048, 512), (2000, 10240, 2560), (6144, 2560, 10240)),
    "conv": ((3136, 64, 576), (784, 128, 1152), (196, 256, 2304), (49, 512, 4608), (12544, 64, 147)),
    "grad": ((3584, 18944, 1024), (2560, 10240, 2048), (4544, 4544, 4096), (1024, 1024, 65536)),
    "skinny-n": ((18944, 20, 3584), (10240, 28, 2560), (4544, 48, 4544), (3584, 12, 3584)),
    "ragged": ((1111, 3333, 2222), (777, 7777, 777), (4001, 4003, 4007), (2047, 4097, 1023), (1500, 1500, 1500),
               (333, 33333, 333)),
}

# A third held-out set (session 14), the out-of-sample check once HELDOUT and HELDOUT_2 went into the fit:
# LLaMA-70B / Mixtral (8192, 28672), Gemma-7B (3072, 24576), GPT-J (4096, 16384), OPT-1.3B (2048, 8192),
# Whisper (1280 / 5120, 1500 frames), Stable Diffusion's attention projections (4096 tokens x 320 / 1280),
# CLIP's text encoder (77 tokens), ResNet-50's later convolutions as im2col GEMMs.
HELDOUT_3 = {
    "decode": ((1, 28672, 8192), (1, 8192, 28672), (2, 24576, 3072), (5, 16384, 4096), (10, 8192, 2048),
               (28, 3072, 24576), (56, 5120, 1280), (100, 16384, 4096), (1, 3072, 3072)),
    "prefill": ((77, 768, 768), (77, 3072, 768), (300, 4096, 4096), (640, 2048, 8192), (1200, 16384, 4096),
                (1500, 1280, 1280), (1500, 5120, 1280), (4096, 320, 320), (4096, 1280, 320), (1024, 640, 640),
                (5000, 2048, 2048), (2048, 28672, 8192), (8192, 8192, 3072)),
    "conv": ((50176, 128, 576), (12544, 256, 1152), (3136, 512, 2304), (200704, 64, 64)),
    "grad": ((8192, 28672, 1024), (3072, 24576, 512), (1280, 5120, 3000), (4096, 4096, 100)),
    "skinny-n": ((28672, 8, 8192), (16384, 30, 4096), (24576, 56, 3072), (2048, 3, 8192)),
    "small": ((2048, 1024, 512), (65536, 256, 64)),
    "ragged": ((1919, 2929, 3939), (5555, 555, 5555), (129, 4097, 513), (63, 63, 250000), (2999, 7001, 211)),
}

# A fourth held-out set (session 15), made to judge the heuristic's model on shapes no choice was designed on:
# Mistral-7B (fused QKV 6144, KV 1024, MLP 14336), Qwen2.5-14B (5120 / 13824), Llama-3.2-1B / 3B (2048 / 3072,
# MLP 8192, vocab 128256), BERT-base at 4096 tokens, DeiT-S / Swin-T's stages (tokens 3136 / 784 / 196 / 49,
# dims 96-768), LoRA adapters (rank 16 / 64: a small N, or a small K), and ragged sizes.
HELDOUT_4 = {
    "decode": ((1, 6144, 4096), (4, 14336, 4096), (8, 1024, 4096), (16, 128256, 2048), (32, 3072, 3072),
               (2, 13824, 5120), (64, 5120, 13824), (12, 8192, 3072), (48, 6144, 4096)),
    "prefill": ((512, 6144, 4096), (2048, 1024, 4096), (1024, 14336, 4096), (700, 13824, 5120), (4096, 768, 768),
                (4096, 3072, 768), (4096, 768, 3072), (256, 128256, 2048), (1500, 3072, 8192)),
    "vision": ((3136, 288, 96), (3136, 384, 96), (3136, 96, 384), (784, 576, 192), (784, 192, 768),
               (196, 1152, 384), (196, 384, 1536), (49, 2304, 768), (49, 768, 3072)),
    "lora": ((4096, 4096, 16), (2048, 4096, 64), (2048, 64, 4096), (8192, 16, 4096)),
    "skinny-n": ((6144, 40, 4096), (13824, 24, 5120), (4096, 128, 14336)),
    "ragged": ((1234, 5678, 910), (4095, 4095, 4095), (100, 1000, 10000), (8191, 511, 2047), (77, 49408, 512),
               (31, 257, 65536), (3001, 3001, 64)),
}


# A fifth held-out set (session 16), written before the small grid's K midpoints were fitted, after held-out 4 had
# judged the grids: MobileNetV2's pointwise convolutions (tokens 12544 .. 49, channels 16 .. 1280), Whisper-tiny
# (384 / 1536, 1500 frames), ViT-H/14 (1280 / 5120, 257 tokens), Gemma-2B (2048, MLP 16384), Phi-3-mini (3072,
# MLP 8192), DLRM's MLPs (batch 2048), a GNN layer (100000 nodes x 128), and ragged sizes.
HELDOUT_5 = {
    "conv": ((12544, 96, 16), (3136, 144, 24), (784, 192, 32), (196, 384, 64), (196, 576, 96), (49, 960, 160),
             (49, 1280, 320), (12544, 32, 144)),
    "prefill": ((1500, 384, 384), (1500, 1536, 384), (1500, 384, 1536), (257, 3840, 1280), (257, 1280, 1280),
                (257, 5120, 1280), (257, 1280, 5120), (512, 16384, 2048), (512, 2048, 16384), (256, 3072, 8192)),
    "decode": ((1, 16384, 2048), (8, 2048, 16384), (24, 9216, 3072), (2, 3072, 8192)),
    "mlp": ((2048, 256, 512), (2048, 128, 256), (2048, 512, 13), (100000, 128, 128), (4096, 1024, 479)),
    "ragged": ((4100, 1000, 300), (333, 777, 999), (50, 50, 50000), (640, 360, 1200), (1531, 2039, 1021)),
}


# The fitting grid of small problems (session 16): not a target of issue 20, only more rows for the decision table
# and the model where the suite has few (held-out 4's vision GEMMs were 0.66-0.82x cuBLAS through the model, no
# suite shape within the table's distance).  A log2 grid, one step a doubling: M from 48 to 6144 (3 x 2^j), N and K
# from 64 to 2048, at most FIT_SMALL_FLOP, without the points within L1 distance 0.5 (log2) of a suite shape.
FIT_SMALL_M = (48, 96, 192, 384, 768, 1536, 3072, 6144)
FIT_SMALL_NK = (64, 128, 256, 512, 1024, 2048)
# K also at the midpoints (3 x 2^j), added after the BK 32 members: whether a member splits its tiles' K (stream-K)
# turns between K = 256 and 512 on small outputs (192x1024: wide-32x64-k32 the fastest at K = 256, 1.38x the
# fastest at 512), too sharp for one point a doubling.  (Held-out 4's vision shapes have K = 3 x 2^j too: its
# figures after this are not out of sample in K; held-out 5 is new for that.)
FIT_SMALL_K_MID = (96, 192, 384, 768, 1536)
FIT_SMALL_FLOP = 2.2e9


def _small_shapes():
    """The small-problem grid's points: the doublings of K first, then its midpoints."""
    return [s for ks in (FIT_SMALL_NK, FIT_SMALL_K_MID) for s in itertools.product(FIT_SMALL_M, FIT_SMALL_NK, ks)]


def _held_out_shapes():
    return {(m, n, k) for groups in (HELDOUT, HELDOUT_2, HELDOUT_3, HELDOUT_4, HELDOUT_5) for shapes in groups.values()
            for m, n, k in shapes}


def _grid_rows(shapes, flop, inside):
    """A fitting grid's rows {"m", "n", "k", "group": "fit"}: the (m, n, k) of `shapes` (in order) of at most `flop`
    FLOPs, at an L1 distance of at least 0.5 (log2) from every shape of `inside`, and none a held-out shape."""
    held = _held_out_shapes()
    return [{"m": m, "n": n, "k": k, "group": "fit"} for m, n, k in shapes
            if 2 * m * n * k <= flop and (m, n, k) not in held and _log2_distance((m, n, k), inside) >= 0.5]


# The fitting grid of long thin problems (session 16): one of M, N from 8192 to 65536, the other 64-512, K 64-1024,
# both orientations, at most FIT_TALL_FLOP, without the points within 0.5 of a suite or small-grid shape and without
# the held-out sets' shapes themselves (so that they stay out of sample; 65536x256x64 is one).
FIT_TALL_LONG = (8192, 16384, 32768, 65536)
FIT_TALL_SHORT = (64, 128, 256, 512)
FIT_TALL_K = (64, 128, 256, 512, 1024)
FIT_TALL_FLOP = 8.6e9


def _log2_distance(p, shapes):
    """The least L1 distance in log2 space from p to a shape of `shapes` (inf where none)."""
    q = [math.log2(x) for x in p]
    return min((sum(abs(a - math.log2(b)) for a, b in zip(q, s)) for s in shapes), default=float("inf"))


def _tall_shapes():
    """The long thin grid's points, both orientations."""
    return [(m, n, k) for long, short, k in itertools.product(FIT_TALL_LONG, FIT_TALL_SHORT, FIT_TALL_K)
            for m, n in ((long, short), (short, long))]


# The fitting grid of tiny outputs with long K (session 16): M and N 32-256, K 4096-65536, at most FIT_TINY_FLOP,
# without the points within 0.5 of a suite or other grid shape and without the held-out shapes.  Held-out 5's
# 50x50x50000 ran at 0.37x cuBLAS on the model's split-K pick (its blocks wait out a load's round trip per k-tile,
# which the model does not price) with no table shape near.
FIT_TINY_MN = (32, 64, 128, 256)
FIT_TINY_K = (4096, 16384, 65536, 8192, 32768, 131072, 262144)  # doublings of 4 (timed at b311e1b), the rest (20236da)
FIT_TINY_FLOP = 8.6e9

# The fitting grid of flat problems (session 16): M and N 1024-16384, K 16-256 (LoRA adapters' rank-r products,
# small-K layers), at most FIT_FLAT_FLOP, without the points within 0.5 of a suite or other grid shape and without
# the held-out shapes.
FIT_FLAT_MN = (1024, 2048, 4096, 8192, 16384)
FIT_FLAT_K = (16, 32, 64, 128, 256)
FIT_FLAT_FLOP = 8.6e9

# The fitting grid of narrow problems (session 17): M 2048-65536, N 24-256, K 16-384 with the midpoints 3 x 2^j in M,
# N and K (convolutions as GEMMs: M the output pixels, N the output channels, K the input channels times the
# window), at most FIT_NARROW_FLOP, without the points within 0.5 of a suite or other grid shape and without the
# held-out shapes.  Held-out 2 / 5's 12544x64x147 and 12544x32x144 ran at 0.79x / 0.89x cuBLAS on the model's
# split-K pick with at most one table shape near (the region was chosen looking at them).
FIT_NARROW_M = (2048, 4096, 8192, 16384, 32768, 65536)
FIT_NARROW_M_MID = (3072, 6144, 12288, 24576, 49152)  # timed after the doublings (74d710c), as the small grid's K midpoints
FIT_NARROW_N = (24, 32, 48, 64, 96, 128, 192, 256)
FIT_NARROW_K = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384)
FIT_NARROW_FLOP = 8.6e9


# The fitting grid of ragged problems (session 27, not yet timed): M, N and K at 3 x 2^j from 96 to 6144, each moved
# off a multiple of 4 (N and K by 1, 2 or 3 in turn: packed row-major operands then have unaligned rows, and B's
# vectors straddle N), at most FIT_RAGGED_FLOP.  The table and the model were fitted on aligned shapes (15 of the
# table's 1504 row-major shapes have unaligned rows) and underestimate ragged ones for every member (session 27's
# candidates on the H200 losses: 2999x7001x211 on tall-256x128 178.8 us modelled, 235.4 measured).  It keeps apart
# from the held-out shapes (L1 distance >= 0.5, log2), not from the aligned grids: a ragged shape is a different
# problem from its aligned neighbour.  Not in FIT_GRIDS (their rows keep apart from every grid before them).
FIT_RAGGED_BASE = (96, 192, 384, 768, 1536, 3072, 6144)
# Its midpoints (session 29): 3 x 2^j x sqrt(2) rounded to a multiple of 4, moved as above.  Timed with the first
# grid, a query between two of its points at L1 distance 1 apart (just over 1.0 with the moves: 95 to 191) had at most
# one ragged neighbour within heuristic.MAX_DISTANCE.
FIT_RAGGED_MID_BASE = (68, 136, 272, 544, 1088, 2172, 4344)
FIT_RAGGED_FLOP = 8.6e9
# The big ragged grid (session 29): both bases with one more doubling, the points between FIT_RAGGED_FLOP and
# FIT_RAGGED_BIG_FLOP (heuristic.HUGE_FLOPS, above which only the 128x128-class tiles are candidates), smallest first.
# The held-out sets' unaligned shapes above 8.6 GFLOP were all the model's picks, up to 1.07x their fastest member's
# time (2999x7001x211 tall-256x128 against sq-128x128, H200).
FIT_RAGGED_BIG_BASES = (FIT_RAGGED_BASE + (12288,), FIT_RAGGED_MID_BASE + (8688,))
FIT_RAGGED_BIG_FLOP = 2 * 4096 ** 3


def ragged_grid(base=FIT_RAGGED_BASE, flop=(0, FIT_RAGGED_FLOP)):
    """The ragged grid's rows {"m", "n", "k", "group": "fit-ragged"} (base FIT_RAGGED_MID_BASE: its midpoints'): base
    values moved by -1 (M), by 1, 2, 3 (N) and 3, 2, 1 (K) in turn over the points, flop[0] < 2 M N K <= flop[1],
    apart from the held-out shapes."""
    held = sorted(_held_out_shapes())
    rows = []
    for i, (m, n, k) in enumerate(itertools.product(base, repeat=3)):
        m, n, k = m - 1, n + 1 + i % 3, k + 3 - i % 3
        if flop[0] < 2 * m * n * k <= flop[1] and _log2_distance((m, n, k), held) >= 0.5:
            rows.append({"m": m, "n": n, "k": k, "group": "fit-ragged"})
    return rows


def aligned_partners(rows):
    """{"m", "n", "k", "group": "pair-aligned"} for each ragged grid row: its aligned point before the moves
    (M + 1, N & ~3, K & ~3), each once.  Timed on the same device as the ragged rows, the pairs give each member's
    time on unaligned rows over its time on aligned ones (lab/experiments/unaligned_factors.py, session 29); not
    table entries."""
    out = {}
    for r in rows:
        key = (r["m"] + 1, r["n"] & ~3, r["k"] & ~3)
        out.setdefault(key, {"m": key[0], "n": key[1], "k": key[2], "group": "pair-aligned"})
    return list(out.values())


# The aligned grid (session 30): the aligned partners of the first and the big ragged grid (aligned_partners, timed with
# every member on the H200 in session 29 for the unaligned rows' cost), those at least 0.5 (log2, L1) from every suite
# shape, as table entries.  An aligned query takes aligned entries only (heuristic.table_choice), and the aligned
# grids before it (sessions 16-17) left regions the ragged grids reach empty: held-out shapes there fell to the model
# (197x3072x768, 4096x1280x320, 1500x1536x384, 640x360x1200: 2.7% over their fastest member, H200).  Unlike
# FIT_GRIDS it does not keep apart from them: its points near theirs are the H200's measurement beside the H100's.
def aligned_grid():
    """The aligned grid's rows {"m", "n", "k", "group": "fit-aligned"}, apart from the suite and the held-out sets."""
    suite_shapes = [(r["m"], r["n"], r["k"]) for r in suite()]
    held = sorted(_held_out_shapes())
    return [dict(r, group="fit-aligned") for r in aligned_partners(ragged_grid() + ragged_big_grid())
            if _log2_distance((r["m"], r["n"], r["k"]), suite_shapes) >= 0.5
            and _log2_distance((r["m"], r["n"], r["k"]), held) >= 0.5]


# The skinny probe (session 30; timed, not a table source): M or N of 20-48 (the family's thin members: the few-vector
# and GEMV routes take 1-16) against a big side of 1024-32768 and K of 1024-16384, both at half doublings (2^j and
# 3 x 2^(j-1)), on a checkerboard of the two (every other point, as projections() rotates), both orientations; aligned
# (multiples of 4), at least 0.5 (log2, L1) from every suite, held-out and fitting grid shape.  Decode-like shapes with
# 17-48 tokens and a long K have no table shape within heuristic.MAX_DISTANCE and fall to the model.  Timed on the H200
# (docs/data/shape-candidates-session30-skinny-probe_d12f53e.json) and judged offline, its entries made the table's
# picks worse (docs/shapes.md, session 30: neighbours across a thin tile's bound, and the H100 and H200 disagreeing on
# the fastest member of skinny-n shapes), so it is not in the table.
FIT_SKINNY_THIN = (20, 24, 32, 40, 48)
FIT_SKINNY_BIG = (1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768)
FIT_SKINNY_K = (1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384)


def skinny_grid():
    """The skinny probe's rows {"m", "n", "k", "group": "fit-skinny"} (the group it was timed under): thin x big x K
    (skinny m) and big x thin x K (skinny n), apart from the suite, the held-out sets and the fitting grids
    (FIT_GRIDS, the ragged and aligned grids)."""
    inside = [(r["m"], r["n"], r["k"]) for r in suite()]
    inside += [(r["m"], r["n"], r["k"]) for rows in fit_grids().values() for r in rows]
    inside += [(r["m"], r["n"], r["k"]) for r in ragged_grid() + ragged_grid(FIT_RAGGED_MID_BASE) + ragged_big_grid()
               + aligned_grid()]
    held = sorted(_held_out_shapes())
    rows = []
    for t in FIT_SKINNY_THIN:
        for i, big in enumerate(FIT_SKINNY_BIG):
            for j, k in enumerate(FIT_SKINNY_K):
                if (i + j) % 2:
                    continue
                for m, n in ((t, big), (big, t)):
                    p = (m, n, k)
                    if _log2_distance(p, inside) >= 0.5 and _log2_distance(p, held) >= 0.5:
                        rows.append({"m": m, "n": n, "k": k, "group": "fit-skinny"})
    return rows


def ragged_big_grid():
    """The big ragged grid's rows (FIT_RAGGED_BIG_BASES), by FLOPs."""
    rows = [r for base in FIT_RAGGED_BIG_BASES for r in ragged_grid(base, (FIT_RAGGED_FLOP, FIT_RAGGED_BIG_FLOP))]
    return sorted(rows, key=lambda r: r["m"] * r["n"] * r["k"])


# The fitting grids in the order they were written, each (its points, FLOPs at most): a grid keeps apart (_grid_rows)
# from the suite and from every grid before it.  benchmarks/shapes-fit-NAME.json holds each.
FIT_GRIDS = {
    "small": (_small_shapes, FIT_SMALL_FLOP),
    "tall": (_tall_shapes, FIT_TALL_FLOP),
    "tiny": (lambda: itertools.product(FIT_TINY_MN, FIT_TINY_MN, FIT_TINY_K), FIT_TINY_FLOP),
    "flat": (lambda: itertools.product(FIT_FLAT_MN, FIT_FLAT_MN, FIT_FLAT_K), FIT_FLAT_FLOP),
    "narrow": (lambda: [s for ms in (FIT_NARROW_M, FIT_NARROW_M_MID)
                        for s in itertools.product(ms, FIT_NARROW_N, FIT_NARROW_K)], FIT_NARROW_FLOP),
}


@functools.lru_cache(maxsize=None)
def fit_grids():
    """{name: the grid's rows} of FIT_GRIDS, each apart from the suite and the grids before it."""
    inside = [(r["m"], r["n"], r["k"]) for r in suite()]
    out = {}
    for name, (points, flop) in FIT_GRIDS.items():
        out[name] = _grid_rows(points(), flop, inside)
        inside += [(r["m"], r["n"], r["k"]) for r in out[name]]
    return out


# The fitting grid of n = 16 (session 34): the fused-128x16 member's region (codegen/presets.py; n of 9-16, the few-vector
# route's op N giving way to it below 32768 rows): N = 16, M 512-32768 and K 1024-65536 at the doublings, at most
# FIT_N16_FLOATS of A, without the points within 0.5 of a suite or held-out shape.  The suite's shapes with N = 16 were
# timed with it (lab/device_runs/session34_f.sh: a later run's rows replace a shape's in the table).  Not in FIT_GRIDS
# (the grids before it keep apart from their own).
FIT_N16_M = (512, 1024, 2048, 4096, 8192, 16384, 32768)
FIT_N16_K = (1024, 2048, 4096, 8192, 16384, 32768, 65536)
FIT_N16_FLOATS = 2 ** 26


def n16_grid():
    """The n = 16 grid's rows {"m", "n", "k", "group": "fit-n16"}."""
    near = [(r["m"], r["n"], r["k"]) for r in suite()] + sorted(_held_out_shapes())
    return [{"m": m, "n": 16, "k": k, "group": "fit-n16"} for m, k in itertools.product(FIT_N16_M, FIT_N16_K)
            if m * k <= FIT_N16_FLOATS and _log2_distance((m, 16, k), near) >= 0.5]


def fit_grid(name: str):
    """The fitting grid NAME's rows (benchmarks/shapes-fit-NAME.json)."""
    return fit_grids()[name]


def projections():
    """tokens x d x d and d x tokens x d, each d with four token counts per orientation (the
    counts rotate so that every (d, tokens) pair of the grid is near a sampled one), plus the
    MLP's 4d up-projection for a few."""
    out = []
    for i, d in enumerate(DS):
        for j, t in enumerate(TOKENS):
            if (i + j) % 2 == 0:
                out.append((t, d, d))  # activations (t x d) @ weight (d x d)
            else:
                out.append((d, t, d))  # weight (d x d) @ activations^T (d x t): the other orientation
    for d in (1024, 4096):
        for t in (16, 512, 2048):
            out.append((t, 4 * d, d))  # MLP up
            out.append((t, d, 4 * d))  # MLP down
    return out


def suite():
    rows, seen = [], set()

    def add(shape, group):
        if shape not in seen:
            seen.add(shape)
            rows.append({"m": shape[0], "n": shape[1], "k": shape[2], "group": group})
    for s in SQUARES:
        add((s, s, s), "square")
    for s in projections():
        add(s, "proj")
    for s in SKINNY:
        add(s, "skinny")
    for s in SMALL:
        add(s, "small")
    for s in RAGGED:
        add(s, "ragged")
    return rows


def heldout(groups=None):
    """HELDOUT's shapes (or `groups`'), none of them in suite()."""
    inside = {(r["m"], r["n"], r["k"]) for r in suite()}
    return [{"m": m, "n": n, "k": k, "group": g} for g, shapes in (groups or HELDOUT).items() for m, n, k in shapes
            if (m, n, k) not in inside]


def _write(name: str, rows) -> None:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")
    print(f"{len(rows)} shapes -> {path}")


if __name__ == "__main__":
    _write("shapes.json", suite())
    _write("shapes-heldout.json", heldout())
    _write("shapes-heldout-2.json", heldout(HELDOUT_2))
    _write("shapes-heldout-3.json", heldout(HELDOUT_3))
    _write("shapes-heldout-4.json", heldout(HELDOUT_4))
    _write("shapes-heldout-5.json", heldout(HELDOUT_5))
    for grid in FIT_GRIDS:
        _write(f"shapes-fit-{grid}.json", fit_grid(grid))
    _write("shapes-fit-ragged.json", ragged_grid())
    _write("shapes-fit-ragged-mid.json", ragged_grid(FIT_RAGGED_MID_BASE))
    _write("shapes-fit-ragged-big.json", ragged_big_grid())
    _write("shapes-pair-aligned.json", aligned_partners(ragged_grid() + ragged_big_grid()))
    _write("shapes-fit-aligned.json", aligned_grid())
    _write("shapes-skinny-probe.json", skinny_grid())
    _write("shapes-fit-n16.json", n16_grid())
