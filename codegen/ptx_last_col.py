"""C's last column fused into the last tile column (config.last_col; a mixin of emit_ptx._Kernel).

The kernel's N parameter is C's columns less one: its tiles cover columns 0 .. N-1, and C's
column N is summed by the blocks whose tile ends at or past N (block-uniform: `is_last`), from
the A tile those blocks already hold in shared memory.  Per k-tile, threads 0 .. BK-1 load B's
column N at their k (a float each, zero past K or outside the last tile column) with the tile's
other copies and store it beside the stage (mapping.xs_index).  Thread t sums row r = t % BM of
the column over k-slices g, g + G, g + 2G, ... of each tile (g = t / BM, G = threads / BM:
config.last_col_groups), reading As through mapping.as_index, the index function of the
fragment loads; the sums of tile kt run first in its turn of the two-stage loop (the program's
ColumnSums step), before the next tile's copies fill their staging registers.  After the k-loop the G sums of a row meet in shared memory (g = 0 adds the
others in g order: the same bits on every run), and thread g = 0 stores C[block_m + r, N] as
the epilogue stores C.  Stream-K: a later piece stores its sum beside its slot's tile (slot
floats BM x BN + BM, codegen/streamk.slot_floats), and each piece of the fix-up tree adds its
children's sums with their tiles' (ptx_streamk.add_slot).

Why: an N of BN * q + 1 otherwise runs q + 1 tile columns, the last one column wide, every FFMA
of its tiles but one column's padding (255x257x65537 in 128x64 tiles: a fifth of the work).
"""
from __future__ import annotations

from . import mapping as mp
from .ptx_builder import ZERO as _ZERO, _addr


