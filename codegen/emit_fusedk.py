"""The fused split-K kernel (backend "fusedk", issue 20): one launch, no reduce kernel.

For the shapes where the tiles leave SMs idle and K is long - tiny outputs (700x35x2048,
65x33x4097), skinny n or m (32768x32x4096, 48x2048x8192) - the CUDA C split-K path costs a
second launch and a workspace round trip, and its copies go per float when rows are not
16-byte aligned.  This kernel (templates/sgemm_fusedk.cu.j2):

- with config.lean_copies, copies the k-tiles inside the operands of a block inside M and N on
  aligned rows from one running pointer an operand, each float4 placed among the FFMAs of the
  k-tile before (`spread`), in a loop of their own: ~50 SASS instructions a k-tile besides the
  FFMAs and LDS of fused-128x32-f1, where load_tile's path took ~230 (session 24); the kernel is right
  with any mix of blocks, but regtile.sgemm's plans keep the loop only where every block runs it
  (operand_forms.for_lean_copies: a launch mixing it with load_tile's loop ran up to 40% slower, session 25);
- copies the other k-tiles (load_tile) with cp.async into a DEPTH-stage shared-memory ring (DEPTH - 1 k-tiles in
  flight), float4 where the operand's rows are 16-byte aligned, else per float (a fixed
  column per thread, rows THREADS / BK or THREADS / BN apart, the source pointer stepped:
  ~8 SASS instructions a copy, where a c / BK, c % BK loop took ~37; docs/shapes-history.md round 5),
  emitted where the threads are a multiple of the tile's width (every member); ragged edges
  zero-filled by the copy's source size (no separate edge path);
- computes a TM x TN thread tile (rows ty, ty + BM/TM, ...; columns in float4 groups);
- with split_k = S > 1 (grid z): each split writes its partial tile to W (S x M x N floats,
  float4 groups aligned whatever N is: the template says how), then arrives on the tile's counter (a barrier, then
  thread 0's release / acquire RMW: session 34 measured it 0.1-6.3% faster than __threadfence around the
  arrival on 10 of 12 split shapes, the same on the other two, docs/data/session34/k_741add2); the last of the S
  blocks to arrive sums the S partials in split order (deterministic, no float atomics), writes C and
  zeroes the counter, so repeated launches and CUDA-graph replays find it at 0;
- on sm_90 is launched as a programmatic dependent of the kernel before it (session 40): its first line waits for
  that kernel (griddepcontrol.wait, before any global access: the call before may still be summing W and zeroing
  the counters), and it lets the next call in only as its blocks exit (PROGRAMMATIC, ENTRY below).

The ring's depth derives from the tile's shared memory (`depth`), and the last split sums its
partials with the splits unrolled by 8, chunk after chunk.  (Session 4 measured both as config
knobs - a set depth, a wider sum - and neither made a member faster: docs/shapes-history.md; removed.)

Parameters: SGEMM_PARAMS then W (S * M * N floats, the caller's workspace) and counters
(one int per output tile, zero before the first launch: runtime/sgemm_launch.py uploads
them with the launch, as stream-K's flags).

Layouts (session 33): each operand's stage has the form of its stored rows, so that every copy is a float4 where the
rows are aligned.  A row-major: BM rows of BK floats, SA apart (a thread's rows i * MRG + ty, float4s along K);
A^T (trans_a, stored K x M): BK rows of BM floats (a thread's rows ty * TM + i, float4s along M).  B row-major: BK
rows of BN floats; B^T (trans_b, stored N x K): BN rows of BK floats, 16-byte chunks swizzled (swizzle_mask), read
as a float4 of four k a column.  (Session 30's B^T went a float at a time, lanes on consecutive n, and ran slower
than the unfused members on NT; A^T was refused.)  The lean copies read each form too.  No batch.
"""
from __future__ import annotations

import hashlib

from .config import ConfigError, SgemmConfig
from .hardware import MAX_SMEM_PER_BLOCK
from .kernel import PDL_WAIT, SGEMM_PARAMS, KernelSource, LaunchGeometry, c_params
from .templates import render

