"""What a transposed layout changes in the heuristic's choice (codegen/heuristic.py _member_and_why): the members it
demotes (their layout form runs fewer blocks an SM), the stand-ins of row-major skinny-n fused picks and of the
tall skinny-n shapes' tall-64x32-k32 pick at long K, in TN of a small fused pick where TN's ring runs the
one-pass member and, in TT, of wide-64x128-k16 at n = 128.  The table and
the model are fitted on row-major A and B; these are the layout's measured exceptions.  Pure: codegen only."""
from __future__ import annotations

import functools
from typing import Optional

from .layouts import with_layout
from .presets import get_member


@functools.lru_cache(maxsize=None)
def demoted_in_layout(name: str, trans_a: bool, trans_b: bool) -> bool:
    """Does the layout's form of PTX member `name` (layouts.with_layout) run fewer blocks an SM than the member?  Then
    it is no candidate there: the table's ratios are of the member at its own occupancy.  The 128x128 8x8 tiles on
    B^T: with_layout steps around the register rule's refusal at min_blocks=2 with min_blocks=1.  Measured (H200,
    session 32, docs/data/session32/b_75e735a): on 37 NT shapes whose choice was sq-128x128 (18 with aligned rows, 19
    without), the table's pick without it was faster on all 37, 9.0% (geometric mean; 2.3-16.5%), and took them
    from 0.964x cuBLAS's NT to 1.060x, 12 -> 25 at >= 1.0x (TT, demoted the same way, was not timed).  CUDA C members
    keep their place (splitk-128x128, demoted the same way, ran 512^3 NT fastest of every member: session 30,
    g_14ba623).  The batched choice (choose_batched) has its own members and measurements and does not ask this."""
    mem = get_member(name)
    if mem.backend != "ptx" or not (trans_a or trans_b):
        return False
    return with_layout(mem.config, trans_a, trans_b).min_blocks < mem.config.min_blocks


# In a transposed layout a skinny-n fused pick runs a stream-K skinny-n member instead: on B^T (NT) the one of the same
# tile, 128 x 32 (256 x 32), K split by stream-K rather than in one fused launch; on A^T (TN, and TT, not timed) the
# 256 x 32 one, which reads 1 KB of each of A^T's rows a k.  Every member timed in NT and TN (H200, us):
# - the suite's two such shapes (session 30, docs/data/session30/g_14ba623): 32768x32x4096 NT skinny-n32 240.8
#   against tall-64x32-k32's 300.5, TN skinny-n32-256 187.8 / skinny-n32 209.0 / 236.1; 16384x32x16384 NT skinny-n32
#   475.7 / 578.9, TN skinny-n32-256 365.4 / skinny-n32 409.9 / 457.8;
# - the held-out two (session 31, docs/data/session31/c_bd96dd5): NT skinny-n32 fastest of the 24 and 8 members on
#   4096x32x11008 and 8192x24x8192, TN skinny-n32-256 (73.6 against skinny-n32's 79.1, 101.9 / 110.2);
# - with the fused kernel reading A^T and B^T by float4 (session 33, docs/data/session33/b_5c125e9): on 10 skinny-n
#   fused picks, the stand-in ahead of the fastest fused member on 9 in NT (4-15%: 4096x32x11008 90.0 against 98.5)
#   and all 10 in TN (8-25%: 73.5 against 94.3); NT 32768x24x384 the exception, fused-128x32-f1 28.9 against 29.4.
# Where no stand-in holds n whole (16384x64x512, fused-128x32-f1), the unfused members' best: the fused member ran 14-21%
# behind it in NT, TN and TT (session 33, c_52ccf72: NT 36.4 against sq-64x64's 31.8).  The other fused picks
# (fused-32x32, -k8, fused-32x64) run themselves in every layout (session 33, b_5c125e9: on 46 shape-layouts
# 0.905 -> 1.069x cuBLAS, 10 -> 29 at >= 1.0x, against the unfused choice before; docs/shapes.md).
# fused-128x16 (session 34, n of 9-16) runs itself on B^T (NT: 4096x16x4096 27.6 us against skinny-n16-k32's 31.0,
# 8192x16x8192 82.5 / 97.3, 2048x16x32768 84.2 / 99.0, docs/data/session34/f_4919b2f against session 32's NT sweep) and
# on A^T gives way to skinny-n16-k32, whose A^T rows stream at 85% of copy (TN 2048x16x32768: 76.2 us against its 88.9
# at split 16, docs/data/session34/b_a6a190e).
FUSED_STAND_IN = {"fused-128x32": "skinny-n32", "fused-128x32-f1": "skinny-n32", "fused-256x32": "skinny-n32-256"}
FUSED_STAND_IN_A_T = {**{pick: "skinny-n32-256" for pick in FUSED_STAND_IN}, "fused-128x16": "skinny-n16-k32"}