class LastColMixin:
    # Nothing of the last column lives across the k-loop but its sum, the copied float and
    # is_last: every address is computed where it is used, from tid (kept live, the row, group
    # and shared addresses took the 128x64 8x8 member from 159 to 196 registers).
    def last_col_kernel_setup(self) -> None:
        """Once a kernel: the float registers, and the k-slice step between a thread's sums (As
        through the fragment loads' index function: affine in (m, k), checked over the tile)."""
        cfg = self.cfg
        groups = cfg.last_col_groups
        step = mp.as_index(cfg, 0, groups) - mp.as_index(cfg, 0, 0)
        assert all(mp.as_index(cfg, m, k + groups) - mp.as_index(cfg, m, k) == step
                   for m in range(cfg.bm) for k in range(cfg.bk - groups)), "As is not affine in k"
        self.x_step = (4 * step, 4 * groups)  # bytes between a thread's k-slices: As, B's column
        self.xv, self.xa, self.xb = (self.named(x, ".f32") for x in ("x_copy", "x_a", "x_b"))

    def _x_row_group(self):
        """(row r = tid % BM, group g = tid / BM) of this thread's sums (BM a power of two or not)."""
        b, cfg = self.b, self.cfg
        return b.op("rem.u32", self.tid, cfg.bm), b.op("div.u32", self.tid, cfg.bm)

    def _x_smem(self, index, stage_off) -> str:
        """The shared address of a stage's float at `index` (a PVal or int of mapping's functions)."""
        b = self.b
        at = b.op("add.s32", self.smem, b.op("shl.b32", self._reg(index), 2))
        return at if stage_off is None else b.op("add.s32", at, stage_off)

    def last_col_tile_setup(self) -> None:
        """Per tile (per work item): is this block's tile the last tile column."""
        b = self.b
        self.is_last = self.named("x_is_last", ".pred")
        end = b.op("add.s32", self.block_n, self.cfg.bn)
        b.emit(f"setp.ge.s32 {self.is_last}, {end}, {self.p['N']};", "the tile ends at or past N: column N is ours")

    def last_col_zero(self) -> None:
        """The sum of column N (with the accumulators: before the setup in a one-pass kernel)."""
        self.xacc = self.named("x_acc", ".f32")
        self.b.emit(f"mov.f32 {self.xacc}, {_ZERO};")

    def last_col_load(self, k0: str) -> None:
        """Threads 0 .. BK-1: their float of B's last column for the k-tile at k0 (zero past K or
        outside the last tile column).  Predicated, not branched past: with a block-uniform
        branch around the copy and its store, the 128x64 8x8 member ran 255x257x65537 in 322.7 us
        against 249.2 (H100, 2026-11-27, 2cfe86a against fc4ba71, lab/experiments/last_col_ab.py)."""
        b, cfg = self.b, self.cfg
        k = b.op("add.s32", k0, self.tid)
        inside = self.setp("lt", k, self.p["K"], self.is_last)
        inside = self.setp("lt", self.tid, cfg.bk, inside, typ=".u32")
        b.emit(f"mov.f32 {self.xv}, {_ZERO};")
        b.emit(f"@{inside} ld.global.nc.f32 {self.xv}, [{self.source_at('B', k, self.p['N'])}];",
               "B's last column at k0 + tid")

    def last_col_store(self, stage_off) -> None:
        b, cfg = self.b, self.cfg
        mine = self.setp("lt", self.tid, cfg.bk, typ=".u32")
        at = self._x_smem(mp.xs_index(cfg, self.v(self.tid)), stage_off)
        b.emit(f"@{mine} st.shared.f32 [{at}], {self.xv};", "B's last column beside the stage")

    def last_col_fmas(self, stage_off) -> None:
        """The k-tile's sums of row r over this thread's k-slices (last tile column only)."""
        cfg, b = self.cfg, self.b
        skip = b.label("x_no_fmas")
        b.emit(f"@!{self.is_last} bra.uni {skip};")
        r, g = self._x_row_group()
        a0 = self._x_smem(mp.as_index(cfg, self.v(r), self.v(g)), stage_off)
        x0 = self._x_smem(mp.xs_index(cfg, self.v(g)), stage_off)
        for j in range(cfg.last_col_slices):
            b.emit(f"ld.shared.f32 {self.xa}, {_addr(a0, j * self.x_step[0])};")
            b.emit(f"ld.shared.f32 {self.xb}, {_addr(x0, j * self.x_step[1])};")
            b.emit(f"fma.rn.f32 {self.xacc}, {self.xa}, {self.xb}, {self.xacc};")
        b.place(skip)

    def last_col_gather(self) -> None:
        """After the k-loop: the G sums of each row meet in shared memory (stage 0's As, free
        once every warp has passed the barrier below); group 0 adds the others in group order."""
        cfg, b = self.cfg, self.b
        groups = cfg.last_col_groups
        if groups == 1:
            return
        skip = b.label("x_gathered")
        b.emit(f"@!{self.is_last} bra.uni {skip};")
        b.emit("bar.sync 0;", "every warp is done with the stages")
        r, g = self._x_row_group()
        first = self.setp("eq", g, 0, typ=".u32")
        at = b.op("add.s32", self.smem, b.op("shl.b32", b.op("mad.lo.s32", g, cfg.bm, r), 2))
        b.emit(f"@!{first} st.shared.f32 [{at}], {self.xacc};", "groups 1.. put their sums down")
        b.emit("bar.sync 0;")
        for gg in range(1, groups):
            b.emit(f"@{first} ld.shared.f32 {self.xa}, [{at}+{4 * gg * cfg.bm}];")
            b.emit(f"@{first} add.rn.f32 {self.xacc}, {self.xacc}, {self.xa};", f"group {gg}")
        b.emit("bar.sync 0;", "the sums are read before shared memory is written again")
        b.place(skip)

    def _x_mine(self):
        """(row r, predicate: group 0 of the last tile column) of this thread's sum of column N."""
        r, g = self._x_row_group()
        return r, self.setp("eq", g, 0, self.is_last, typ=".u32")

    def last_col_epilogue(self) -> None:
        """C[block_m + r, N] = alpha * x_acc + beta * C (C read only when beta != 0), by group 0
        of the last tile column, rows inside M."""
        b = self.b
        r, mine = self._x_mine()
        row = b.op("add.s32", self.block_m, r)
        ok = self.setp("lt", row, self.p["M"], mine)
        at = self.wide_addr(self.p["Cg"], row, self.p["ldc"], self.p["N"])
        beta_nz = self.setp("neu", self.p["beta"], _ZERO, typ=".f32")
        read = b.op("and.pred", ok, beta_nz, typ=".pred")
        o, cv = self.named("x_o", ".f32"), self.named("x_cv", ".f32")
        b.comment("C's last column (config.last_col)")
        b.emit(f"mov.f32 {cv}, {_ZERO};")
        b.emit(f"@{read} ld.global.f32 {cv}, [{at}];")
        b.emit(f"mul.f32 {cv}, {self.p['beta']}, {cv};")
        b.emit(f"fma.rn.f32 {o}, {self.p['alpha']}, {self.xacc}, {cv};")
        b.emit(f"@{ok} st.global.f32 [{at}], {o};")

    def _x_slot(self, slot: str, r: str) -> str:
        """The address of row r's sum of column N in partial slot `slot` (after the slot's BM x BN
        tile: streamk.slot_floats)."""
        b, cfg = self.b, self.cfg
        base = self.slot_base(slot)
        off = b.op("mul.wide.u32", b.op("add.s32", r, cfg.bm * cfg.bn), 4, typ=".b64")
        return b.op("add.s64", base, off, typ=".b64")

    def last_col_partial(self, slot: str) -> None:
        r, mine = self._x_mine()
        self.b.emit(f"@{mine} st.global.f32 [{self._x_slot(slot, r)}], {self.xacc};",
                    "column N's sum beside the slot's tile")

    def last_col_add(self, slot: str) -> None:
        b = self.b
        r, mine = self._x_mine()
        b.emit(f"@{mine} ld.global.cg.f32 {self.xa}, [{self._x_slot(slot, r)}];")
        b.emit(f"@{mine} add.rn.f32 {self.xacc}, {self.xacc}, {self.xa};", "column N, in K order")
