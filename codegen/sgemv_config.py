"""The SGEMV configurations: y = alpha * op(A) x + beta * y, A row-major M x N.

Op N (SgemvConfig, seed 003):
A warp serves `rows_per_warp` rows at once: 32 / rows_per_warp lanes per row
(seed 003: one row per warp for N = 32 and N >= 128, two rows per warp for
N = 16).  Each lane walks its row in `vec`-wide loads, `unroll` of them in
flight before the first FMA; the lanes of a row reduce with warp shuffles.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from .config import ConfigError
from .config_base import ConfigDict, check_bools, check_ints, check_pow2
from .hardware import DEFAULT_SMEM_PER_BLOCK

WARP = 32
FUSED_REDUCE_DOC = """fused_reduce: each block of a split launch writes its partial sums to the workspace;
after a barrier its thread 0 fences and bumps the block column's counter (one unsigned a column,
after the partials in the workspace); the block that finds all other splits done sums the
partials in a fixed order (deterministic: the counter only orders, no float atomics), writes y
and sets the counter back to 0 for the next launch or graph replay.  It saves the reduce
kernel's launch, but measured slower than two launches on every split shape of the suite except
the share_x kernel (docs/sgemv.md: the last block's fence, atomic and partials' round trips cost
more than the ~1 us launch gap in a CUDA graph)."""

CLUSTER_DOC = """cluster (SgemvTConfig, sm_90): the gridDim.y == cluster splits of one column strip form a
thread-block cluster (__cluster_dims__(1, cluster, 1), so a plain cuLaunchKernel launches it).
Each block leaves its strip's partial column sums in its own shared memory; after a cluster
barrier (release / acquire) rank r sums its 1 / cluster share of the strip's columns over the
ranks' shared memory (distributed shared memory, mapa) in rank order 0, 1, ... (deterministic)
and writes y; a second cluster barrier keeps every block's shared memory alive until its peers
have read it.  No workspace, no fence, no atomics, no second launch."""
BATCHED_DOC = """batched: a batch of GEMVs in one launch (the m == 1 or n == 1 GEMMs of a batch: decode attention's
q K^T and p V a head, session 46).  blockIdx.z is the entry; the kernel takes three more parameters, the batch
strides of A, x and y in elements (0 broadcasts an operand), and moves its pointers to its entry before anything
else.  One split a matrix (gridDim.y == 1): the batch itself fills the SMs, so neither a workspace nor a reduce
kernel is needed (the runtime refuses a split with a batch), and the one-launch reductions (cluster,
fused_reduce) have nothing to do."""

CLUSTER_MAX = 8  # the portable cluster size (larger ones need a non-portable attribute)
CLUSTER_MIN_ARCH = 90

STAGE_SMEM_BYTES = DEFAULT_SMEM_PER_BLOCK  # static shared memory a block may declare


def staged_bytes(stage_cols: int, warps: int) -> int:
    """The staged-rows kernel's shared memory (SgemvConfig.stage_cols): each warp's 32 rows of
    stage_cols floats and the block's copy of x."""
    return 4 * stage_cols * (32 * warps + 1)