# In TN (A^T, B row-major) the small 4x4 PTX members run the cp.async ring (operand_forms.for_ring), which the NN table
# does not see, and a fused-32x32-k8 pick gives way to plain-32x32 within the range measured: its 32x32 tiles fill a
# wave (at least one an SM: no split needed, and at least RING_STAND_IN_MIN_TILES), K of RING_STAND_IN_MIN_K to
# RING_STAND_IN_MAX_K (the ring's 24-36 k-tiles of 16: for_ring takes more than 16) and N not skinny
# (RING_STAND_IN_MIN_N: n = 32's picks, fused or not, were not timed against it), on aligned rows (the ring's form).
# Every member timed in TN as regtile.sgemm runs it (H200): on the six such TN shapes measured, the fused pick ran
# 1.15-1.29x the fastest member, plain-32x32 1.00-1.09x (geometric means 1.20 / 1.02) -
# - session 38's probe shapes (docs/data/session38/a_fe7883a: trigger and launches then as in session 38):
#   192x1024x384, 1536x128x384, 3072x64x384, 2048x96x384 (plain-32x32 1.011, 1.008, 1.001, 1.000; fused 1.148-1.197);
# - session 40's held-out shapes (docs/data/session40/f_532b1c1, found before the rule): 3136x64x576 plain-32x32
#   12.3 us against the fused pick's 14.4 (cuBLAS's TN 14.6), 196x1152x384 9.3 against 11.0 (11.3).
# plain-32x64 was faster still on four of the six but 2.19x the fastest on 2048x96x384 (n = 96: its 64-wide tiles).
# TT has no ring (the fused pick ran 1.5% behind the fastest on 196x1152x384 TT) and keeps its pick.
RING_STAND_IN = {"fused-32x32-k8": "plain-32x32"}
RING_STAND_IN_MIN_K, RING_STAND_IN_MAX_K = 384, 576
RING_STAND_IN_MIN_N = 64
RING_STAND_IN_MIN_TILES = 192


# In a transposed layout a tall skinny-n shape (n of 20-32) whose A is big runs the layout's skinny-n member, the one
# that stands in for skinny-n fused picks (FUSED_STAND_IN: skinny-n32 on B^T only, NT; skinny-n32-256 on A^T, TN and
# TT, which reads 1 KB of each of A^T's rows a k), in place of the NN table's tall-64x32, tall-64x32-k32 or
# splitk-128x32 pick: the memory-bound member streams A once where the NN pick, fastest in NN, is not in the layout.
# Every member timed (H200):
# - session 41 (docs/data/session41/f_deb5f3f, g_2f16bb6): on the held-out sets' 10240x28x2560, 13824x24x5120,
#   16384x30x4096 and 18944x20x3584 in TN, NT and TT the stand-in was the fastest member on all 12, the pick 1.03-1.27x
#   its time; on 11 TN shapes with 3-13 MB of A (K of 96-256, m of 8192-16384; b_8a7f384) the pick was fastest, the
#   stand-in 1.4-2.2x slower.
# - session 42 (docs/data/session42/a_2699e08, b_32b1a3b): 18 shapes with 16-72 MiB of A (m of 4096-65536, K of
#   256-4096), in the three layouts.  In NT and TT the stand-in ran at 0.79-0.97x the pick's time on every shape with at
#   least 36 MiB of A (22 shape-layouts, m of 4096 up), 0.94-1.06x at 32 MiB and up to 1.37x below.  In TN (A^T read
#   through TN's ring by the pick) it won from 48 MiB with m of 10240 up (0.83-0.98x, five shapes), lost at m of
#   4096-8192 with 48-64 MiB (1.007-1.044x) and was mixed below 48 MiB (0.97-1.05x).
# The rule takes those bounds (SKINNY_STAND_IN_MIN_TN / _NT_TT: m and m k, A's floats), n from the smallest measured
# (20) to what the stand-ins' block tiles hold whole (32); unaligned A or B rows were not timed (the rule takes them).
SKINNY_STAND_IN_PICKS = ("tall-64x32-k32", "tall-64x32", "splitk-128x32")
SKINNY_STAND_IN_MIN_N, SKINNY_STAND_IN_MAX_N = 20, 32
SKINNY_STAND_IN_MIN_TN = (10240, 12 << 20)  # (m, m k) at least, where A alone is transposed (48 MiB of A)
SKINNY_STAND_IN_MIN_NT_TT = (4096, 9 << 20)  # ... in NT and TT (36 MiB)