BACKEND = "fusedk"
FUSEDK_PARAMS = SGEMM_PARAMS + (("W", "float*"), ("counters", "int*"))
# The fused kernel is a programmatic dependent of the kernel before it: its first line is the wait (ENTRY), and it
# has no trigger of its own, so the next call is scheduled as its blocks exit.  Measured (H200, session 40,
# docs/data/session40/d_ea44d3f; lab/experiments/streamk_iters_ab.py, whose fused=1 now times the two other forms;
# 22 fused plans of the suites and held-out sets in four layouts): against the plain launch 5.2% faster back to back
# (20 of 22 by more than 1%, none slower by more) and 0.9% in CUDA graphs (none slower by more than 0.6%).  With the
# trigger right after the wait (kernel.PDL_ENTRY, as the split-K partial kernel has it) the NN 128x16 / 128x32 members
# ran 12-53% slower (8192x16x8192 81 -> 104 us back to back), the NT ones mostly 1-7% faster: the next call's blocks,
# scheduled early, take the block slots left free beside the running call's (the NN 128x16 / 128x32 forms hold
# 121-157 registers a thread, the NT 128x16 ones 230-232) - a reading of the timings, not profiled.
PROGRAMMATIC = True
ENTRY = PDL_WAIT
A_PAD = 4  # As rows BK + 4 floats apart: lanes on consecutive rows read float4s in distinct banks
# the ring's depth: 4 stages where they take at most DEEP_SMEM (three blocks an SM of 228 KB), else 3
# where they take at most MAX_SMEM (two blocks an SM), else 2
DEEP_SMEM = 72 * 1024
MAX_SMEM = 110 * 1024


def stage_bytes(cfg: SgemmConfig) -> int:
    """A stage of the ring: A's tile (rows padded by A_PAD where A is row-major; A^T's rows of BM floats unpadded)
    and B's (B^T's rows swizzled, unpadded)."""
    a = cfg.bk * cfg.bm if cfg.trans_a else cfg.bm * (cfg.bk + A_PAD)
    return 4 * (a + cfg.bk * cfg.bn)


def depth(cfg: SgemmConfig) -> int:
    """Stages of the cp.async ring, derived from the tile's shared memory (DEEP_SMEM, MAX_SMEM)."""
    if 4 * stage_bytes(cfg) <= DEEP_SMEM:
        return 4
    return 3 if 3 * stage_bytes(cfg) <= MAX_SMEM else 2


def describe(cfg: SgemmConfig) -> str:
    """What this kernel does with `cfg`, in the words of SgemmConfig.describe.  That one describes the register-staged
    emitters' fields, which this template does not read (stages, the As transpose, the warps' z-order lanes: its
    threads are row-major, tid = ty * BN / TN + tx) and calls a split's sum a reduce kernel."""
    a = (f"A^T as {cfg.bk} rows of {cfg.bm} floats" if cfg.trans_a else
         f"A as {cfg.bm} rows of {cfg.bk} floats, {cfg.bk + A_PAD} apart")
    b = (f"B^T as {cfg.bn} rows of {cfg.bk} floats, 16-byte chunks XOR-swizzled" if cfg.trans_b else
         f"B as {cfg.bk} rows of {cfg.bn} floats")
    split = ("K whole" if cfg.split_k == 1 else
             f"K in {cfg.split_k} splits, the last block of a tile to arrive sums their partials in split order")
    lean = ", lean copies inside the operands" if spread(cfg, cfg.threads) else ""  # as the emitter places them
    return (f"block {cfg.bm}x{cfg.bn}x{cfg.bk}, thread tile {cfg.tm}x{cfg.tn}, {cfg.threads} threads, fused split-K: "
            f"a cp.async ring of {depth(cfg)} stages of {stage_bytes(cfg)} bytes ({a}; {b}){lean}; {split}, "
            f"one launch")


