"""Few-vector GEMV configurations: skinny GEMMs (m or n in 2..16) as one pass over the big operand.

Row-major C (m x n) = op(A) (m x k) op(B) (k x n) with m or n small is a matrix times a few
vectors.  The big operand is streamed once, each of its elements used for every vector; the
small operand's vectors are first copied (the module's `stage` kernel) into a workspace in the
layout the main kernel reads with float4 loads:

- Op T (small m, the matrix is B: rows = k, cols = n; FewVecTConfig): a block is threads_x x
  threads_y threads over a strip of threads_x * 4 columns (as SgemvTConfig's column sweep);
  thread (tx, ty) sweeps rows ty, ty + threads_y, ... of its row range, `unroll` rows' float4
  loads in flight, and keeps vectors x 4 partial sums.  The vectors are staged as X[p][Vp]
  (Vp = vectors rounded up to 4, zero padded): row p's values for all vectors are Vp / 4 float4
  loads, the same address for every thread of a thread row (a broadcast).  The threads_y
  partial sums of a column meet in shared memory in ty order, one vector at a time.
  With `smem_vectors` (9-16 vectors, session 22) a step's staged rows are first copied into
  shared memory (a float4 a thread, double-buffered, one barrier a step) and read back as
  broadcast LDS.128; the matrix's next step is loaded before this step's FMAs; the thread rows
  of a warp meet by xor shuffles, the warps in shared memory.
- Op N (small n, the matrix is A: rows = m, cols = k; FewVecNConfig): a warp holds
  `row_groups` rows, its 32 lanes along the row, float4 loads, `unroll` steps in flight; the
  vectors are staged as X[v][Kp] (Kp = k rounded up to 4, zero padded), so lane l's float4 of a
  vector lies beside lane l + 1's (coalesced) and serves every row of the warp.  The lanes of a
  row meet by xor shuffles.

The matrix may be the transposed operand (session 31): B^T stored n x k in NT with a small m is op N over
B^T's rows, A^T stored k x m in TN with a small n is op T over A^T's columns.  Their C is the op's output
transposed (`transposed_c`: op N writes C[v, row], op T C[col, v]), and so are the split partials.

Splits (gridDim.y > 1) cut the rows (op T) or the columns (op N, a multiple of 4) into ranges;
each writes its partial sums to the workspace and the module's reduce kernel sums them in split
order (deterministic, no atomics).  Registers decide the limits: vectors x 4 accumulators (op T)
or vectors x row_groups (op N) beside the loads in flight (`registers_in_flight`).

The decisions live here (`choose_fewvec`, `fewvec_splits`, `takes`); codegen/emit_fewvec.py
spells them and templates/fewvec_*.cu.j2 only lay the lines out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple, Optional, Tuple

from .config_base import ConfigDict, check_bools, check_ints, check_pow2
from .config import ConfigError
from .sgemv_config import H100_SMS, MAX_SPLITS, OPS, WARP, wave_fill

MIN_VECTORS, MAX_VECTORS = 2, 16
STATIC_SMEM_BYTES = 48 << 10  # a kernel's static __shared__ arrays (smem_vectors)
# Registers a thread may use for accumulators and loads in flight: below ptxas's 255 with room
# for addresses and loop state, and within 128 (two 256-thread blocks an SM) for the rule's picks.
REGISTER_BUDGET = 160


def _check_in_flight(cfg, steps: str, knobs, advice: str) -> None:
    """unroll at most 8 `steps` in flight, and the accumulators and loads in flight within
    REGISTER_BUDGET (registers_in_flight: each config's own count)."""
    if cfg.unroll > 8:
        raise ConfigError(f"unroll={cfg.unroll}: at most 8 {steps} in flight a thread (registers)")
    if cfg.registers_in_flight() > REGISTER_BUDGET:
        given = ", ".join(f"{k}={getattr(cfg, k)}" for k in knobs)
        raise ConfigError(f"{given}: about {cfg.registers_in_flight()} registers of accumulators and loads in "
                          f"flight, over the budget of {REGISTER_BUDGET}; {advice}")


def _check_vectors(v) -> None:
    if not isinstance(v, int) or isinstance(v, bool) or not MIN_VECTORS <= v <= MAX_VECTORS:
        raise ConfigError(f"vectors={v!r}: the few-vector kernels take {MIN_VECTORS}..{MAX_VECTORS} vectors "
                          f"(one is the SGEMV family's, more a GEMM's)")


def _check_min_blocks(cfg) -> None:
    check_ints(cfg, ("min_blocks",), minimum=0)
    mb = cfg.min_blocks
    if mb and 65536 // (cfg.threads * mb) < 64:
        raise ConfigError(f"min_blocks={mb}: {mb} blocks of {cfg.threads} threads leave "
                          f"{65536 // (cfg.threads * mb)} registers a thread (the kernels need at least 64)")


MAX_PREFETCH_STEPS = 8
# The rule's prefetch_steps (choose_fewvec).  Session 13's A/B (docs/data/fewvec_prefetch_ab_2026-11-27_25f3b06.log,
# H100): 2 steps were faster than none on all 14 few-vector shapes timed (8x4096x4096 28.0 -> 26.4 us, 8192x8x8192
# 95.4 -> 92.5, 65536x16x1024 113.1 -> 110.2, 2048x16x32768 110.3 -> 109.8); 4 and 8 gained more on some
# (4096x12x8192 50.1 at 8) and lost 4-12% on the 16-vector op N shapes (2048x16x32768 114.5 at 4).
PREFETCH_STEPS = 2


def _check_prefetch(cfg) -> None:
    """prefetch_steps: 0 (the main kernel waits first) to MAX_PREFETCH_STEPS; each step is `unroll`
    prefetch instructions a row of the thread."""
    check_ints(cfg, ("prefetch_steps",), minimum=0)
    if cfg.prefetch_steps > MAX_PREFETCH_STEPS:
        raise ConfigError(f"prefetch_steps={cfg.prefetch_steps}: at most {MAX_PREFETCH_STEPS} loop steps asked of "
                          f"L2 ahead (the stage runs for a few microseconds)")


def padded_vectors(v: int, groups: int = 1) -> int:
    """Op T's staged row: the vectors rounded up to `groups` groups of whole float4s."""
    return -(-v // (4 * groups)) * 4 * groups


@dataclass(frozen=True)
class FewVecTConfig(ConfigDict):
    """C[v, j] = sum_p X[p][v] B[p, j] for v < vectors: the small-m GEMM as a column sweep of B."""
    WHAT = "fewvec-t config"
    OPT_IN = ("vector_groups", "prefetch_steps", "smem_vectors", "running_rows", "transposed_c")
    vectors: int = 4
    threads_x: int = 32
    threads_y: int = 8
    unroll: int = 4
    # > 0: __launch_bounds__'s minimum blocks an SM, so ptxas keeps 65536 / (threads x min_blocks)
    # registers a thread (unbounded, it hoisted every vector load: 164 registers for 16 vectors)
    min_blocks: int = 0
    # Thread rows ty share the vectors out: thread row ty sums vector group ty % vector_groups over
    # rows ty / vector_groups, ... (threads_y / vector_groups rows a step): each matrix element is
    # loaded by vector_groups threads of the block (the later ones from L1), and a thread keeps
    # 4 x vectors / vector_groups sums.  16 vectors in one group: 64 sums and the hoisted vector
    # loads of 2 rows in flight filled 128 registers (4 rows spilled there).
    vector_groups: int = 1
    # > 0: before it waits for the kernel before it (PDL: the stage), the main kernel asks L2 for the
    # rows of its first `prefetch_steps` loop steps (prefetch.global.L2: no registers, no data read
    # into the SM), so the DRAM works while the stage runs (_check_prefetch)
    prefetch_steps: int = 0
    # True: each step's rows of the staged vectors go through shared memory (a float4 a thread,
    # double-buffered: one barrier a step) and are read back as broadcast LDS.128, and the next
    # step's matrix rows are loaded before this step's FMAs (twice the loads' registers).  Read from
    # L1 instead (False), ptxas hoists every vector float4 of the rows in flight: 16 vectors spilled
    # at 4 rows and ran 40.7 us on 16x4096x4096 at 2 (session 4); through shared memory 30.1
    # (docs/shapes.md, session 22).
    smem_vectors: bool = False
    # True (smem_vectors only): the loop steps a pointer to the thread's next matrix rows instead of
    # computing each row's address from its index (an IMAD.WIDE and reloaded parameters a row a step:
    # the 16-vector main loop's SASS 665 -> 498 instructions on sm_90; 1-3% faster on 10 of 10 shapes,
    # docs/data/session23/i_83e608b).  The rule prefers it; where ptxas spills it the next of SMEM_FORMS runs.
    running_rows: bool = False
    # True: C holds the product transposed, C[j, v] (the matrix is A^T, stored k x m: TN with a small n);
    # the split partials too (W[s][j][v]).  False: C[v, j] (the matrix is B, small m).
    transposed_c: bool = False

    def __post_init__(self):
        _check_vectors(self.vectors)
        check_ints(self, ("threads_x", "threads_y", "unroll", "vector_groups"))
        check_bools(self, ("smem_vectors", "running_rows", "transposed_c"))
        if self.running_rows and not self.smem_vectors:
            raise ConfigError("running_rows without smem_vectors: only the shared-memory loop has them")
        if self.smem_vectors and self.vector_groups != 1:
            raise ConfigError(f"smem_vectors with vector_groups={self.vector_groups}: the shared-memory path sums "
                              f"every vector in each thread (vector_groups=1)")
        _check_prefetch(self)
        _check_min_blocks(self)
        if self.vector_groups not in (1, 2, 4) or self.threads_y % self.vector_groups:
            raise ConfigError(f"vector_groups={self.vector_groups}: 1, 2 or 4, dividing threads_y={self.threads_y}")
        if self.vector_groups > 1 and self.vectors <= 4 * (self.vector_groups - 1):
            raise ConfigError(f"vector_groups={self.vector_groups}: {self.vectors} vectors leave a group without "
                              f"a float4 of them")
        check_pow2(self, ("threads_x", "threads_y"))
        if self.threads_x > WARP:
            raise ConfigError(f"threads_x={self.threads_x}: at most {WARP} (a thread row within a warp, so the "
                              f"vectors' loads are broadcasts)")
        if not WARP <= self.threads <= 1024:
            raise ConfigError(f"threads_x * threads_y = {self.threads}: a block holds {WARP}..1024 threads")
        _check_in_flight(self, "rows", ("vectors", "unroll"), "fewer rows in flight")
        if self.smem_vectors and 4 * self.smem_floats > STATIC_SMEM_BYTES:
            raise ConfigError(f"threads_y={self.threads_y}, unroll={self.unroll} with smem_vectors: two steps of "
                              f"{self.step} staged rows and the warps' sums take {4 * self.smem_floats} bytes of "
                              f"shared memory, over the {STATIC_SMEM_BYTES} a kernel declares statically; fewer "
                              f"thread rows or rows in flight")

    @property
    def threads(self) -> int:
        return self.threads_x * self.threads_y

    @property
    def strip(self) -> int:
        return self.threads_x * 4

    @property
    def step(self) -> int:
        """Rows a block sweeps in one loop step."""
        return self.rows_per_step * self.unroll

    @property
    def group_vectors(self) -> int:
        """Vectors a thread sums: all of them in one group; else a group's share of the staged ones
        (zero padded: the padding's sums are never stored)."""
        if self.vector_groups == 1:
            return self.vectors
        return self.staged_vectors // self.vector_groups

    @property
    def staged_vectors(self) -> int:
        """The staged row's vectors: rounded up to whole float4s of every group (zero padded)."""
        return padded_vectors(self.vectors, self.vector_groups)

    @property
    def rows_per_step(self) -> int:
        """Thread rows along the matrix's rows (the others hold the other vector groups)."""
        return self.threads_y // self.vector_groups

    def registers_in_flight(self) -> int:
        loads = 8 * self.unroll if self.smem_vectors else 4 * self.unroll  # the next step's rows too
        return 4 * self.group_vectors + loads + 4 + 16

    @property
    def smem_floats(self) -> int:
        """smem_vectors' shared memory: the staged rows of two steps (a step's `step` rows of
        staged_vectors), then the warps' sums of four vectors (emit_fewvec._ts_meet)."""
        if not self.smem_vectors:
            return 0
        return 2 * self.step * self.staged_vectors + self.threads // WARP * 16 * self.threads_x

    def describe(self) -> str:
        return (f"fewvec-t: {self.vectors} vectors"
                + (f" in {self.vector_groups} groups" if self.vector_groups > 1 else "")
                + (" through shared memory" if self.smem_vectors else "")
                + (" (rows by a running pointer)" if self.running_rows else "")
                + f", {self.threads_x}x{self.threads_y} threads, a strip of "
                f"{self.strip} columns, unroll {self.unroll} rows"
                + (f", at least {self.min_blocks} blocks an SM" if self.min_blocks else "")
                + (f", {self.prefetch_steps} steps prefetched to L2" if self.prefetch_steps else "")
                + (", C transposed" if self.transposed_c else ""))


@dataclass(frozen=True)
class FewVecNConfig(ConfigDict):
    """C[i, v] = sum_p A[i, p] X[v][p] for v < vectors: the small-n GEMM as row sweeps of A."""
    WHAT = "fewvec-n config"
    OPT_IN = ("lanes_per_row", "prefetch_steps", "transposed_c")
    vectors: int = 4
    warps_per_block: int = 4
    row_groups: int = 2  # rows a warp sweeps together: each vector load serves all of them
    unroll: int = 4  # float4 steps a lane has in flight, for every row
    min_blocks: int = 0  # as FewVecTConfig's (16 vectors, 4 rows a warp: 202 registers unbounded)
    # Lanes along a row (8, 16 or 32): the warp's 32 / lanes_per_row row groups read the same
    # vector float4s at once, so a vector load instruction fetches 16 x lanes_per_row bytes, not
    # 512: the vectors' L1 traffic per matrix byte is vectors / (row_groups x 32 / lanes_per_row),
    # which at 32 lanes, 16 vectors and 2 rows a lane is 8x the matrix's (2048x16x32768 at 77% of
    # copy bandwidth, run 1).
    lanes_per_row: int = 32
    prefetch_steps: int = 0  # as FewVecTConfig's: the first steps of the lane's rows asked of L2 before the wait
    # True: C holds the product transposed, C[v, i] (the matrix is B^T, stored n x k: NT with a small m);
    # the split partials too (W[s][v][i]).  False: C[i, v] (the matrix is A, small n).
    transposed_c: bool = False

    def __post_init__(self):
        _check_vectors(self.vectors)
        check_ints(self, ("warps_per_block", "row_groups", "unroll", "lanes_per_row"))
        check_bools(self, ("transposed_c",))
        _check_prefetch(self)
        _check_min_blocks(self)
        if self.lanes_per_row not in (8, 16, 32):
            raise ConfigError(f"lanes_per_row={self.lanes_per_row}: 8, 16 or 32 lanes along a row")
        if self.warps_per_block > 32:
            raise ConfigError(f"warps_per_block={self.warps_per_block}: a block holds at most 32 warps")
        if self.row_groups > 8:
            raise ConfigError(f"row_groups={self.row_groups}: at most 8 rows a warp (registers)")
        _check_in_flight(self, "float4 steps", ("vectors", "row_groups", "unroll"),
                         "fewer rows a warp or steps in flight")

    @property
    def threads(self) -> int:
        return WARP * self.warps_per_block

    @property
    def rows_per_warp(self) -> int:
        return self.row_groups * (WARP // self.lanes_per_row)

    @property
    def rows_per_block(self) -> int:
        return self.warps_per_block * self.rows_per_warp

    @property
    def step(self) -> int:
        """Columns a row's lanes sweep in one loop step."""
        return self.lanes_per_row * 4 * self.unroll

    def registers_in_flight(self) -> int:
        return self.vectors * self.row_groups + 4 * self.row_groups * self.unroll + 4 + 16

    def describe(self) -> str:
        return (f"fewvec-n: {self.vectors} vectors, {self.rows_per_warp} rows a warp ({self.lanes_per_row} lanes a "
                f"row, {self.row_groups} a lane), {self.warps_per_block} warps a "
                f"block ({self.rows_per_block} rows), unroll {self.unroll}"
                + (f", at least {self.min_blocks} blocks an SM" if self.min_blocks else "")
                + (f", {self.prefetch_steps} steps prefetched to L2" if self.prefetch_steps else "")
                + (", C transposed" if self.transposed_c else ""))


FewVecConfig = (FewVecNConfig, FewVecTConfig)


def choose_fewvec(rows: int, cols: int, op: str, vectors: int, transposed_c: bool = False):
    """The kernel the rule prefers for `vectors` vectors against a row-major rows x cols matrix: op T
    sweeps the columns (C = X^T B, small m), op N the rows (C = A X, small n); `transposed_c` stores
    C the other way round (the matrix is the transposed operand).  What runs is the first of
    fewvec_candidates that the device's compiler keeps spill-free (runtime/fewvec.rule_config)."""
    return fewvec_candidates(rows, cols, op, vectors, transposed_c)[0]


def fewvec_candidates(rows: int, cols: int, op: str, vectors: int, transposed_c: bool = False) -> tuple:
    """The rule's kernels, best first: one, or for the shared-memory op T kernels one a form of
    SMEM_FORMS (how many rows in flight, rows by a running pointer or by index).  The rule's
    measurements are of row-major C; a transposed C takes the same kernel (only its stores differ)."""
    if op not in OPS:
        raise ConfigError(f"op={op!r}: must be 'N' or 'T'")
    if rows < 1 or cols < 1:
        raise ConfigError(f"{rows}x{cols}: the matrix must not be empty")
    _check_vectors(vectors)
    best = replace(_rule_config(rows, cols, op, vectors), prefetch_steps=PREFETCH_STEPS,
                   transposed_c=bool(transposed_c))
    if isinstance(best, FewVecTConfig) and best.smem_vectors:
        return tuple(replace(best, unroll=u, running_rows=r) for u, r in SMEM_FORMS)
    return (best,)


def _rule_config(rows: int, cols: int, op: str, vectors: int):
    """choose_fewvec's kernel before its prefetch (the measured shapes below)."""
    if op == "T":
        tx = 1
        while tx < WARP and tx * 4 < cols:
            tx *= 2
        ty = max(1, 256 // tx)
        mb = max(1, 512 // (tx * ty))
        # runs 1 and 2 (9f9a60d, 12b5cba; docs/shapes-history.md): 4 vectors u8 96.1 us on 4x1024x65536 (u4 96.4);
        # 5-8 vectors u8 in two groups (8x4096x4096 31.1 against 32.2 at u4 in one, 8x8192x8192 98.7 / 99.3);
        # 9-12 u4 in one group (12x2048x16384 56.9 against 64.0 in two, 62.7 at u2); 13-16 spilled at u4 in
        # one group and ran slower than the member in two (16x4096x4096 38.8 against 36.7).  Session 22: 9-16
        # through shared memory, 16 lanes a row, 16 thread rows (two a warp), 4 rows in flight, two blocks an SM
        # (the geometry from lab/experiments/stream_t_proto.py, where 8 or 32 lanes, 2 or 8 rows in flight and
        # one block an SM were slower); against the heuristic's member (docs/data/session22/e_4fae40b):
        # 16x4096x4096 30.1 us against 32.6, 10x8192x2048 28.5 / 31.9, 12x8192x3072 41.3 / 42.4
        if vectors <= 4:
            return FewVecTConfig(vectors, tx, ty, 8, min_blocks=mb)
        if vectors <= 8:  # (ty = 256 / tx >= 8: two groups of thread rows)
            return FewVecTConfig(vectors, tx, ty, 8, min_blocks=mb, vector_groups=2)
        # (at most 64 thread rows: a step's staged rows fit the static shared memory on narrow strips; 16
        # vectors on 4 lanes spilled at 3 and 4 rows in flight in session 22 and run on 8 lanes; since the
        # grouped row loads of session 23 they fit at 4 on sm_80 and sm_90 with indexed rows, not timed: n <= 16)
        tx = 8 if (vectors, tx) == (16, 4) else min(tx, SMEM_LANES)
        unroll, running = SMEM_FORMS[0]
        return FewVecTConfig(vectors, tx, min(64, 256 // tx), unroll, min_blocks=2, smem_vectors=True,
                             running_rows=running)
    # runs 1 and 2: 4 warps of 2 rows, 2 steps in flight, 128 registers, 32 lanes a row was the fastest or
    # within 2% on 9 of 11 shapes (8192x8x8192 96.8 us against 98.3 at 16 lanes, 104.5 at 8, 108.4 with 4
    # rows a lane; 7680x2x2560 31.0, 1024x4x500000 717.3, 4096x12x8192 55.4, 4096x16x4096 35.1); 16
    # vectors on long rows gained from 8 lanes a row (2048x16x32768 112.9 against 114.7 at 16, 122.0 at 32)
    return FewVecNConfig(vectors, 4, 2, 2, min_blocks=4, lanes_per_row=8 if vectors > 12 else 32)


SMEM_LANES = 16  # lanes along a row of the smem_vectors kernels (a strip of 64 columns)
# The smem_vectors kernels' forms, (rows in flight, running_rows), best first: the rule runs the first that
# ptxas keeps within the 128 registers of two blocks an SM on the device's arch (runtime/fewvec.rule_config:
# each change of the kernel's text moved where it spills, and so may each compiler).  4 rows against 3:
# 14x4096x4096 29.2 against 31.0 us, 15x4096x4096 29.3 / 31.6 (docs/data/session23/e_988e461); running rows
# against indexed: 1-3% (i_83e608b), less than a row in flight, so (4, indexed) comes before (3, running).  With
# NVRTC 13.0 on sm_90, 15 vectors (and 14 on 4 lanes) take (4, indexed) and 16 on 8 lanes (3, running).
SMEM_FORMS = ((4, True), (4, False), (3, True), (3, False), (2, True), (2, False))


def fewvec_splits(cfg, rows: int, cols: int, sms: int = H100_SMS, blocks_per_sm: Optional[int] = None) -> int:
    """Blocks along gridDim.y: the fewest splits whose blocks fill their waves of resident slots
    (sms x blocks_per_sm, about two 256-thread blocks an SM when unknown) to WAVE_FILL, each split
    at least two loop steps long; one where the blocks are WAVES_ENOUGH waves without a split (the
    last wave's idle slots a small part of the time).  8192x8x8192 op N: 512 blocks of 16 rows for
    396 slots (1.3 waves, the second a third full) -> 3 splits, 1536 blocks, 97% of 4 waves."""
    slots = sms * (blocks_per_sm or max(1, 2048 // (2 * cfg.threads)))
    grid_x, length, step = grid(cfg, rows, cols, 1)[0], (rows if isinstance(cfg, FewVecTConfig) else cols), cfg.step
    most = max(1, min(MAX_SPLITS, length // (2 * step)))
    if isinstance(cfg, FewVecTConfig) and cfg.smem_vectors:
        return _one_wave(grid_x, slots, most)
    if grid_x >= WAVES_ENOUGH * slots:
        return 1
    for s in range(1, most + 1):
        if wave_fill(grid_x * s, slots) >= WAVE_FILL:
            return s
    return max(range(1, most + 1), key=lambda s: wave_fill(grid_x * s, slots))


WAVE_FILL = 0.95
WAVES_ENOUGH = 4


def _one_wave(grid_x: int, slots: int, most: int) -> int:
    """The smem_vectors kernels' split: as many as one wave of slots holds (each at least two steps
    long, `most`), at least one.  Session 22 (16 vectors, 264 slots; us): 16x5120x5120 (80 strips)
    3 splits 42.2, 6 45.3, 12 51.0 (the rule above: 13); 16x4096x4096 (64 strips) 4 splits 29.3, 8
    31.5, 2 37.1; 16x8192x8192 2 splits 97.5, 4 98.7."""
    return max(1, min(most, slots // max(1, grid_x)))


def grid(cfg, rows: int, cols: int, splits: int) -> Tuple[int, int, int]:
    if isinstance(cfg, FewVecTConfig):
        return (-(-cols // cfg.strip), splits, 1)
    return (-(-rows // cfg.rows_per_block), splits, 1)


# ---- the route: which skinny GEMMs the few-vector kernels take ----------------------------------
# Measured on the H100 against the family's members in runs 1 and 2 (docs/shapes-history.md, "Few-vector skinny
# GEMMs"): below these sizes of the matrix the members were faster (op T: 8x1024x1024 8.2 us against 9.8;
# op N: 1024x16x1024 9.5 against 11.7), above them the few-vector kernels (op T: 8x4096x4096 31.1 against
# 37.1, 3x4096x8192 51.3 / 59.6; op N: 768x8x768 7.4 / 8.7, 2048x8x2048 14.3 / 17.7, 4096x16x4096 35.1 /
# 39.0).  Sizes between were not measured.  Op T with more than MANY_VECTORS vectors (the smem_vectors
# kernels since session 22; docs/data/session22): above the members from 16 MB of matrix (16x2048x2048 12.0 us
# against 14.3, 16x1024x4096 11.8 / 14.1, 16x4096x1024 12.1 / 14.4), below them at 4 MB (16x1024x1024 7.0 / 6.8,
# 16x768x768 6.7 / 5.8).
MIN_MATRIX_BYTES = {"T": 32 << 20, "N": 2 << 20}
MIN_MATRIX_BYTES_MANY = {"T": 16 << 20, "N": 32 << 20}  # more than MANY_VECTORS vectors
MANY_VECTORS = 8


# Session 31 on the H200, each route's kernel against the member the plan runs without it, in the same layout
# (lab/experiments/fewvec_bench; docs/data/session31/a_783d7c6 for NT and TN, b_c973e67 for NN; us):
# - Op N with 13-16 vectors on rows of 4096 or more (cols = k) was slower in NN and in NT (over B^T) on all 8
#   shapes: NN 8192x16x8192 107.2 against 94.8, 2048x16x32768 104.0 / 96.9, 16384x16x4096 100.0 / 94.4, 4096x16x4096
#   32.9 / 30.6; NT 16x5120x5120 61.0 / 43.7, 16x4096x4096 32.1 / 31.1, 16x16384x4096 100.8 / 97.1, 16x4096x16384
#   104.4 / 98.4.  On shorter rows it was faster (NN 65536x16x1024 103.0 / 118.5, 4096x16x2048 20.3 / 23.9), and
#   with 12 vectors or fewer everywhere (NN 4096x12x8192 46.4 / 52.9, 8192x8x8192 69.0 / 95.2; NT 12x4096x4096 26.3 /
#   31.0, 2x4096x16384 64.3 / 98.2, 8x8192x8192 69.5 / 97.3, 4x1024x1024 4.8 / 9.4).
# - Op T over A^T (TN, n of 2-16): 2-4 vectors faster on all 4 (2048x2x8192 18.8 / 27.9, 1024x4x500000 469.6 /
#   519.2); 8-16 faster to 64 MB (4096x8x2048 16.4 / 20.4, 2048x16x2048 11.7 / 17.4, 4096x16x4096 25.3 / 26.2),
#   above it slower on 3 of 5 (5120x8x5120 38.7 / 35.0, 8192x16x8192 79.2 / 74.8, 2048x16x32768 77.8 / 76.3;
#   65536x16x1024 84.9 / 91.0, 8192x8x8192 73.9 / 75.1), where the members stream A^T at 71-93% of copy.
N_LONG_ROWS = 4096
N_MAX_VECTORS_LONG_ROWS = 12
# Session 34 (H200, docs/data/session34): op N over row-major A (small n: NN, NT) with more than
# N_MAX_VECTORS_LONG_ROWS vectors yields to the fused-128x16 member (codegen/presets.py) wherever that is a candidate
# (heuristic.fused_candidate: 128-row tiles fewer than two an SM, n of 9-16 whole, aligned rows or a tiny C):
# 32768x16x2048 79.0 us against the route's 102.8, 4096x16x2048 18.0 / 20.5.  Where it is not, the route stays: at
# 65536x16x1024 (512 tiles, no candidate) the route ran 103.2, the member 99.3, skinny-n16-k32 118.1.
N_YIELDS_TO = "fused-128x16"
TRANSPOSED_T_FEW_VECTORS = 4  # op T over A^T with more vectors: only up to TRANSPOSED_T_MAX_BYTES of matrix
TRANSPOSED_T_MAX_BYTES = 64 << 20


def _measured_takes(r, sms: int) -> bool:
    """The session-31 bounds above: op N's vectors on long rows, op T's size over A^T; and session 34's: op N over A
    with more than N_MAX_VECTORS_LONG_ROWS vectors where N_YIELDS_TO is no candidate on `sms` SMs."""
    if r.op == "N":
        if r.vectors > N_MAX_VECTORS_LONG_ROWS and r.mat_is_a:
            from .heuristic import fused_candidate  # (heuristic imports the presets, never this module)
            if fused_candidate(N_YIELDS_TO, r.rows, r.vectors, r.cols, sms):
                return False
        return r.vectors <= N_MAX_VECTORS_LONG_ROWS or r.cols < N_LONG_ROWS
    return not r.transposed_c or r.vectors <= TRANSPOSED_T_FEW_VECTORS or 4 * r.rows * r.cols <= TRANSPOSED_T_MAX_BYTES


# The shared-memory op T kernels split K into one wave (fewvec_splits); where that wave leaves more than a tenth
# of the slots idle, the stream-K members balance the SMs better (session 22, us, shared memory / member:
# 16x13824x5120, 216 blocks in 264 slots, 112.6 / 106.8; at 91%: 16x5120x5120 45.1 / 44.6, 12x5120x13824 105.7 /
# 107.2; at 97%: 16x4096x4096 30.1 / 32.6, 16x16384x4096 98.1 / 99.6).
SMEM_MIN_FILL = 0.9


class Routing(NamedTuple):
    """How a few-vector kernel computes a GEMM (route): op T (sweeps the matrix's columns) or N (its
    rows) over the row-major rows x cols matrix `ld` apart, which operand that matrix is, vector v's
    p-th value at the small operand's [v * sv + p * sp], and whether C is the op's output transposed."""
    op: str
    rows: int
    cols: int
    ld: int
    vectors: int
    mat_is_a: bool
    sv: int
    sp: int
    transposed_c: bool


def route(m: int, n: int, k: int, trans_a: bool, lda: int, trans_b: bool, ldb: int,
          force: bool = False, sms: int = H100_SMS) -> Optional[Routing]:
    """The few-vector kernel's Routing of row-major C (m x n) = op(A) op(B), or None where it does
    not take the GEMM (m and n both above 16 or both below 2, or too small).  The matrix is the big
    operand as stored, swept along its rows:
    - small m, B stored k x n: op T over B, the vectors A's rows (NN, TN);
    - small m, B^T stored n x k (trans_b): op N over B^T, C transposed (NT: nn.Linear's batched decode, TT);
    - small n, A stored m x k: op N over A, the vectors B's columns (NN, NT);
    - small n, A^T stored k x m (trans_a): op T over A^T, C transposed (TN: a weight gradient's few columns, TT).
    Where both are small the smaller dimension gives the vectors.  `force`: the layouts decide, not the
    measured bounds (the matrix's size by op, measured on row-major C in NN; op N's vectors on long rows and op
    T's size over A^T: _measured_takes; and for 9-16 vectors op T the wave fill of its splits on `sms` SMs:
    SMEM_MIN_FILL)."""
    if k < 1:
        return None
    small_m = MIN_VECTORS <= m <= MAX_VECTORS
    small_n = MIN_VECTORS <= n <= MAX_VECTORS
    if small_m and small_n:
        small_m, small_n = m <= n, n < m
    if small_m:  # the vectors are op(A)'s rows: A[v * lda + p], or A[p * lda + v] stored k x m
        sv, sp = (1, lda) if trans_a else (lda, 1)
        if trans_b:
            r = Routing("N", n, k, ldb, m, False, sv, sp, True)
        else:
            r = Routing("T", k, n, ldb, m, False, sv, sp, False)
    elif small_n:  # the vectors are op(B)'s columns: B[p * ldb + v], or B[v * ldb + p] stored n x k
        sv, sp = (ldb, 1) if trans_b else (1, ldb)
        if trans_a:
            r = Routing("T", k, m, lda, n, True, sv, sp, True)
        else:
            r = Routing("N", m, k, lda, n, True, sv, sp, False)
    else:
        return None
    if force:
        return r
    bound = (MIN_MATRIX_BYTES_MANY if r.vectors > MANY_VECTORS else MIN_MATRIX_BYTES)[r.op]
    if 4 * r.rows * r.cols < bound or r.ld % 4 or not _measured_takes(r, sms):
        return None
    if r.op == "T" and r.vectors > MANY_VECTORS:
        # the strip is the same in every form; the step (rows in flight) only caps the split count
        cfg = _rule_config(r.rows, r.cols, r.op, r.vectors)
        slots = sms * cfg.min_blocks
        if wave_fill(grid(cfg, r.rows, r.cols, 1)[0] * fewvec_splits(cfg, r.rows, r.cols, sms, cfg.min_blocks),
                     slots) < SMEM_MIN_FILL:
            return None
    return r