def skinny_stand_in(pick: str, m: int, n: int, k: int, trans_a: bool, trans_b: bool) -> Optional[str]:
    """The member that runs the row-major pick `pick` on a tall skinny-n shape in a transposed layout (the layout's
    skinny-n stand-in, as fused_stand_in's), or None: not such a pick, NN, N outside SKINNY_STAND_IN_MIN_N..MAX_N, or
    m or A's floats (m k) below the layout's bound (SKINNY_STAND_IN_MIN_TN, _NT_TT)."""
    if pick not in SKINNY_STAND_IN_PICKS or not (trans_a or trans_b) or not (
            SKINNY_STAND_IN_MIN_N <= n <= SKINNY_STAND_IN_MAX_N):
        return None
    min_m, min_elems = SKINNY_STAND_IN_MIN_TN if trans_a and not trans_b else SKINNY_STAND_IN_MIN_NT_TT
    if m < min_m or m * k < min_elems:
        return None
    return fused_stand_in("fused-128x32", trans_a)  # the layout's stand-in of a 128 x 32 skinny-n fused pick


def ring_stand_in(pick: str, m: int, n: int, k: int, sm_count: int, trans_a: bool, trans_b: bool,
                  aligned: bool) -> Optional[str]:
    """The member that runs the row-major pick `pick` in TN on TN's cp.async ring (RING_STAND_IN), or None: not such
    a pick, not TN, rows not aligned, K outside RING_STAND_IN_MIN_K..MAX_K, N below RING_STAND_IN_MIN_N, or fewer of
    the stand-in's tiles than SMs or than RING_STAND_IN_MIN_TILES."""
    stand_in = RING_STAND_IN.get(pick)
    if (stand_in is None or not trans_a or trans_b or not aligned or not RING_STAND_IN_MIN_K <= k <= RING_STAND_IN_MAX_K
            or n < RING_STAND_IN_MIN_N):
        return None
    cfg = get_member(stand_in).config
    return stand_in if -(-m // cfg.bm) * -(-n // cfg.bn) >= max(sm_count, RING_STAND_IN_MIN_TILES) else None


# In TT the table's wide-64x128-k16 pick at n = 128 (one tile column) gives way to tall-128x64-k16 (two, no padding):
# measured (H200, session 44, docs/data/session44/h_f397433, four members on five TT shapes of n = 128, m of 2048-16384,
# K of 2048-14336, aligned rows) tall-128x64-k16 ran 1.0-1.3% faster than the pick on all five (8192x128x8192 349.2 ->
# 344.8 us, 4096x128x4096 95.2 -> 94.0, 4096x128x14336 306.6 -> 303.6); tall-256x128 won on the two largest by 0.5-1.1%
# more and ran 4.5% / 6.1% slower than the pick at 4096x128x4096 / 2048x128x8192.  In NT the same pick ran 1.007-1.088x
# cuBLAS there (session 44's sweeps); NN and TN were not timed so.  Unaligned rows (C's too) and shapes outside these
# bounds keep the pick; so does n of 65-127, where the stand-in's second tile column is part padding, and a TT choice of
# wide-64x128-k16 where the row-major pick was another member the layout demotes (not timed).
TT_NARROW_STAND_IN = {"wide-64x128-k16": "tall-128x64-k16"}
TT_NARROW_N = 128  # the only n measured
TT_NARROW_MIN_M = TT_NARROW_MIN_K = 2048


def tt_narrow_stand_in(pick: str, m: int, n: int, k: int, trans_a: bool, trans_b: bool,
                       aligned: bool) -> Optional[str]:
    """The member that runs the row-major pick `pick` in TT at n = 128 (TT_NARROW_STAND_IN), or None: not such a pick,
    not TT, rows not aligned, n other than TT_NARROW_N, m or K below their bounds."""
    stand_in = TT_NARROW_STAND_IN.get(pick)
    if (stand_in is None or not (trans_a and trans_b) or not aligned or n != TT_NARROW_N
            or m < TT_NARROW_MIN_M or k < TT_NARROW_MIN_K):
        return None
    return stand_in


def fused_stand_in(pick: str, trans_a: bool) -> Optional[str]:
    """The member that runs a row-major skinny-n fused pick in a transposed layout (None: not such a pick, or one that
    runs itself there): FUSED_STAND_IN's on B^T, FUSED_STAND_IN_A_T's on A^T."""
    return (FUSED_STAND_IN_A_T if trans_a else FUSED_STAND_IN).get(pick)