def check(cfg: SgemmConfig) -> None:
    """The constraints of the template, each named.  (The fields other backends emit and this
    one does not - batched, stream_k, edge_split, unaligned_rows - are refused before, in
    emit.BACKEND_FIELDS.)"""
    if cfg.bk % 4 or cfg.tn % 4:
        raise ConfigError(f"backend 'fusedk': BK ({cfg.bk}) and TN ({cfg.tn}) must be multiples of 4 (float4 "
                          f"fragments along K and N)")
    if cfg.bm % cfg.tm or cfg.bn % cfg.tn:
        raise ConfigError(f"backend 'fusedk': TM ({cfg.tm}) must divide BM ({cfg.bm}), TN ({cfg.tn}) BN ({cfg.bn})")
    threads = cfg.threads
    if not 32 <= threads <= 1024 or threads % 32:
        raise ConfigError(f"backend 'fusedk': (BM/TM) x (BN/TN) = {threads} threads; must be a multiple of 32 "
                          f"in 32..1024")
    chunks = cfg.bk // 4
    if cfg.trans_b and chunks & (chunks - 1):
        raise ConfigError(f"backend 'fusedk' with trans_b: BK / 4 ({chunks}) must be a power of two (B^T's 16-byte "
                          f"chunks are swizzled by XOR within a row: with BK {cfg.bk} a chunk would leave its row)")
    if cfg.trans_a and cfg.tm % 4:
        raise ConfigError(f"backend 'fusedk' with trans_a: TM ({cfg.tm}) must be a multiple of 4 (A^T's fragments are "
                          f"float4s along M)")
    if depth(cfg) * stage_bytes(cfg) > MAX_SMEM_PER_BLOCK:
        raise ConfigError(f"backend 'fusedk': {depth(cfg)} stages of {stage_bytes(cfg)} bytes pass the 227 KB "
                          f"of shared memory a block may have; use a smaller tile")


def kernel_name(cfg: SgemmConfig) -> str:
    digest = hashlib.sha1(repr(sorted(cfg.to_dict().items())).encode()).hexdigest()[:10]
    return f"regtile_fusedk_{cfg.bm}x{cfg.bn}x{cfg.bk}_{cfg.tm}x{cfg.tn}_s{cfg.split_k}_{digest}"


def geometry(cfg: SgemmConfig) -> LaunchGeometry:
    return LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=cfg.bm, tile_n=cfg.bn,
                          dynamic_smem_bytes=depth(cfg) * stage_bytes(cfg), splits=cfg.split_k,
                          programmatic=PROGRAMMATIC)


