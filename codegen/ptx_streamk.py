"""Stream-K in the PTX renderer (a mixin of emit_ptx._Kernel): the program's WorkItems step
(codegen/program.py) - the work-list kernel's item loop, the fix-up of split tiles through
partial slots and flags (codegen/streamk.py)."""
from __future__ import annotations

from . import streamk
from .ptx_builder import _addr, _r


class StreamKMixin:
    # -- stream-K: the block runs its items of the work list (codegen/streamk.py)
    def _WorkItems(self, step) -> None:
        """for w in starts[b] .. starts[b+1]-1: item (tile, kt_begin, kt_end, slot, first,
        count) -> the one-pass kernel's tile setup, k loop and epilogue on A, B and K narrowed
        to the item's K range.  Every piece of a split tile (count > 0: its later pieces' slots
        are first .. first+count-1) adds its children's sums in the fix-up tree (gather); a later
        piece (slot >= 0) then stores its accumulators to its slot and raises the slot's flag,
        and the first piece (slot -1, the last item of its block) writes C (codegen/streamk.py)."""
        cfg, b = self.cfg, self.b
        b.memo = None  # a loop: nothing computed inside is reused across items
        w, w_end = self.named("item"), self.named("item_end")
        at = b.op("add.s64", self.p["startsg"], b.op("mul.wide.u32", b.op("mov.u32", "%ctaid.x"), 4, typ=".b64"),
                  typ=".b64")
        b.emit(f"ld.global.nc.u32 {w}, [{at}];", "this block's items: starts[b] .. starts[b+1]-1")
        b.emit(f"ld.global.nc.u32 {w_end}, [{at}+4];")
        self.leader = self.setp("eq", self.tid, 0)  # thread 0: raises a later piece's flag
        top, done = b.label("item"), b.label("items_done")
        b.place(top)
        last = self.setp("ge", w, w_end)
        b.emit(f"@{last} bra.uni {done};")
        tile, kt0, kt1, slot, first, count = (self.named(x) for x in (
            "item_tile", "item_kt0", "item_kt1", "item_slot", "item_first", "item_count"))
        at = b.op("add.s64", self.p["itemsg"], b.op("mul.wide.u32", w, streamk.ITEM_BYTES, typ=".b64"), typ=".b64")
        b.emit(f"ld.global.nc.v4.u32 {{{tile}, {kt0}, {kt1}, {slot}}}, [{at}];",
               "(tile_m << 16 | tile_n, kt_begin, kt_end, slot)")
        b.emit(f"ld.global.nc.v2.u32 {{{first}, {count}}}, [{at}+16];", "the split tile's slots: first, count")
        b.emit(f"shr.u32 {self.block_m}, {tile}, 16;")
        b.emit(f"mul.lo.s32 {self.block_m}, {self.block_m}, {cfg.bm};")
        b.emit(f"and.b32 {self.block_n}, {tile}, 65535;")
        b.emit(f"mul.lo.s32 {self.block_n}, {self.block_n}, {cfg.bn};")
        k_first = b.op("mul.lo.s32", kt0, cfg.bk)
        k_end = b.op("min.s32", b.op("mul.lo.s32", kt1, cfg.bk), self.p["K"])
        full = dict(self.p)
        self.p["K"] = self.named("item_K")
        b.emit(f"sub.s32 {self.p['K']}, {k_end}, {k_first};", "K of this item's range")
        self.p["Ag"] = self.named("item_A", ".b64")
        b.emit(f"add.s64 {self.p['Ag']}, {full['Ag']}, {self.k_offset('A', k_first)};",
               "A moved to " + ("row" if self.k_in_line("A") else "column") + " kt_begin * BK")
        self.p["Bg"] = self.named("item_B", ".b64")
        boff = self.k_offset("B", k_first)
        b.emit(f"add.s64 {self.p['Bg']}, {full['Bg']}, {boff};",
               "B moved to " + ("row" if self.k_in_line("B") else "column") + " kt_begin * BK")
        self.k_tiles = self.named("k_tiles")
        b.emit(f"sub.s32 {self.k_tiles}, {kt1}, {kt0};")
        self.zero_accumulators()
        self.tile_setup()
        self.render(step.steps)
        self.p = full
        if cfg.last_col:
            self.last_col_gather()
        stored = b.label("item_stored")
        self.finish_item(step, slot, first, count, stored)
        b.place(stored)
        b.emit("bar.sync 0;", "every warp is done with shared memory before the next item's first tile lands")
        b.emit(f"add.s32 {w}, {w}, 1;")
        b.emit(f"bra.uni {top};")
        b.place(done)
        b.emit("ret;")

    def finish_item(self, step, slot: str, first: str, count: str, stored: str) -> None:
        """An item's end, past its k loop: a whole tile (count 0) takes the epilogue; a split tile's
        piece runs its part of the fix-up tree (gather: one call site for the first piece, piece 0,
        and the later ones, piece slot - first + 1, so the tree's code is laid out once), then the
        first piece takes the epilogue and a later one stores its sums to its slot and raises the
        slot's flag; then on to `stored`."""
        b = self.b
        partial, direct = b.label("partial"), b.label("direct")
        none = self.setp("eq", count, 0)
        b.emit(f"@{none} bra.uni {direct};", "a whole tile: no fix-up")
        part = self.setp("ge", slot, 0)
        b.comment("a split tile's piece: 0 for the first (slot -1), slot - first + 1 for a later one")
        self.gather(b.op("max.s32", b.op("sub.s32", b.op("add.s32", slot, 1), first), 0), first, count)
        b.emit(f"@{part} bra.uni {partial};")
        b.place(direct)
        b.comment("a whole tile (or a split one, summed): C = alpha * acc + beta * C")
        self.epilogue(step.epilogue)
        b.emit(f"bra.uni {stored};")
        b.place(partial)
        b.comment("a later piece of a split tile: its subtree's sums to partial slot `slot` (BM x BN, "
                  "thread-major) and its flag")
        self.epilogue_partial(slot)
        b.emit("bar.sync 0;", "every thread's partial stored ...")
        flag = self.flag_address(slot)
        b.emit(f"@{self.leader} fence.acq_rel.gpu;", "... and visible GPU-wide before the flag")
        b.emit(f"@{self.leader} st.relaxed.gpu.global.u32 [{flag}], 1;")

    def flag_address(self, slot: str) -> str:
        b = self.b
        return b.op("add.s64", self.p["flagsg"], b.op("mul.wide.u32", slot, 4, typ=".b64"), typ=".b64")

    def gather(self, index: str, first: str, count: str) -> None:
        """Piece `index` of a split tile's fix-up tree (codegen/streamk.py: streamk.fixup_children is
        the rule in Python, FIXUP_FANOUT the fan-out F; the tile's later pieces are in slots first ..
        first + count - 1, piece i in slot first + i - 1).  At stride s = 1, F, F^2, ... while index is a multiple of s * F: threads t < F - 1
        wait (acquire) for the flag of child index + (t + 1) s where that is <= count, and lower it
        for the next launch (nothing writes that slot again in this one); then every thread adds
        the children's slots, in order, to its accumulators (a loop: unrolled, ptxas would hold
        their loads at once, 210-219 registers for two)."""
        b, fan = self.b, streamk.FIXUP_FANOUT
        assert fan > 1 and fan & (fan - 1) == 0, f"FIXUP_FANOUT={fan}: the level test masks, a power of two"
        stride, child, j = self.named("fix_stride"), self.named("fix_child"), self.named("fix_j")
        b.emit(f"mov.u32 {stride}, 1;")
        top, done, waited, add = b.label("fix_level"), b.label("fix_done"), b.label("fix_waited"), b.label("fix_add")
        b.place(top)
        mask = b.op("sub.s32", b.op("mul.lo.s32", stride, fan), 1)
        b.emit(f"@{self.setp('ne', b.op('and.b32', index, mask), 0)} bra.uni {done};",
               "not a multiple of stride * F: its sums go up the tree")
        b.emit(f"add.s32 {child}, {index}, {stride};")
        b.emit(f"@{self.setp('gt', child, count)} bra.uni {done};", "no child here (nor higher up)")
        mine = b.op("mad.lo.s32", b.op("add.s32", self.tid, 1), stride, index)  # thread t's child: index + (t+1) s
        b.emit(f"@!{self.setp('lt', self.tid, fan - 1)} bra {waited};")
        b.emit(f"@{self.setp('gt', mine, count)} bra {waited};")
        got, flag, spin = self.named("fix_flag"), self.flag_address(b.op("sub.s32", b.op("add.s32", first, mine), 1)), \
            b.label("spin")
        b.place(spin)
        b.emit(f"ld.acquire.gpu.global.u32 {got}, [{flag}];")
        b.emit(f"@{self.setp('eq', got, 0)} bra {spin};")
        b.emit(f"st.relaxed.gpu.global.u32 [{flag}], 0;", "lowered for the next launch")
        b.place(waited)
        b.emit("bar.sync 0;", "this level's children's sums are in memory")
        b.emit("fence.acq_rel.gpu;")
        b.emit(f"mov.u32 {j}, 1;")
        b.place(add)
        self.add_slot(b.op("sub.s32", b.op("add.s32", first, child), 1))
        b.emit(f"add.s32 {child}, {child}, {stride};")
        b.emit(f"add.s32 {j}, {j}, 1;")
        more = self.setp("lt", j, fan)
        b.emit(f"@{self.setp('le', child, count, combine=more)} bra.uni {add};")
        b.emit(f"mul.lo.s32 {stride}, {stride}, {fan};")
        b.emit(f"bra.uni {top};")
        b.place(done)

    def add_slot(self, slot: str) -> None:
        """Partial slot `slot`'s values of this thread's tile (slot_addresses; with last_col, its
        column's sums) added to the accumulators."""
        b, r = self.b, self.plan.regs
        tmp = self.named("fix_v", ".f32")
        for i, j, at in self.slot_addresses(slot):
            b.emit(f"ld.global.cg.f32 {tmp}, {at};")
            b.emit(f"add.rn.f32 {_r(r.acc[i][j])}, {_r(r.acc[i][j])}, {tmp};")
        if self.cfg.last_col:
            self.last_col_add(slot)

    def slot_base(self, slot: str) -> str:
        """The 64-bit address of partial slot `slot` (streamk.slot_floats floats a slot)."""
        cfg, b = self.cfg, self.b
        size = 4 * streamk.slot_floats(cfg.bm, cfg.bn, cfg.last_col)
        return b.op("add.s64", self.p["partialsg"], b.op("mul.wide.u32", slot, size, typ=".b64"), typ=".b64")

    def slot_addresses(self, slot: str):
        """(i, j, address operand) of accumulator (i, j) in partial slot `slot`: BM x BN floats
        laid out thread-major, element (i, j) of thread t at (i * TN + j) * threads + t.  Every
        piece of a tile runs the same thread mapping, so only the layout's consistency matters;
        thread-major makes each warp's store (and the fix-up's load) of one accumulator 32
        consecutive floats, four full sectors, where the tile's row-major layout spread a warp
        over sixteen (measured: the scalar partial stores held 5% of the ranges kernel's warp
        samples in lg_throttle at 4097^3).  One 64-bit address, constant offsets."""
        cfg, b = self.cfg, self.b
        base = b.op("add.s64", self.slot_base(slot), b.op("mul.wide.u32", self.tid, 4, typ=".b64"), typ=".b64")
        for i in range(cfg.tm):
            for j in range(cfg.tn):
                yield i, j, _addr(base, 4 * (i * cfg.tn + j) * cfg.threads)

    def epilogue_partial(self, slot: str) -> None:
        """acc -> partial slot `slot` (slot_addresses: no bounds, the slot holds the whole
        tile, every thread's whole thread tile).  One float a store: a
        vector store would pin four accumulators into an aligned quad, which the SASS
        pass must keep free to rename (the one-pass epilogue stores fma results)."""
        for i, j, at in self.slot_addresses(slot):
            self.b.emit(f"st.global.f32 {at}, {_r(self.plan.regs.acc[i][j])};")
        if self.cfg.last_col:
            self.last_col_partial(slot)