@dataclass(frozen=True)
class SgemvConfig(ConfigDict):  # replace, to_dict, from_dict (config_base.py)
    WHAT = "sgemv config"
    # fields added after the first kernels were named: left out of to_dict at their defaults,
    # so the configs without them keep their dicts and kernel names (config_base.ConfigDict)
    OPT_IN = ("stage_cols", "share_x", "fused_reduce", "cluster", "batched")
    rows_per_warp: int = 1
    vec: int = 4
    warps_per_block: int = 4
    unroll: int = 4  # vector loads a lane issues per loop step (independent partial sums)
    # Row groups a warp serves one after another; for short rows (one float4 a lane)
    # their loads all go out before the first FMA, so a warp keeps `row_groups`
    # loads in flight instead of one.
    row_groups: int = 1
    # Warps sharing one row (rows_per_warp must be 1): for few long rows, where one
    # warp a row leaves the SMs' warp slots half empty; partial sums meet in shared memory.
    warps_per_row: int = 1
    # Rows expected not 16-byte aligned (N % 4 != 0 with lda == N): the scalar loop is then the
    # hot path and keeps `unroll` predicated loads in flight (vec 1 configs always do).
    ragged_rows: bool = False
    # > 0: the staged-rows kernel (templates/sgemv_staged.cu.j2) for many short rows, unaligned
    # ones especially: a warp copies its 32 rows (contiguous in memory, 32 * lda floats) to shared
    # memory with float4 loads, then each lane sums one row from there.  The value is the widest
    # lda staged (shared memory: warps_per_block x 32 x stage_cols floats); wider ones, or an A
    # not 16-byte aligned, take a direct path (a lane a row, scalar loads).  Needs rows_per_warp=32.
    stage_cols: int = 0
    # The row groups' float4 loops run as one: each x load serves row_groups rows (long rows,
    # where x no longer stays in L1 and every A load came with an x load from L2).
    share_x: bool = False
    # Splits (gridDim.y > 1) in one launch: the last block of a row block to finish sums the
    # splits' partials (FUSED_REDUCE_DOC).  Off: the module's reduce kernel, a second launch.
    fused_reduce: bool = False
    # > 0 (sm_90 only): the gridDim.y == cluster splits of a row block form one thread-block
    # cluster and meet in distributed shared memory (CLUSTER_DOC), as SgemvTConfig's
    cluster: int = 0
    batched: bool = False  # blockIdx.z a batch entry (BATCHED_DOC)

    def __post_init__(self):
        check_bools(self, ("ragged_rows", "share_x", "fused_reduce", "batched"))
        _check_cluster(self)
        if self.cluster and self.stage_cols:
            raise ConfigError(f"cluster={self.cluster}: the staged-rows kernel (stage_cols) has no split")
        if self.share_x and (self.row_groups < 2 or self.vec != 4 or self.stage_cols):
            raise ConfigError(f"share_x: needs row_groups >= 2 and vec=4 without stage_cols (got "
                              f"{self.row_groups}, {self.vec}, {self.stage_cols})")
        check_ints(self, ("stage_cols",), minimum=0)
        if self.stage_cols:
            if self.rows_per_warp != 32 or self.row_groups != 1 or self.warps_per_row != 1:
                raise ConfigError(f"stage_cols={self.stage_cols}: needs rows_per_warp=32 (a lane a row), "
                                  f"row_groups=1 and warps_per_row=1")
            if staged_bytes(self.stage_cols, self.warps_per_block) > STAGE_SMEM_BYTES:
                raise ConfigError(f"stage_cols={self.stage_cols}: {self.warps_per_block} warps x 32 rows x "
                                  f"{self.stage_cols} floats exceed the {STAGE_SMEM_BYTES} bytes of static "
                                  f"shared memory")
        check_ints(self, ("rows_per_warp", "vec", "warps_per_block", "unroll", "row_groups", "warps_per_row"))
        if self.rows_per_warp not in (1, 2, 4, 8, 16, 32):
            raise ConfigError(f"rows_per_warp={self.rows_per_warp}: must divide the 32 lanes of a warp "
                              f"(1, 2, 4, 8, 16 or 32)")
        if self.vec not in (1, 4):
            raise ConfigError(f"vec={self.vec}: vector width must be 1 or 4 floats")
        if self.warps_per_block > 32:
            raise ConfigError(f"warps_per_block={self.warps_per_block}: a block holds at most 32 warps")
        if self.unroll > 16:
            raise ConfigError(f"unroll={self.unroll}: at most 16 loads in flight per lane (registers)")
        if self.warps_per_row > 1 and (self.rows_per_warp != 1 or (self.row_groups != 1 and not self.share_x)
                                       or self.warps_per_block % self.warps_per_row):
            raise ConfigError(f"warps_per_row={self.warps_per_row}: needs rows_per_warp=1, row_groups=1 (or "
                              f"share_x) and warps_per_block a multiple of it (got {self.rows_per_warp}, "
                              f"{self.row_groups}, {self.warps_per_block})")
        if self.row_groups > 16:
            raise ConfigError(f"row_groups={self.row_groups}: at most 16 row groups per warp (registers)")

    @property
    def lanes_per_row(self) -> int:
        return WARP // self.rows_per_warp

    @property
    def row_lanes(self) -> int:
        """Lanes that share one row, across its warps."""
        return self.lanes_per_row * self.warps_per_row

    @property
    def threads(self) -> int:
        return WARP * self.warps_per_block

    @property
    def rows_per_block(self) -> int:
        return self.warps_per_block // self.warps_per_row * self.rows_per_warp * self.row_groups

    def describe(self) -> str:
        return (f"sgemv: {self.rows_per_warp} row(s) per warp ({self.lanes_per_row} lanes a row), vec {self.vec}, "
                f"{self.row_groups} row group(s) a warp, "
                + (f"{self.warps_per_row} warps a row, " if self.warps_per_row > 1 else "")
                + ("ragged rows, " if self.ragged_rows else "")
                + ("x shared by the groups, " if self.share_x else "")
                + (f"rows staged in shared memory (lda <= {self.stage_cols}), " if self.stage_cols else "")
                + f"{self.warps_per_block} warps per block "
                f"({self.rows_per_block} rows), unroll {self.unroll}"
                + (", splits reduced in one launch" if self.fused_reduce else "")
                + (f", {self.cluster} splits a cluster, reduced in distributed shared memory (sm_90)"
                   if self.cluster else "")
                + (", batched" if self.batched else ""))


