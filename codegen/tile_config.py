"""TileConfig: what one SGEMM kernel computes per thread, warp and block (config part 1 of 3).

C = alpha * op(A) @ op(B) + beta * C with A, B and C row-major, each with its own leading
dimension.  A block computes a BM x BN tile of C in k-steps of BK; each thread owns a
TM x TN register tile of it.  Warps tile the block (warps_m x warps_n); inside a warp the
32 lanes form an LY x LX grid whose lane -> (row, col) order is the thread mapping
(`linear` or `zorder`).

An SgemmConfig (codegen/config.py) is this tile, a Decomposition (how the problem is split
over blocks and kernels: split-K, stream-K, edge split) and BuildOptions (what happens after
ptxas).  The tile holds everything whose change changes the per-block kernel: its shape and
thread mapping, the shared-memory and register plan, the operand layouts and batch form
(they change the copy code and the parameters), the edge tiles' load path and the occupancy
hint (min_blocks: it is emitted as __launch_bounds__ / .minnctapersm and sets the register
cap the tile is validated against).  Every check that reads only these fields lives here;
checks across parts live in config.py.

Every failed check raises ConfigError naming the constraint, the value and a fix.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from ..errors import ConfigError
from .config_base import ConfigDict, check_bools, check_ints
from .hardware import MAX_REGISTERS_PER_THREAD, MAX_SMEM_PER_BLOCK, MAX_THREADS_PER_BLOCK, REGISTERS_PER_SM

MAPPINGS = ("linear", "zorder")
FFMA_ORDERS = ("zigzag", "colzig", "swirl", "rowmajor")
MAX_COPIES_PER_THREAD = 8
# The lowest register cap validation lets a kernel ask for (min_blocks, max_registers): sampled, ptxas
# spilled in 424 of 678 configs whose min_blocks cap sat below 128.
MIN_REGISTER_CAP = 128
# stages of the cp.async ring (config stages >= 3): tile kt + stages - 1 is in flight while tile kt
# is computed; no staging registers (codegen/program.py main_loop)
RING_STAGES = (3, 4)


def _is_pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


@dataclass(frozen=True)
class TileConfig(ConfigDict):
    bm: int = 128
    bn: int = 128
    bk: int = 8
    tm: int = 8
    tn: int = 8
    # (warps_m, warps_n); None derives the row-major layout of the seed kernels:
    # as many lanes along N as the block has thread columns, up to 32.
    warps: Optional[Tuple[int, int]] = None
    mapping: str = "linear"
    # Thread tile made of 4x4 pieces spread over the warp tile (maxas / seed 001's
    # z-order kernel) instead of TM contiguous rows and TN contiguous columns.
    split_tile: bool = False
    # Shared-memory stages: 0 reads operands straight from global memory (the naive
    # kernel), 1 is load-sync-compute-sync, 2 double-buffers with one barrier a step
    # (the next tile staged in registers), 3 or 4 a ring of stages filled by cp.async
    # straight from global memory, RING_STAGES - 1 tiles ahead (PTX backend).
    stages: int = 1
    a_transposed: bool = False  # As stored [BK][BM + pad_a] instead of [BM][BK + pad_a]
    pad_a: int = 0  # floats added to each As row
    pad_b: int = 0  # floats added to each Bs row
    vec: int = 1  # width of global loads and fragment loads: 1 or 4 floats
    frag_regs: bool = True  # A/B fragments held in registers for the outer product
    reg_prefetch: bool = False  # fragments double-buffered: load k+1 while computing k
    # __launch_bounds__ occupancy hint: blocks per SM that ptxas must fit in the
    # register file (caps registers at 65536 / (threads * min_blocks)).  Applied on
    # sm_90, where it was measured; sm_80..89 builds get 1 (their ptxas spills at
    # the same cap for the double-buffered kernels).  A tile field, not a build option:
    # the kernel text carries it, and the register rules below validate the tile against it.
    min_blocks: int = 1
    # Source order of the FFMAs of one k-slice (FFMA_ORDERS above; codegen/plan.py FFMA_ORDER_FUNCTIONS).  ptxas
    # keeps much of it, and its register allocation (hence register-bank conflicts)
    # follows: docs/register-banks.md.
    ffma_order: str = "zigzag"
    # Edge tiles' copies (PTX backend, vec 4): where the operand's rows are aligned and its
    # extent along the vectors is a multiple of 4 (block-uniform), a path of zeros and
    # predicated float4 loads, else one of zeros and predicated float loads.  Without it an
    # edge tile tries the float4, then zeroes/loads the same registers per float where the
    # float4 did not run: ptxas cannot prove the two exclusive and waits for the float4 in
    # flight (FSEL on its registers), so every k-tile of an edge tile exposes the global
    # latency (docs/shapes-history.md).  A tile field: it changes the copy code of a block, not how
    # the problem is split (that is the Decomposition's edge_split).
    edge_vector_path: bool = False
    # Edge tiles along M and N (PTX backend, vec 4): each copy's source is clamped into the
    # matrix once a tile - A's row to M - 1, B's column to the last float4 holding a float inside
    # ((N - 1) & ~3; the layouts' transposes likewise) - so a tile past M or N reads the last
    # row or vector again instead of checking every load.  Those floats reach only C's rows
    # and columns outside the matrix, which the epilogue does not store.  An M or N edge tile
    # then takes the interior's unchecked float4 loads, and only the K edge (a partial last
    # k-tile; where N % 4 != 0, the last k-tile of a tile across N: ptx_edges.clamp_setup) the
    # checked path.  A tile field, like edge_vector_path: the copy code of a block.
    edge_clamp: bool = False
    # Operand layouts (issue 19): op(A) = A^T when trans_a (A stored K x M row-major, i.e.
    # op(A)'s element (i, p) at A[p * lda + i]), op(B) = B^T when trans_b ((p, j) at
    # B[j * ldb + p]).  The copy reads each operand along its contiguous dimension and lands
    # it in the same shared layout (As/Bs), so only the global -> shared copy changes.
    trans_a: bool = False
    trans_b: bool = False
    # Strided batch: blockIdx.z is the batch index; three more parameters after ldc
    # (long long stride_a, stride_b, stride_c, in floats; 0 broadcasts an operand).  The
    # problem's form, like the layouts: it changes the block's operand offsets and parameters.
    batched: bool = False
    # Operands whose rows are not 16-byte aligned (ld % 4 != 0, or a pointer off 16 bytes;
    # PTX backend, vec 4): every k-tile inside K takes the plan's float copies (plan.float_copies:
    # a float a copy, consecutive threads on consecutive floats, one pointer stepped a line at a
    # time, guarded only in the block dimension's edge tiles) instead of the edge tiles'
    # per-float path, whose loads touch a sector a lane and carry a predicate, a zero and an
    # index add per float (codegen/ptx_unaligned.py; docs/shapes-history.md, "Unaligned rows").  The
    # runtime asks for it where lda or ldb is not a multiple of 4 (codegen/operand_forms.for_rows);
    # the kernel stays correct on aligned rows (their float4 paths are the same).
    unaligned_rows: bool = False
    # Rows not 16-byte aligned on a kernel without the float copies (their registers do not fit
    # beside an 8x16 thread tile; PTX, with edge_clamp): a k-tile inside K loads each float4
    # copy's four floats unchecked, into the registers and shared memory the float4 fills,
    # instead of the edge path's zero, compare and predicated load per float
    # (ptx_edges._load_unaligned_unchecked; the cp.async ring: a 4-byte cp.async a float, ptx_ring.py).
    # The runtime asks for it where lda or ldb is not a multiple of 4 (codegen/operand_forms.for_rows);
    # aligned rows keep the kernel without it.
    unaligned_vectors: bool = False
    # C's last column fused into the last tile column (PTX, two shared stages): the kernel's N
    # parameter is C's columns less one, and the blocks whose tile ends at or past it also
    # compute column N from the A tile already in shared memory (B's column a float a k,
    # BK of them beside each stage; thread t sums row t % BM over every (threads / BM)-th k).
    # An N of BN * q + 1 then runs q tile columns, not q + 1 whose last is one column wide
    # (issue 20: 255x257x65537 in 128x64 tiles spends a fifth of its FFMAs on that column;
    # codegen/ptx_last_col.py).  The runtime asks for it where N % BN == 1
    # (codegen/operand_forms.for_columns).
    last_col: bool = False
    # C's rows not 16-byte aligned (ldc % 4 != 0, or C's pointer off 16 bytes; PTX, vec 4): the
    # epilogue stages each row of the thread tiles through shared memory (mapping.c_stage_*: the
    # rows of every thread's i-th accumulator row, BM / TM of them, as BN + c_stage_pad floats
    # each), so that a warp then stores runs of BN / TN consecutive columns of C's rows, instead of each
    # thread's floats one at a time, a warp's store touching many sectors a few bytes each
    # (measured, H100, lab/experiments/c_store_probe.py: the same kernel into C with ldc = N + 1
    # ran 3000x3000x64 in 78.0 us against 47.1 with ldc = N, 3000x7000x212 in 283.4 against 207.4,
    # 1024x50256x768 in 1723.6 against 1538.9).  The kernel tests C's rows at run time: aligned rows
    # keep the float4 stores.  The runtime asks for it where ldc % 4 != 0 (operand_forms.for_c; before session 27
    # it tested N, so a C view with ldc = N + 1 and N % 4 == 0 took the per-float stores).
    c_staged: bool = False
    # A register cap on every entry of the kernel (PTX `.maxnreg`; 0: ptxas's own choice).  Unlike
    # min_blocks it is not checked against register_estimate, which runs 12-20 registers above
    # ptxas's counts on the k16 tiles: it is a measured choice (operand_forms.for_columns holds the
    # fused last column's kernels at three blocks an SM with it), a spill under it is refused at
    # compile (runtime/compiler.check_spill_free), and tests compile every config given one.
    max_registers: int = 0
    # The two-stage loop's head - this tile's and the next one's shared stage offsets, k0 of the
    # next tile and whether it exists - computed at the end of the iteration before, after the
    # last slice's FFMAs and before the back branch, where ptxas spreads it among them; without
    # it the head opens every k-tile with no FFMA to overlap (PTX, stages=2).  Measured per
    # member, on for the 128x256, 256x128 and 64x256 tiles only (issue 20, session 21;
    # docs/shapes.md): 0.2-0.5% faster there, 0.3-2% slower on the 64x128 and 64x64 BK 16 tiles.
    hoist_head: bool = False
    # The fused split-K kernel's lean copies (backend fusedk; codegen/emit_fusedk.spread): the k-tiles inside the
    # operands, of blocks inside M and N on 16-byte aligned rows, copied from one running pointer an operand,
    # each float4 among the FFMAs of the k-tile before, in a loop of their own; the other k-tiles keep load_tile's
    # loop.  On in the fused members; operand_forms.for_lean_copies takes it off unless every block runs the loop
    # (with edge blocks on load_tile's loop in the same launch it ran up to 40% slower: issue 20, session 25).
    lean_copies: bool = False

    WHAT = "tile config"
    # fields left out of to_dict at their defaults: tiles without them keep their names and digests
    OPT_IN = ("edge_vector_path", "edge_clamp", "trans_a", "trans_b", "batched", "unaligned_rows", "unaligned_vectors",
              "last_col", "c_staged", "max_registers", "hoist_head", "lean_copies")

    def __post_init__(self):
        self._check_ints()
        if self.warps is None:
            object.__setattr__(self, "warps", self._default_warps())
        else:
            object.__setattr__(self, "warps", tuple(int(w) for w in self.warps))
        self._validate()

    # ---- derived quantities -------------------------------------------------
    @property
    def threads(self) -> int:
        return (self.bm // self.tm) * (self.bn // self.tn)

    @property
    def lanes_m(self) -> int:
        """LY: lanes of a warp along M."""
        return self.bm // (self.warps[0] * self.tm)

    @property
    def lanes_n(self) -> int:
        """LX: lanes of a warp along N."""
        return self.bn // (self.warps[1] * self.tn)

    @property
    def warp_tile(self) -> Tuple[int, int]:
        return (self.bm // self.warps[0], self.bn // self.warps[1])

    @property
    def piece_m(self) -> int:
        """Rows of one contiguous piece of the thread tile."""
        return 4 if self.split_tile else self.tm

    @property
    def piece_n(self) -> int:
        return 4 if self.split_tile else self.tn

    @property
    def as_shape(self) -> Tuple[int, int]:
        """(rows, row stride) of one As buffer, in floats."""
        if self.a_transposed:
            return (self.bk, self.bm + self.pad_a)
        return (self.bm, self.bk + self.pad_a)

    @property
    def bs_shape(self) -> Tuple[int, int]:
        return (self.bk, self.bn + self.pad_b)

    @property
    def smem_floats_per_stage(self) -> int:
        """As, Bs and with last_col B's last column (BK floats: mapping.xs_index)."""
        (ar, ac), (br, bc) = self.as_shape, self.bs_shape
        return ar * ac + br * bc + (self.bk if self.last_col else 0)

    @property
    def last_col_groups(self) -> int:
        """last_col: the threads that sum one row of the last column (threads / BM), each every
        last_col_groups-th k of a tile."""
        return max(1, self.threads // self.bm)

    @property
    def last_col_slices(self) -> int:
        """last_col: the k-slices of a tile one thread sums (each a load of As, one of B's column and
        an FFMA: codegen/ptx_last_col.py renders them, codegen/smem_banks.py counts them)."""
        return self.bk // self.last_col_groups

    @property
    def float4_epilogue(self) -> bool:
        """Does the epilogue store C a float4 at a time where C's rows allow (vec 4, thread-tile pieces 4
        columns wide: program.epilogue)?  The staged C (c_staged) writes those float4 groups."""
        return self.vec == 4 and self.piece_n % 4 == 0

    @property
    def c_stage_pad(self) -> int:
        """c_staged: floats after each staged row of C, so that a row starts BN / TN banks after the one
        before (16 where that is not a multiple of 4 below 32): a warp's read of BN / TN consecutive floats a
        row (mapping.c_stage_element) then covers the 32 banks once, and the float4 writes take at most twice
        their ideal wavefronts (tests/codegen/test_c_staged.py counts both from the index functions)."""
        per_row = self.bn // self.tn
        return ((per_row if per_row % 4 == 0 and per_row < 32 else 16) - self.bn) % 32

    @property
    def c_stage_floats(self) -> int:
        """c_staged: the staged rows' floats (BM / TM rows of BN + c_stage_pad)."""
        return self.bm // self.tm * (self.bn + self.c_stage_pad)

    @property
    def smem_bytes(self) -> int:
        return 4 * self.stages * self.smem_floats_per_stage

    @property
    def a_loads_per_thread(self) -> int:
        return (self.bm * self.bk) // (self.vec * self.threads)

    @property
    def b_loads_per_thread(self) -> int:
        return (self.bk * self.bn) // (self.vec * self.threads)

    def register_estimate(self) -> int:
        """Registers ptxas needs for this kernel without spilling, as validation models them.

        Fitted (issue 8) to ptxas 13.0's sm_90 reports, both backends, for about 7,000
        configs of the whole space (scratch sweep: every spill of the sample lies above
        the register cap by this estimate, the presets and the default kernel below it):
        accumulators count whole; fragment registers a quarter (ptxas re-reads fragments
        from shared memory before it spills); every k-slice of the unrolled k-tile 1/16 of
        a fragment (loads scheduled early); without shared memory the operands 1.75
        registers each; staging of the double-buffered copy 3/4 a float (it lives across
        the compute); every global->shared copy 8 (pointer, shared offset, bounds
        predicate, the loaded value's address arithmetic); FFMA orders other than zigzag
        keep fragments live longer, 10 registers per 32 fragment registers; 26 of overhead
        (indices, M/N/K, alpha/beta, loop state).  Units of 1/32 register, rounded up."""
        tt, nbuf = self.tm + self.tn, 2 if self.reg_prefetch else 1
        frags = tt * nbuf if self.frag_regs else self.bk * tt
        copies = (self.a_loads_per_thread + self.b_loads_per_thread) if self.stages else 0
        e32 = 32 * self.tm * self.tn + 8 * frags + 32 * 26 + 256 * copies
        e32 += 2 * self.bk * tt if self.stages else 56 * tt
        if self.stages == 2:
            e32 += 24 * copies * self.vec
        if self.ffma_order != "zigzag":
            e32 += 10 * tt * nbuf
        if self.trans_b and self.stages and self.vec > 1:
            # B^T lands in Bs a float at a time: one more register a copy (their addresses).
            # Measured (sm_90, CUDA C): the zorder preset, estimated at its cap of 128, spilled
            # 20 bytes as NT and not as NN, TN or TT; the other layouts cost nothing extra.
            e32 += 32 * self.b_loads_per_thread
        if self.batched and self.edge_vector_path:
            # the batch entry's operand offsets (blockIdx.z x three 64-bit strides) beside the
            # edge tiles' two load paths.  Measured (sm_90, PTX, 2026-11-25): the 128x128 8x8
            # member at min_blocks=2, estimated at its cap of 128, spilled 32 bytes batched with
            # edge_vector_path, and not unbatched; the zorder preset batched (no edge_vector_path)
            # compiled spill-free on both backends.
            e32 += 32
        if self.last_col:
            # its sum, its copied float and the tile's predicate across the k-loop.  Measured (sm_90,
            # PTX, NVRTC 13.0, 2026-11-27): the 128x128 8x8 member at min_blocks=2, estimated at its
            # cap of 128, spilled 4 bytes with it; the k16 members' ranges kernel 167 -> 181 registers
            e32 += 32 * 4
        if self.stages in RING_STAGES and self.unaligned_vectors:
            # the ring's 4-byte copy a float: an address a float beside the vectors' (codegen/ptx_ring.py).  Measured
            # (sm_90, PTX, NVRTC 13.0, session 36's review): the 128x128 8x8 member at min_blocks=2, estimated at 122
            # under its cap of 128, spilled 16 bytes in its stream-K ranges kernel
            e32 += 32 * 8
        if self.unaligned_rows:
            # the float copies' pointers, steps and predicates.  Measured (sm_90, PTX, NVRTC 13.0,
            # 2026-11-25): the 128x64 8x8 member 135 -> 158 registers with them; the 128x128 8x8
            # member at min_blocks=2, estimated at its cap of 128, spilled (an earlier form).
            e32 += 32 * 4
            if self.tm * self.tn >= 128 and max(self.a_loads_per_thread, self.b_loads_per_thread) * self.vec >= 16:
                # 16 floats of one operand a thread beside a 16x8 thread tile: 256x64 16x8 (the
                # stream-K ranges kernel, estimated at 237) used 255 registers and spilled 16 bytes; 64x256 8x16
                # reached 248.  Both refused: they keep the edge path on unaligned rows.
                e32 += 32 * 24
        return -(-e32 // 32)

    def register_cap(self, blocks: int = 0) -> int:
        """Registers a thread may have at most: what `threads` x `min_blocks` blocks (`blocks`, where
        given) leave of the SM's 64K (allocated 8 at a time), at most 255; blocks of 512 threads or more
        count as 64 (ptxas aims at two such blocks an SM and spills to get there: sampled
        512-thread kernels needing 65-80 registers were squeezed into 64)."""
        warps = self.threads // 32
        cap = min(MAX_REGISTERS_PER_THREAD, REGISTERS_PER_SM // (256 * warps * (blocks or self.min_blocks)) * 8)
        return min(cap, 64) if self.threads >= 512 else cap

    @property
    def layout(self) -> str:
        """BLAS-style layout name: "NN", "NT", "TN" or "TT" (op(A), op(B))."""
        return ("T" if self.trans_a else "N") + ("T" if self.trans_b else "N")

    def describe_parts(self) -> list:
        wm, wn = self.warps
        parts = [f"block {self.bm}x{self.bn}x{self.bk}", f"thread tile {self.tm}x{self.tn}",
                 f"{self.threads} threads", f"warps {wm}x{wn} (lanes {self.lanes_m}x{self.lanes_n}, {self.mapping})"]
        if self.split_tile:
            parts.append("thread tile in 4x4 pieces")
        parts.append(f"smem stages {self.stages}")
        if self.stages:
            parts.append("As transposed" if self.a_transposed else "As row-major")
            if self.pad_a or self.pad_b:
                parts.append(f"pad A {self.pad_a} B {self.pad_b}")
        parts.append(f"vec {self.vec}")
        if not self.frag_regs:
            parts.append("no register fragments")
        if self.reg_prefetch:
            parts.append("register prefetch")
        if self.min_blocks > 1:
            parts.append(f"min {self.min_blocks} blocks/SM")
        if self.max_registers:
            parts.append(f"at most {self.max_registers} registers")
        if self.hoist_head:
            parts.append("loop head hoisted to the previous k-tile's end")
        if self.lean_copies:
            parts.append("lean copies inside the operands")
        if self.ffma_order != "zigzag":
            parts.append(f"FFMA order {self.ffma_order}")
        return parts

    def describe_layout(self) -> list:
        """The parts of describe() that follow the decomposition's (kept in their old order)."""
        parts = []
        if self.edge_vector_path:
            parts.append("edge copies: a float4-or-zero path, no write behind a load")
        if self.edge_clamp:
            parts.append("M / N edge tiles: sources clamped into the matrix, unchecked float4")
        if self.trans_a or self.trans_b:
            parts.append(f"layout {self.layout} (op(A) {'A^T' if self.trans_a else 'A'}, "
                         f"op(B) {'B^T' if self.trans_b else 'B'})")
        if self.batched:
            parts.append("strided batch (blockIdx.z, strides in floats)")
        if self.unaligned_rows:
            parts.append("unaligned rows: a float a thread inside K, consecutive threads on consecutive floats")
        if self.unaligned_vectors:
            parts.append("unaligned rows: each vector's floats unchecked inside K")
        if self.last_col:
            parts.append("C's last column fused into the last tile column")
        if self.c_staged:
            parts.append("C's unaligned rows stored through shared memory, a warp a row")
        return parts

    # ---- validation ---------------------------------------------------------
    def _check_ints(self):
        check_ints(self, ("bm", "bn", "bk", "tm", "tn", "min_blocks"))
        check_ints(self, ("pad_a", "pad_b", "stages", "max_registers"), minimum=0)
        check_ints(self, ("vec",))
        check_bools(self, ("split_tile", "a_transposed", "frag_regs", "reg_prefetch", "edge_vector_path",
                           "edge_clamp", "trans_a", "trans_b", "batched", "unaligned_rows", "unaligned_vectors",
                           "last_col", "c_staged", "hoist_head", "lean_copies"))

    def _default_warps(self) -> Tuple[int, int]:
        cols = self.bn // self.tn if self.bn % self.tn == 0 else 1
        rows = self.bm // self.tm if self.bm % self.tm == 0 else 1
        lanes_n = min(32, cols) if cols > 0 else 1
        lanes_m = max(1, 32 // lanes_n)
        wn = max(1, cols // lanes_n)
        wm = max(1, rows // lanes_m)
        return (wm, wn)

    def _validate(self):
        c = self
        if c.bm % c.tm:
            raise ConfigError(f"tile divisibility: bm={c.bm} is not a multiple of tm={c.tm}; choose tm dividing bm")
        if c.bn % c.tn:
            raise ConfigError(f"tile divisibility: bn={c.bn} is not a multiple of tn={c.tn}; choose tn dividing bn")
        t = c.threads
        if t % 32:
            raise ConfigError(f"threads per block (bm/tm)*(bn/tn) = {t} is not a multiple of 32 (a whole number of warps); "
                              f"change bm, bn, tm or tn")
        if t > MAX_THREADS_PER_BLOCK:
            raise ConfigError(f"threads per block (bm/tm)*(bn/tn) = {t} exceeds {MAX_THREADS_PER_BLOCK}; "
                              f"use a larger thread tile (tm, tn) or a smaller block tile")
        wm, wn = c.warps
        if wm < 1 or wn < 1 or wm * wn * 32 != t:
            raise ConfigError(f"warps={c.warps}: warps_m*warps_n must equal threads/32 = {t // 32}")
        if c.bm % (wm * c.tm) or c.bn % (wn * c.tn):
            raise ConfigError(f"warps={c.warps}: the warp tile must hold whole thread tiles "
                              f"(bm % (warps_m*tm) == 0 and bn % (warps_n*tn) == 0)")
        if c.lanes_m * c.lanes_n != 32:
            raise ConfigError(f"warps={c.warps}: a warp covers {c.lanes_m}x{c.lanes_n} thread tiles, not 32; "
                              f"pick warps so that (bm/(warps_m*tm)) * (bn/(warps_n*tn)) == 32")
        if c.ffma_order not in FFMA_ORDERS:
            raise ConfigError(f"ffma_order={c.ffma_order!r}: must be one of {FFMA_ORDERS}")
        if c.mapping not in MAPPINGS:
            raise ConfigError(f"mapping={c.mapping!r}: must be one of {MAPPINGS}")
        if c.mapping == "zorder" and (c.lanes_m % 2 or not _is_pow2(c.lanes_n)):
            raise ConfigError(f"mapping='zorder' needs an even number of lanes along M and a power of two along N; "
                              f"this warp is {c.lanes_m}x{c.lanes_n}: change warps")
        if c.split_tile and (c.tm % 4 or c.tn % 4 or c.tm < 8 and c.tn < 8):
            raise ConfigError(f"split_tile needs tm and tn multiples of 4 and at least one of them >= 8 "
                              f"(got tm={c.tm}, tn={c.tn})")
        if c.stages not in (0, 1, 2) + RING_STAGES:
            raise ConfigError(f"stages={c.stages}: must be 0 (no shared memory), 1, 2 or a cp.async ring of "
                              f"{' or '.join(map(str, RING_STAGES))}")
        if c.stages in RING_STAGES and (c.vec != 4 or not c.reg_prefetch or c.bk % 2):
            raise ConfigError(f"stages={c.stages} (the cp.async ring) copies float4 vectors or their floats into "
                              f"shared memory and prefetches register fragments across tiles: it needs vec=4, "
                              f"reg_prefetch=True and an even bk; got vec={c.vec}, reg_prefetch={c.reg_prefetch}, "
                              f"bk={c.bk}")
        if c.vec not in (1, 4):
            raise ConfigError(f"vec={c.vec}: vector width must be 1 or 4 floats")
        if c.reg_prefetch and not c.frag_regs:
            raise ConfigError("reg_prefetch needs frag_regs: only register fragments can be double-buffered")
        if c.stages == 0:
            if c.vec != 1 or c.a_transposed or c.pad_a or c.pad_b or c.reg_prefetch:
                raise ConfigError("stages=0 reads operands straight from global memory: vec must be 1, and "
                                  "a_transposed, pad_a, pad_b and reg_prefetch are shared-memory options")
        else:
            for side, n in (("A", c.bm * c.bk), ("B", c.bk * c.bn)):
                if n % (c.vec * t):
                    raise ConfigError(f"global->shared copy of {side}: the tile's {n} floats are not a multiple of "
                                      f"vec*threads = {c.vec * t}; change bk or the vector width")
                per_thread = n // (c.vec * t)
                if per_thread > MAX_COPIES_PER_THREAD:
                    raise ConfigError(f"global->shared copy of {side}: {per_thread} loads per thread per k-tile, more "
                                      f"than {MAX_COPIES_PER_THREAD} (their staging registers crowd out the tile); "
                                      f"use vec=4, more threads (smaller tm/tn) or a smaller bk")
        if c.vec == 4:
            if c.trans_a and c.bm % 4:
                raise ConfigError(f"vec=4 with trans_a loads A along M in float4: bm={c.bm} must be a multiple of 4")
            if c.bk % 4 or c.bn % 4:
                raise ConfigError(f"vec=4 loads rows of A along K and of B along N in float4: bk={c.bk} and bn={c.bn} "
                                  f"must be multiples of 4")
            if c.piece_n % 4 or c.piece_m % 4:
                raise ConfigError(f"vec=4 fragment loads need thread-tile pieces of 4 (tm={c.tm}, tn={c.tn}); "
                                  f"use tm, tn multiples of 4")
            if not c.a_transposed:
                raise ConfigError("vec=4 fragment loads of A need a_transposed=True (a column of A is contiguous only "
                                  "in the transposed tile)")
            if c.as_shape[1] % 4 or c.bs_shape[1] % 4:
                raise ConfigError(f"vec=4 shared rows must stay 16-byte aligned: pad_a={c.pad_a} and pad_b={c.pad_b} "
                                  f"must be multiples of 4")
        if c.unaligned_rows and c.vec != 4:
            raise ConfigError(f"unaligned_rows: the per-float path of unaligned rows replaces the float4 copies' "
                              f"edge path; vec={c.vec} has no float4 copies: use vec=4, or unaligned_rows=False")
        if c.hoist_head and c.stages != 2:
            raise ConfigError(f"hoist_head: moves the two-stage loop's head (stages=2) to the k-tile before; "
                              f"stages={c.stages} has no such head: use stages=2, or hoist_head=False")
        if c.edge_clamp and (c.vec != 4 or not c.stages):
            raise ConfigError(f"edge_clamp: the clamped sources let an M / N edge tile take the interior's float4 "
                              f"copies into shared memory; vec={c.vec}, stages={c.stages} has none: use vec=4 with "
                              f"stages >= 1, or edge_clamp=False")
        if c.unaligned_vectors and (not c.edge_clamp or c.unaligned_rows):
            raise ConfigError(f"unaligned_vectors: each vector's floats load unchecked only in a tile whose M / N edge is "
                              f"clamped, and the float copies (unaligned_rows) replace them: it needs edge_clamp=True and "
                              f"unaligned_rows=False (got edge_clamp={c.edge_clamp}, unaligned_rows={c.unaligned_rows})")
        if c.last_col and (c.stages != 2 or not c.frag_regs or c.vec != 4 or c.batched
                           or c.threads % c.bm or c.bk % c.last_col_groups):
            raise ConfigError(f"last_col: the last column is summed beside the two-stage loop's k-tiles (stages=2, "
                              f"frag_regs, vec=4, not batched) by threads / BM threads a row, each every (threads / "
                              f"BM)-th k: threads={c.threads} must be a multiple of bm={c.bm}, and bk={c.bk} "
                              f"of their ratio (got stages={c.stages}, frag_regs={c.frag_regs}, vec={c.vec}, "
                              f"batched={c.batched}); or last_col=False")
        if c.c_staged and (not c.float4_epilogue or c.last_col or 4 * c.c_stage_floats > c.smem_bytes):
            raise ConfigError(f"c_staged: C's rows go through the tiles' shared memory (BM / TM = {c.bm // c.tm} rows "
                              f"of BN + pad = {c.bn + c.c_stage_pad} floats: {c.c_stage_floats} floats, the tiles have "
                              f"{c.smem_bytes // 4}) from the float4 epilogue's groups (vec=4, "
                              f"pieces of 4 columns), not beside last_col (its column's sums share that memory); got "
                              f"vec={c.vec}, piece_n={c.piece_n}, last_col={c.last_col}, stages={c.stages}; or "
                              f"c_staged=False")
        mr = c.max_registers
        if mr:
            why = ("not a multiple of 8 (the SM allocates registers 8 a thread at a time)" if mr % 8 else
                   f"below {MIN_REGISTER_CAP} (ptxas spills in most of the space there)" if mr < MIN_REGISTER_CAP else
                   f"above {MAX_REGISTERS_PER_THREAD - 7} (a thread has at most {MAX_REGISTERS_PER_THREAD})"
                   if mr >= MAX_REGISTERS_PER_THREAD else
                   f"beside min_blocks={c.min_blocks} (two caps: use one or the other)" if c.min_blocks > 1 else "")
            if why:
                raise ConfigError(f"max_registers={mr}: {why}; or max_registers=0 (ptxas's own choice)")
        if c.smem_bytes > MAX_SMEM_PER_BLOCK:
            raise ConfigError(f"shared memory {c.smem_bytes} bytes exceeds the {MAX_SMEM_PER_BLOCK} bytes a block may "
                              f"have (227 KB, opt-in above 48 KB); reduce bk, the block tile or stages")
        # ---- registers (issue 8): whatever validation accepts must compile for sm_90
        # without spills, on both backends.  ptxas's allocation cannot be computed here;
        # these rules come from compiling a broad sample of the space (both backends,
        # sm_90) and refuse every spilling config found there, while keeping the presets,
        # the default kernel and the autotuner's spill-free configs but its block tiles
        # 128x256 and 256x128 at bk=16 (246-255 registers, spilling in some warp layouts).
        mb, t = c.min_blocks, c.threads
        if mb * t > 2048:  # threads an sm_90 SM runs (min_blocks applies on sm_90 only)
            raise ConfigError(f"min_blocks={mb}: {mb} blocks of {t} threads are {mb * t} threads, more than the 2048 "
                              f"an SM runs; ptxas cannot honour the hint: lower min_blocks")
        cap = c.register_cap()
        if mb > 1 and cap < MIN_REGISTER_CAP:
            raise ConfigError(f"min_blocks={mb}: {mb} blocks of {t} threads cap registers at {cap} a thread; below "
                              f"{MIN_REGISTER_CAP} ptxas spills in most of the space: lower min_blocks or use fewer threads")
        copies = c.a_loads_per_thread + c.b_loads_per_thread if c.stages else 0
        if c.vec == 1 and copies > MAX_COPIES_PER_THREAD:
            raise ConfigError(f"global->shared copy: {copies} scalar loads per thread per k-tile (A and B together), "
                              f"more than {MAX_COPIES_PER_THREAD}; ptxas spills their addresses: use vec=4, more "
                              f"threads or a smaller bk")
        regs = c.register_estimate()
        if regs > cap:
            why = (f"{t} threads x min_blocks={mb} leave {cap} a thread" if cap < MAX_REGISTERS_PER_THREAD
                   else f"a thread can have {cap}")
            raise ConfigError(f"registers: this kernel needs about {regs} registers a thread ({c.tm}x{c.tn} "
                              f"accumulators, fragments, {copies} global->shared copies, staging: register_estimate) "
                              f"but {why}: ptxas would spill; use a smaller thread tile, a smaller bk, vec=4, "
                              f"fewer threads or a lower min_blocks")