def _iters(total: int, threads: int):
    """(copies a thread makes, whether the last round needs a bound check)."""
    return -(-total // threads), total % threads != 0


def _copy(cfg: SgemmConfig, operand: str, threads: int) -> dict:
    """How the template copies an operand's k-tile (its copy macro): the float4 and per-float rounds a thread makes
    and their bounds, and whether the per-float copies keep a column a thread (`strided`: the threads a multiple of
    the stored row's width - BK where the operand is K-major, A or B^T, else its tile width BM or BN)."""
    span = cfg.bm if operand == "A" else cfg.bn
    k_major = not cfg.trans_a if operand == "A" else cfg.trans_b
    vec_iters, vec_guard = _iters(span * cfg.bk // 4, threads)
    one_iters, one_guard = _iters(span * cfg.bk, threads)
    return dict(name=f"{operand.lower()}_vec", iters=vec_iters, guard=vec_guard, one_iters=one_iters,
                one_guard=one_guard, strided=threads % (cfg.bk if k_major else span) == 0)


def swizzle_mask(cfg: SgemmConfig) -> int:
    """B^T's rows in a stage: 16-byte chunk c of row r lies at c ^ ((r / 4) & mask).  A thread's columns are float4
    groups, so the eight lanes of a quarter warp read rows 4 apart at one k: with the mask (BK/4 chunks a row, at most
    8) up to eight distinct chunks, where a padded row (BK + 4) put them on two (a 4-way bank conflict)."""
    return min(cfg.bk // 4, 8) - 1


# B^T's lean copies each keep their shared-memory address in a register (the swizzle moves with the row): at most 4 a
# thread (fused-64x128 in NT, 8 of them, spilled 48 bytes at 255 registers)
B_T_LEAN_COPIES = 4


def spread(cfg: SgemmConfig, threads: int, steps: int = 0):
    """The lean copies' places (config.lean_copies; templates/sgemm_fusedk.cu.j2): per kk step of a k-tile (BK / 4
    of them), the float4 copies (operand, index) the thread issues there, A's then B's dealt evenly over the
    first `steps` steps (0: all of them, as emitted - fewer measured slower, lab/experiments/
    fusedk_lean_steps_ab.py); () without lean_copies, or where a copy count does not divide the tile (a thread's
    last copy would need a bound), or with more than B_T_LEAN_COPIES of B^T: then every k-tile takes load_tile."""
    a, b = cfg.bm * cfg.bk // 4, cfg.bk * cfg.bn // 4
    a_row = (cfg.bm if cfg.trans_a else cfg.bk) // 4  # float4s a stored row of the tile (A^T: BM, B^T: BK floats)
    b_row = (cfg.bk if cfg.trans_b else cfg.bn) // 4
    if not cfg.lean_copies or a % threads or b % threads or threads % a_row or threads % b_row:
        return ()
    if cfg.trans_b and b // threads > B_T_LEAN_COPIES:
        return ()
    copies = [("A", i) for i in range(a // threads)] + [("B", i) for i in range(b // threads)]
    dealt = min(steps or cfg.bk // 4, cfg.bk // 4)
    return tuple(tuple(c for j, c in enumerate(copies) if j * dealt // len(copies) == s) for s in range(cfg.bk // 4))


def emit_sgemm_fusedk(cfg: SgemmConfig) -> KernelSource:
    check(cfg)
    geo = geometry(cfg)
    threads = geo.block[0]
    name = kernel_name(cfg)
    d = depth(cfg)
    red_iters, red_guard = _iters(cfg.bm * cfg.bn // 4, threads)
    lean = spread(cfg, threads)
    split = cfg.split_k
    header = [f"regtile fused split-K SGEMM {name} (codegen/emit_fusedk.py)",
              f"C = alpha {'A^T' if cfg.trans_a else 'A'} {'B^T' if cfg.trans_b else 'B'} + beta C, row-major; block tile "
              f"{cfg.bm}x{cfg.bn}x{cfg.bk}, thread tile {cfg.tm}x{cfg.tn}, {threads} threads, {d}-stage cp.async ring "
              f"({geo.dynamic_smem_bytes} bytes)",
              f"launch: block ({threads}, 1, 1), grid {geo.describe()}"]
    if split > 1:
        header.append(f"split-K {split} in one launch: partials to the workspace, the last split of a tile to arrive "
                      f"(counters) sums W[0..{split - 1}] in order and writes C")
    text = render("sgemm_fusedk.cu.j2", name=name, header=header, bm=cfg.bm, bn=cfg.bn, bk=cfg.bk, tm=cfg.tm,
                  tn=cfg.tn, threads=threads, depth=d, splits=split, sa=cfg.bk + A_PAD,
                  min_blocks=max(1, cfg.min_blocks),
                  a_copy=_copy(cfg, "A", threads), b_copy=_copy(cfg, "B", threads), a_t=cfg.trans_a,
                  b_t=cfg.trans_b, swz=swizzle_mask(cfg), red_iters=red_iters, red_guard=red_guard,
                  spread=lean, lean_b=sorted({i for slot in lean for op, i in slot if op == "B"}),
                  params=c_params(FUSEDK_PARAMS), entry=ENTRY if PROGRAMMATIC else ())
    return KernelSource(name=name, language="cuda", text=text, geometry=geo, params=FUSEDK_PARAMS)