def _check_cluster(cfg) -> None:
    if not isinstance(cfg.cluster, int) or isinstance(cfg.cluster, bool) or not (
            cfg.cluster == 0 or 2 <= cfg.cluster <= CLUSTER_MAX):
        raise ConfigError(f"cluster={cfg.cluster!r}: 0 (no cluster) or 2..{CLUSTER_MAX} splits a cluster "
                          f"(the portable cluster size)")
    if cfg.cluster and cfg.fused_reduce:
        raise ConfigError("cluster and fused_reduce: two ways of reducing the splits in one launch; pick one")
    if cfg.batched and (cfg.cluster or cfg.fused_reduce):
        raise ConfigError(f"batched with {'cluster' if cfg.cluster else 'fused_reduce'}: a batched GEMV runs one "
                          f"split a matrix (the batch fills the SMs), so there are no splits to reduce in one launch")


def config_for_width(n: int) -> SgemvConfig:
    """The seed's shape rule, generalised: enough lanes per row that each lane has
    at least one vector, at most 32; float4 when rows are at least 4 wide."""
    if n < 1:
        raise ConfigError(f"N={n}: must be >= 1")
    vec = 4 if n >= 4 else 1
    lanes = 1
    while lanes < 32 and lanes * vec < n:
        lanes *= 2
    # Measured on the H100 (docs/sgemv.md, sweep of 2026-11-22): 4 float4 loads in flight
    # per lane saturate long rows; short rows (one float4 a lane) gain from several row
    # groups in flight instead: 2 for N <= 64, 4 for N = 128.
    unroll = max(1, min(4, n // (lanes * vec)))
    ragged = vec == 4 and n % 4 != 0
    if ragged:
        # rows of lda == N are then not 16-byte aligned: the scalar path, whose predicated
        # loads cover the whole row in `unroll` steps when the row is short (1Mx77: 3)
        unroll = max(unroll, min(4, -(-n // lanes)))
    short = lanes * vec >= n and n % vec == 0
    groups = (4 if lanes == 32 else 2) if short else 1
    return SgemvConfig(rows_per_warp=WARP // lanes, vec=vec, warps_per_block=4, unroll=unroll, row_groups=groups,
                       ragged_rows=ragged)


# Warps the H100 keeps resident: 132 SMs x 64.  With fewer rows than about twice that,
# one warp a row leaves warp slots empty; measured (docs/sgemv.md): 4096x16384 at 0.98x
# cuBLAS with one warp a row, 1.02x with four.
TARGET_WARPS = 16384
# Rows at least this long, one warp each, keep 8 float4 loads a lane in flight.
LONG_ROW_COLS = 4096
# Row pairs sharing x loads (SgemvConfig.share_x): for rows this long, this many of them.
SHARE_X_COLS = 32768
SHARE_X_ROWS = (64, 4096)
# Staged rows (SgemvConfig.stage_cols) from this many warps of 32 rows on: about 16 an SM.
STAGED_MIN_WARPS = 16 * 132
# Rows this few and this long take a row in one step of 16 warps (config_for_shape).
FEW_ROWS = 32
FEW_ROWS_COLS = (2048, 4096)
# Rows this few and this long (more than 4 steps of 16 warps, so that splits_for splits them):
# the same 16 warps, a split of a row one step.
FEW_LONG_ROWS = 8
FEW_LONG_COLS = (16384, 65536)


def long_rows(cfg: SgemvConfig, n: int) -> SgemvConfig:
    """`cfg` with 8 float4 loads a lane in flight where its rows are long (LONG_ROW_COLS, aligned), a warp each:
    measured on the H100 in two runs, 7550ec7 and 0bf45f3: 16384x50000 1077.5 / 1077.6 us against 1093.5 / 1093.5 at
    unroll 4, 16384x4096 88.0 against 90.1 (config_for_shape; batched too, batch_choice.batched_gemv)."""
    if n >= LONG_ROW_COLS and cfg.vec == 4 and not cfg.ragged_rows:
        return cfg.replace(unroll=8)
    return cfg


def config_for_shape(m: int, n: int) -> SgemvConfig:
    """config_for_width, plus several warps a row when long rows are too few to fill
    the GPU's warp slots on their own."""
    if m < 1:
        raise ConfigError(f"M={m}: must be >= 1")
    cfg = config_for_width(n)
    if cfg.ragged_rows and 16 <= n < 128 and m // WARP >= STAGED_MIN_WARPS:
        # Many short unaligned rows: a warp per row read 77 scalars a row (1Mx77 at 59% of copy
        # bandwidth, 0.81x cuBLAS, commit a15749d); staged, a warp's 32 rows are one contiguous
        # 16-byte aligned block read with float4 loads.  Not for fewer rows: a warp then stages
        # 32 of them, too few warps to keep the loads in flight (4096x77 stays at 1.12x).
        stage = -(-n // 4) * 4
        warps = next(w for w in (4, 2, 1) if staged_bytes(stage, w) <= STAGE_SMEM_BYTES)
        return SgemvConfig(rows_per_warp=32, vec=4, warps_per_block=warps, unroll=8, stage_cols=stage)
    if cfg.rows_per_warp != 1 or cfg.row_groups != 1:
        return cfg
    if m <= FEW_ROWS and FEW_ROWS_COLS[0] < n <= FEW_ROWS_COLS[1] and cfg.vec == 4 and not cfg.ragged_rows:
        # A few rows of up to 4096 floats: 16 warps a row, 2 float4 loads a lane, the row in one
        # step (one DRAM round trip where 4 warps a row at unroll 4 make two).  Measured on the
        # H100 (session 4, 38860bc, docs/data/sgemv-probe-small_38860bc.json; launch floor 0.97 us):
        # 1x4096 1.68 us against 2.00, 32x4096 2.00 against 2.41 (8 warps a row: 1.70 / 2.04).
        return cfg.replace(warps_per_row=16, warps_per_block=16, unroll=2)
    if m <= FEW_LONG_ROWS and FEW_LONG_COLS[0] < n <= FEW_LONG_COLS[1] and cfg.vec == 4 and not cfg.ragged_rows:
        # A few rows of 16K-64K floats: the same 16 warps a row, each split of a row at most one
        # such step (splits_for), then the reduce kernel.  Measured on the H100 (session 4, 0dce23f,
        # docs/data/sgemv-probe-7x50000_0dce23f.json): 7x50000 3.56 us with 13 splits against 4.27
        # with the rule before (4 warps a row, 19 splits of two steps); 12 splits 3.75, 16 3.61.
        return cfg.replace(warps_per_row=16, warps_per_block=16, unroll=2)
    split = 1
    while split < 4 and m * split < TARGET_WARPS and n >= 128 * (2 * split) * cfg.unroll:
        split *= 2
    if split == 1:
        return long_rows(cfg, n)
    cfg = cfg.replace(warps_per_row=split, warps_per_block=max(cfg.warps_per_block, split))
    if SHARE_X_ROWS[0] <= m < SHARE_X_ROWS[1] and n >= SHARE_X_COLS:
        # x (>= 128 KB) leaves L1 between rows: each A float4 came with an x float4 from L2
        # (300x1M at 93% of copy bandwidth, 0.947x cuBLAS, commit a15749d); two rows a warp
        # share each x load.  Fewer rows keep one (a row pair would halve their few warps).
        cfg = cfg.replace(row_groups=2, share_x=True)
    return cfg


@dataclass(frozen=True)
class SgemvTConfig(ConfigDict):  # replace, to_dict, from_dict (config_base.py)
    """y = alpha * A^T x + beta * y, A row-major M x N (the m = 1 GEMM x^T B, the decode step).

    A block is `threads_x` x `threads_y` threads.  Thread (tx, ty) owns `vec` adjacent columns
    (a float4 along the contiguous dimension: a warp row reads threads_x * 16 contiguous bytes
    of each matrix row) and sweeps the rows ty, ty + threads_y, ... of its block's row range,
    `unroll` rows in flight, each feeding its own partial sums.  The threads_y partial sums of a
    column meet in shared memory in ty order (deterministic); with gridDim.y > 1 each row range
    writes its column sums to the workspace and the module's reduce kernel sums them."""
    WHAT = "sgemv-t config"
    OPT_IN = ("fused_reduce", "cluster", "warp_reduce", "stage_rows", "batched")  # as SgemvConfig's
    threads_x: int = 32
    threads_y: int = 8
    vec: int = 4
    unroll: int = 4
    fused_reduce: bool = False  # splits in one launch (FUSED_REDUCE_DOC), as SgemvConfig's
    # > 0 (sm_90 only): that many splits (gridDim.y == cluster) form one thread-block cluster
    # and meet in distributed shared memory, in one launch (CLUSTER_DOC).
    cluster: int = 0
    # The threads_y partial sums of a column: first the 32 / threads_x thread rows of a warp by
    # butterfly shuffles, then the block's warps in shared memory, in warp order (deterministic).
    # Off: every thread row to shared memory, and threads_x threads sum the threads_y rows one
    # after another, a chain of threads_y dependent shared-memory loads: fine for threads_y <= 8,
    # the latency of a whole loop step for the narrow, tall blocks (8 x 32, 4 x 128) that fill
    # the GPU with column strips alone, without a split.  Needs threads_x < 32 and >= 2 warps.
    warp_reduce: bool = False
    # > 0: the staged-rows op T kernel (templates/sgemv_t_staged.cu.j2) for short unaligned rows
    # (1Mx77: a row of 77 floats is not 16-byte aligned, so the column sweep reads scalars).
    # The block copies `stage_rows` rows at a time, (stage_rows - 1) * lda + N contiguous
    # floats, with float4 loads (`unroll` a thread in flight) to shared memory; thread (tx, ty)
    # then sums columns tx + k * threads_x (k < vec) over rows ty, ty + threads_y, ... from
    # there.  Staged when the strip covers N (one strip) and lda <= strip, on a 16-byte aligned A
    # (the split ranges are whole tiles of a multiple of 4 rows, so every tile starts aligned);
    # otherwise a direct path with scalar loads.
    stage_rows: int = 0
    batched: bool = False  # blockIdx.z a batch entry (BATCHED_DOC)

    def __post_init__(self):
        check_bools(self, ("fused_reduce", "warp_reduce", "batched"))
        _check_cluster(self)
        check_ints(self, ("stage_rows",), minimum=0)
        if self.stage_rows:
            if self.stage_rows % 4 or self.stage_rows > self.threads_x * self.threads_y:
                raise ConfigError(f"stage_rows={self.stage_rows}: must be a multiple of 4 (aligned tiles) and at "
                                  f"most the block's {self.threads_x * self.threads_y} threads (a thread an x)")
            if self.cluster or self.fused_reduce or self.warp_reduce or self.vec != 4:
                raise ConfigError(f"stage_rows={self.stage_rows}: needs vec=4, without cluster, fused_reduce "
                                  f"or warp_reduce")
            smem = 4 * (self.stage_rows * self.threads_x * 4 + self.stage_rows + self.threads_x * self.threads_y * 4)
            if smem > STAGE_SMEM_BYTES:
                raise ConfigError(f"stage_rows={self.stage_rows}: {smem} bytes of shared memory exceed "
                                  f"{STAGE_SMEM_BYTES}")
        check_ints(self, ("threads_x", "threads_y", "vec", "unroll"))
        check_pow2(self, ("threads_x", "threads_y"))
        if self.threads > 1024:
            raise ConfigError(f"threads_x * threads_y = {self.threads}: a block holds at most 1024 threads")
        if self.vec not in (1, 4):
            raise ConfigError(f"vec={self.vec}: vector width must be 1 or 4 floats")
        if self.unroll > 8:
            raise ConfigError(f"unroll={self.unroll}: at most 8 rows in flight per thread (registers)")
        if self.warp_reduce and self.cluster:
            raise ConfigError("warp_reduce and cluster: the cluster form keeps its own reduction (not combined)")
        if self.warp_reduce and (self.threads_x >= WARP or self.threads < 2 * WARP):
            raise ConfigError(f"warp_reduce: needs threads_x < {WARP} (several thread rows a warp) and at least "
                              f"two warps (got {self.threads_x} x {self.threads_y})")

    @property
    def threads(self) -> int:
        return self.threads_x * self.threads_y

    @property
    def strip(self) -> int:
        """Columns one block covers."""
        return self.threads_x * self.vec

    def describe(self) -> str:
        return (f"sgemv-t: {self.threads_x}x{self.threads_y} threads, a strip of {self.strip} columns "
                f"(vec {self.vec}), unroll {self.unroll} rows"
                + (", thread rows meet by warp shuffles" if self.warp_reduce else "")
                + (f", rows staged in shared memory ({self.stage_rows} at a time)" if self.stage_rows else "")
                + (", splits reduced in one launch" if self.fused_reduce else "")
                + (f", {self.cluster} splits a cluster, reduced in distributed shared memory (sm_90)"
                   if self.cluster else "")
                + (", batched" if self.batched else ""))


OPS = ("N", "T")
MAX_SPLITS = 1024  # the workspace holds splits x (rows or columns) partial sums
H100_SMS = 132


def _pow2_at_least(v: int, cap: int) -> int:
    p = 1
    while p < cap and p < v:
        p *= 2
    return p


def strip_lanes(n: int) -> Tuple[int, int]:
    """(vec, threads_x) of an op T strip over N columns: float4 lanes (scalars below 4 columns), at most 32 of
    them, and no lane without a column (config_for_shape_t; batch_choice.batched_gemv narrows it further)."""
    vec = 4 if n >= 4 else 1
    return vec, _pow2_at_least(-(-n // vec), 32)


def thread_rows(m: int, threads_x: int) -> int:
    """threads_y of an op T block: the rest of 256 threads along the rows, but no more thread rows than A has
    rows (M = 2: a 64-thread block of 2 rows, not 6 idle warps of 8)."""
    return _pow2_at_least(m, 256 // threads_x)


def config_for_shape_t(m: int, n: int, sms: int = H100_SMS) -> SgemvTConfig:
    """A strip of up to 128 columns (32 float4 lanes), fewer lanes for narrow matrices so no
    lane idles; the rest of a 256-thread block along the rows, but no more thread rows than
    A has rows (M = 2: a 64-thread block of 2 rows, not 6 idle warps of 8).  Before that, the
    measured special forms: staged rows for many short unaligned rows, and the one-wave forms
    without a split (_one_wave_t)."""
    if m < 1 or n < 1:
        raise ConfigError(f"M={m}, N={n}: must be >= 1")
    if n % 4 and 64 < n < 128 and m // WARP >= STAGED_MIN_WARPS:
        # Many short unaligned rows (1Mx77): the column sweep read scalars, 125.61 us = 87.2% of
        # copy; staged 64 rows at a time (float4 copies) 116.11 us = 94.3%, cuBLAS 127.71 (H100,
        # session 3 run 4, commit a8c7e6e, --probe).  Not for fewer rows: 4096x77 staged 4.13 us
        # (32 rows a tile) / 4.68 (64) against 3.97 with 128 splits of the sweep.  The bound on
        # the rows is op N's staged one.
        return SgemvTConfig(32, 8, 4, 8, stage_rows=64)
    one_wave = _one_wave_t(m, n, sms)
    if one_wave is not None:
        return one_wave
    vec, tx = strip_lanes(n)
    ty = thread_rows(m, tx)
    unroll = 4 if m >= 4 * ty else 1
    if vec == 4 and n % (4 * tx) == 0 and n // (4 * tx) < sms and m >= 16 * ty:
        # Whole float4 strips, too few to fill the GPU (the rows are split): 8 rows in flight.
        # 16-wide strips (t4x64) too since the op T tail of c367c04, measured in two runs
        # (c367c04, bd3ff88): 1Mx16 26.44 / 26.56 us against 27.60 / 27.65 at unroll 4,
        # 16384x16 3.91 / 3.94 against 4.04 / 4.06.
        # Measured on the H100 (--probe, commit a15749d): 2560x7680 28.67 us against 29.06 at
        # unroll 4, 4096x4096 25.15 / 25.65, 16384x4096 89.09 / 89.59, 16384x128 6.75 / 7.11,
        # 1Mx128 177.5 / 179.3; wider matrices (one split, many strips) lost with it
        # (16384x50000 1276 / 1140, 300x1M 451 / 407); 16-wide strips lost then, before the tail
        # change (16384x16 4.74 / 4.09).
        unroll = 8
    return SgemvTConfig(threads_x=tx, threads_y=ty, vec=vec, unroll=unroll)


# Op T without a split (SgemvTConfig.warp_reduce): narrow strips and tall blocks whose strips alone
# fill the GPU in one wave, one launch, each block with 32-64 KB of loads in flight.  Measured on
# the H100 in one run (session 3 run 4, commit a8c7e6e, --probe, docs/sgemv.md) against the rule
# before, which split 128-column strips over the rows and summed the splits in a second kernel:
#   4096x4096  t8x64 u8 (128 blocks)   24.11 us against 25.09 (8 splits); cuBLAS 24.43
#   2048x2048  t8x64 u8 (64 blocks)     7.95 against  8.83 (16 splits);  cuBLAS  8.81
#   2560x7680  t16x32 u8 (120 blocks)  27.81 against 29.10 (4 splits);   cuBLAS 28.57
#   2048x6144  t16x32 u8 (96 blocks)   18.78 against 19.94 (5 splits);   cuBLAS 19.40
#   768x768    t4x64 u4 (48 blocks)     3.62 against  3.89 (12 splits);  cuBLAS  4.61
#   300x50000  t16x16 u4 (782 blocks)  23.46 against 25.57 (t32x8, one split); cuBLAS 25.45
# and lost where the rows are many: 16384x4096 t8x64 u8 90.18 against 89.47 with 8 splits (32
# loop steps a block; hence at most 16); 256-thread blocks two an SM or 512-thread blocks in more
# than one wave lost too (4096x4096 t4x64 u8 25.99, 2560x7680 t8x64 u8 30.27, 2048x6144 t8x64 u8
# 20.37).  32x4096 tied (t8x32 u1 1.93 against 1.93): not taken.
ONE_WAVE_MIN_BLOCKS = 64  # 2048x2048, the fewest measured (64 blocks of 64 KB in flight)


def _one_wave_t(m: int, n: int, sms: int) -> Optional[SgemvTConfig]:
    """The no-split op T form for the shapes where it was measured faster (comment above), or None."""
    if n % 4:
        return None
    for strip in (32, 64):  # 512 threads, 8 rows in flight: 64 KB of loads a block, one block an SM
        tx = strip // 4
        step = 512 // tx * 8
        if n % strip == 0 and ONE_WAVE_MIN_BLOCKS <= n // strip <= sms and 4 * step <= m <= 16 * step:
            return SgemvTConfig(tx, 512 // tx, 4, 8, warp_reduce=True)
    if n % 16 == 0 and 32 <= n // 16 <= sms and 512 <= m < 1024:
        return SgemvTConfig(4, 64, 4, 4, warp_reduce=True)  # small decode shapes (768x768)
    if 256 <= m < 1024 and -(-n // 64) >= 4 * sms and m * n <= 1 << 25:
        # few rows, many strips (300x50000): 64-column strips, twice the blocks of 128-column ones
        # (782 against 391 for 528 block slots); not measured beyond 32 M elements (300x1M keeps
        # t32x8: 104% of copy)
        return SgemvTConfig(16, 16, 4, 4, warp_reduce=True)
    return None


def splits_for(cfg, m: int, n: int, sms: int = H100_SMS, blocks_per_sm: Optional[int] = None) -> int:
    """Blocks along gridDim.y: 1 unless the grid of one split leaves SMs idle; then as many
    splits as fit one wave of resident blocks (sms * blocks_per_sm, the occupancy of the
    compiled kernel, when the runtime knows it; else about two waves of the H100's warp
    slots, sms * 64 * 2 warps), each split at least two loop steps long, or one where two
    would leave SMs without a block.  One wave: measured on the H100, 16384x4096 op T with 66
    splits (four waves of short blocks) ran at 0.92x cuBLAS.  One step where SMs would idle:
    measured at 7550ec7, 7x50000 op N 4.22 us with 24 splits (168 blocks) against 4.49 with 12
    (84 blocks), 4096x77 op T 3.96 against 4.72 (128 blocks against 64); where two steps
    already fill the SMs, one lost (16384x128 op T 7.17 against 6.88, 1Mx1 op T 7.43 / 6.59)."""
    if getattr(cfg, "cluster", 0):
        return cfg.cluster  # one cluster of splits a column strip (CLUSTER_DOC)
    if isinstance(cfg, SgemvTConfig) and cfg.warp_reduce:
        return 1  # the one-wave forms (_one_wave_t): a split lost (4096x4096 t8x32 u8 2 splits 25.23 / 24.72)
    if isinstance(cfg, SgemvTConfig):
        grid_x = -(-n // cfg.strip)
        warps = max(1, cfg.threads // WARP) * grid_x
        step = cfg.stage_rows or cfg.threads_y * cfg.unroll  # a staged block's step: one tile
        length = m
    else:
        if cfg.rows_per_warp != 1 or (cfg.row_groups != 1 and not cfg.share_x):
            return 1  # short rows: many rows, one warp holds several
        grid_x = -(-m // cfg.rows_per_block)
        warps = -(-m // cfg.row_groups) * cfg.warps_per_row
        step = cfg.row_lanes * cfg.vec * cfg.unroll
        length = n
    most = length // (2 * step)
    if most >= 2 and grid_x * most < sms:
        # two loop steps a split would leave SMs without a block: one step is enough (not for
        # rows of fewer than 4 steps: 1x4096 and 32x4096 op N ran 2.81 / 3.24 us with 2 splits
        # against 2.63 / 2.86 with one, commit 0bf45f3)
        most = min(length // step if isinstance(cfg, SgemvTConfig) or cfg.warps_per_row < 16 else -(-length // step),
                   -(-sms // grid_x))  # 16 warps a row (FEW_LONG_ROWS): a split at most one step, 7x50000 13 splits
        if isinstance(cfg, SgemvTConfig):
            # whole steps a split: 16384x128 op T, 132 splits of 125 rows (one step of 64 and
            # 61 rows left), ran 9.42 us against 6.88 with 128 (0bf45f3 against 7550ec7)
            most = -(-length // (step * -(-length // (most * step))))
    if blocks_per_sm:
        slots = sms * blocks_per_sm
        wanted = slots // grid_x
        if 0 < grid_x < slots and _wave_efficiency(grid_x, max(1, wanted), slots) < 0.85:
            # one wave leaves many slots idle (16384x50000 op T: 391 strips for 528 slots, 83.8%
            # of copy bandwidth measured): the fewest splits that fill whole waves to >= 95%,
            # and at least LONG_WAVES waves while a split keeps LONG_STEPS loop steps (the last
            # wave's ragged end is then a quarter of a block or less: 16384x50000 op T, 8
            # splits 1111 us against 4 splits 1141, commit 7550ec7; 300x50000 op T, whose
            # splits would be one step long, lost with 8: 27.6 us against 26.5)
            # Splits shorter than FILL_STEPS steps are not worth it: 300x50000 op T (75 rows a
            # split, 2.3 steps) ran 26.35 us with 4 splits against 25.48 with one (0bf45f3).
            top = max(1, min(most, MAX_SPLITS, length // (FILL_STEPS * step)))
            whole = [s for s in range(max(1, wanted) + 1, top + 1) if _wave_efficiency(grid_x, s, slots) >= 0.95]
            if whole:
                wanted = whole[0]
                longer = [s for s in whole if grid_x * s >= LONG_WAVES * slots and length // (s * step) >= LONG_STEPS]
                if longer:
                    wanted = longer[0]
        elif (isinstance(cfg, SgemvConfig) and not cfg.share_x and wanted >= 2
              and length // (wanted * step) >= TWO_WAVE_STEPS):
            # op N splits of long rows that fill one wave: two waves of half as long splits.
            # Measured on the H100 in two runs: 32x1M op N 49.64 / 49.27 us with 98 splits against
            # 50.40 / 50.08 with 49 (c367c04 and bd3ff88, docs/sgemv.md).  Not share_x (300x1M op N:
            # 16 splits 413.6 against 414.1 at 8, a tie in one run)
            wanted *= 2
    else:
        target = 2 * 64 * sms
        wanted = 1 if warps >= target // 2 else -(-target // warps)
    return max(1, min(wanted, most, MAX_SPLITS))


LONG_WAVES = 4
LONG_STEPS = 32
TWO_WAVE_STEPS = 8
FILL_STEPS = 4


def wave_fill(blocks: int, slots: int) -> float:
    """The busy part of the slots over the waves `blocks` take."""
    return blocks / (-(-blocks // slots) * slots)


def _wave_efficiency(grid_x: int, splits: int, slots: int) -> float:
    return wave_fill(grid_x * splits, slots)


# The shape rule does not pick the cluster form (CLUSTER_DOC): measured on the H100 (bd3ff88,
# docs/sgemv.md) against two launches at the same split it gained only on small decode shapes
# (768x768 op T 4.24 against 4.55 us at 8 splits, where 12 splits + reduce ran 4.00) and lost
# or tied elsewhere: 4096x4096 op T 8 splits u8 29.38 against 25.03 (102 registers, 2 blocks
# an SM: clusters of 8 leave GPC slots idle; u4 25.00), 16384x4096 102.62 / 89.16, 16384x50000
# 1125.7 / 1112.3, 2560x7680 28.86 / 28.78, 2048x2048 8.96 / 9.10 (16 splits + reduce 8.89),
# 2048x6144 19.69 / 19.71.  The reduce kernel in a CUDA graph costs about what the two cluster
# barriers and the co-scheduling cost.


def choose_gemv(m: int, n: int, op: str = "N", sms: int = H100_SMS):
    """(config, splits) for y = op(A) x with A row-major M x N: the rows kernel (op N) or the
    column-sweep kernel (op T), and the row/column-range split."""
    if op not in OPS:
        raise ConfigError(f"op={op!r}: must be 'N' or 'T'")
    cfg = config_for_shape(m, n) if op == "N" else config_for_shape_t(m, n, sms)
    splits = splits_for(cfg, m, n, sms)
    if splits > 1 and getattr(cfg, "share_x", False):
        # Measured on the H100 (commit 0bf45f3, docs/sgemv.md), one launch against two:
        # slower everywhere (its last block sums the partials alone, latency bound: 4096x77
        # op T 6.95 against 3.93 us, 16384x128 op T 12.54 / 9.42, 7x50000 op N 5.09 / 4.18,
        # 2560x7680 op T 29.32 / 28.77), except on the share_x kernel, where ptxas gives the
        # variant with the __noinline__ finish 48 registers against 60: 10 blocks an SM instead
        # of 8 (300x1M op N 414.9 us, one wave of 8 splits, against 427.9 with two launches
        # at 8 splits and 442.9 at 7; 300x50000 op N 24.94 against 24.93).
        cfg = cfg.replace(fused_reduce=True)
    return cfg, splits
