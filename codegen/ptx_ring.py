"""The cp.async ring in the PTX renderer (a mixin of emit_ptx._Kernel): config stages 3 or 4,
program.main_loop's AsyncCopyTile / AsyncWait steps and its TileLoop over the ring.

Tile kt lives in stage kt mod S.  Before the loop tiles 0 .. S-2 are in flight; iteration kt
copies tile kt+S-1 into stage (kt-1) mod S (every warp was done with it at the barrier that
ended iteration kt-1), computes tile kt, waits for tile kt+1 (S-2 younger groups may stay in
flight), and after the barrier preloads tile kt+1's first fragments (program.crosses_tiles).
The copies go straight from global to shared memory: no staging registers.  On unaligned rows a k-tile inside the
matrix copies a float by a 4-byte cp.async: each vector's floats (config.unaligned_vectors) or the float copies
(config.unaligned_rows: consecutive threads on consecutive floats of a line, ptx_unaligned.float_sources).  Measured
slower than the two stages on the H100 where A's copy is transposed (NN, NT: a 4-byte cp.async a float;
docs/shapes-history.md, "The cp.async ring") and, on unaligned rows, no faster on the H200 (session 36).  In TN both
operands land untransposed: the 4x4 members run it there where K is long enough (operand_forms.for_ring, session 37,
H200)."""
from __future__ import annotations

from typing import Optional, Tuple

from . import program as pg
from .program import OperandLoads
from .ptx_builder import _addr


class RingMixin:
    # -- the program's steps
    def _AsyncCopyTile(self, s: pg.AsyncCopyTile) -> None:
        """Tile `ahead` (before the loop) or kt + `ahead` (in it) into its stage where that tile
        exists, then a commit group (empty past the last tile)."""
        b, cfg = self.b, self.cfg
        skip = b.label("no_copy")
        if s.from_kt:
            tile = b.op("add.s32", self.kt, s.ahead)
            there = self.setp("lt", tile, self.k_tiles)
            k0 = b.op("mul.lo.s32", tile, cfg.bk)
            stage = self.ring_ld
        else:  # the prologue: tile `ahead` -> stage `ahead`
            k0 = b.op("mov.b32", s.ahead * cfg.bk)
            there = self.setp("lt", b.op("mov.b32", s.ahead), self.k_tiles)
            stage = b.op("mov.b32", s.ahead * self.stage_bytes) if s.ahead else None
        b.emit(f"@!{there} bra.uni {skip};",
               f"k-tile {'kt + ' if s.from_kt else ''}{s.ahead} is past the last one: nothing to copy")
        self.async_copy_tile(k0, stage, s.operands)
        b.place(skip)
        b.emit("cp.async.commit_group;")

    def _AsyncWait(self, s: pg.AsyncWait) -> None:
        self.b.emit(f"cp.async.wait_group {s.pending};", f"this thread's copies of tile kt have landed "
                                                          f"({s.pending} younger groups may be in flight)")

    def ring_loop(self, s: pg.TileLoop) -> None:
        """while kt < k_tiles over the ring of s.stages stages: cur_off the stage of tile kt
        (stage "this"), next_off that of tile kt + 1 ("next"), ring_ld that of tile kt + S - 1,
        (kt - 1) mod S."""
        b, sb, n = self.b, self.stage_bytes, s.stages
        self.kt, self.cur_off, self.ring_ld = self.named("kt"), self.named("cur_off"), self.named("ring_ld")
        b.emit(f"mov.u32 {self.kt}, 0;")
        b.emit(f"mov.u32 {self.cur_off}, 0;", "stage of tile kt")
        top, done = b.label("ktile"), b.label("ktiles_done")
        b.place(top)
        more = self.setp("lt", self.kt, self.k_tiles)
        b.emit(f"@!{more} bra.uni {done};")
        wraps = self.setp("eq", self.cur_off, 0)
        b.emit(f"sub.s32 {self.ring_ld}, {self.cur_off}, {sb};")
        b.emit(f"selp.b32 {self.ring_ld}, {(n - 1) * sb}, {self.ring_ld}, {wraps};",
               f"stage of tile kt + {n - 1}: (kt - 1) mod {n}")
        self.next_off = self.named("ring_next")
        b.emit(f"add.s32 {self.next_off}, {self.cur_off}, {sb};")
        wraps = self.setp("eq", self.next_off, n * sb)
        b.emit(f"selp.b32 {self.next_off}, 0, {self.next_off}, {wraps};", "stage of tile kt + 1")
        self.has_next = self.named("has_next", ".pred")
        nxt = b.op("add.s32", self.kt, 1)
        b.emit(f"setp.lt.s32 {self.has_next}, {nxt}, {self.k_tiles};")
        self.render(s.steps)
        b.emit(f"mov.u32 {self.cur_off}, {self.next_off};")
        b.emit(f"add.s32 {self.kt}, {self.kt}, 1;")
        b.emit(f"bra.uni {top};")
        b.place(done)

    # -- the copies
    def async_copy_tile(self, k0: str, stage_off: Optional[str], operands: Tuple[OperandLoads, ...]) -> None:
        """The copies of the k-tile at k0 into the stage at byte offset stage_off (None: stage 0),
        straight from global memory: where the operand's whole tile is inside the matrix with
        aligned rows (block-uniform, as load_tile's "tile" guard), a 16-byte cp.async per copy
        whose store is one vector and a 4-byte one per float otherwise (A stored transposed);
        on unaligned rows inside K, a 4-byte one a float, unchecked (the float copies: emit_float_path; each
        vector's floats: _ring_unchecked); else every float by a 4-byte cp.async that reads nothing and writes zero
        outside the matrix (src-size 0, its source clamped to the operand's base)."""
        b = self.b
        for loads in operands:
            operand = loads.operand
            copies = [c for c in self.copies if c[0].operand == operand]
            if not copies:
                continue
            koff = self.k_offset(operand, k0)
            # the vector paths' sources, computed ahead of the float copies' branch below (an add a copy that path does
            # not use; the ring's texts stay those session 36's GPU tests ran)
            ptrs = [b.op("add.s64", src, koff, typ=".b64") for _, _, _, _, src, _ in copies]
            edge, done = b.label(f"{operand.lower()}_ring_edge"), b.label(f"{operand.lower()}_ring_copied")
            kend = b.op("add.s32", k0, loads.k_dim.extent)
            float_copies = bool(loads.floats)  # config.unaligned_rows (plan.float_copies; float_setup's float_tiles)
            if float_copies:
                # rows not aligned, k-tile inside K: the plan's float copies (consecutive threads on consecutive
                # floats of a line), a 4-byte cp.async each
                path = self.load_floats(loads, kend)
            # as load_float4_or_edge: both tests in one block, so that neither waits behind the other's branch
            floats = self.floats_branch(operand, kend, "ring_floats", "a 4-byte copy a float, unchecked")
            full = self.k_test(kend, self.tile_ok[operand], self.tile_loose.get(operand))
            b.emit(f"@!{full} bra.uni {edge};", f"{operand} tile inside the matrix, rows aligned: unchecked copies")
            self._ring_unchecked(operand, copies, ptrs, stage_off, whole=True)
            b.emit(f"bra.uni {done};")
            if floats is not None:
                b.place(floats)
                self._ring_unchecked(operand, copies, ptrs, stage_off, whole=False)
                b.emit(f"bra.uni {done};")
            if float_copies:
                self.emit_float_path(loads, koff, self.float_tiles[operand], path, done, ring=True, stage_off=stage_off)
            b.place(edge)
            rlim, clim = self._limits(operand)
            base = self.p["Ag" if operand == "A" else "Bg"]
            for (copy, r, grow, gcol, _, stores), ptr in zip(copies, ptrs):
                rowv, colv = self._edge_coords(copy, grow, gcol, k0)
                row_ok = self.setp("lt", rowv, rlim)
                for dst, imm, e0, width in self._ring_targets(copy, stores, stage_off):
                    for e in range(e0, e0 + width):
                        ce = colv if e == 0 else b.op("add.s32", colv, e)
                        inside = self.setp("lt", ce, clim, row_ok)
                        src = b.op("selp.b64", b.op("add.s64", ptr, 4 * e, typ=".b64") if e else ptr, base, inside,
                                   typ=".b64")
                        nbytes = b.op("selp.b32", 4, 0, inside)
                        b.emit(f"cp.async.ca.shared.global {_addr(dst, imm + 4 * (e - e0))}, [{src}], 4, {nbytes};",
                               f"{operand} copy {r}, float {e}: zero outside the matrix")
            b.place(done)

    def _ring_unchecked(self, operand: str, copies, ptrs, stage_off: Optional[str], whole: bool) -> None:
        """Every copy of an operand's tile inside the matrix, unchecked: with `whole` (rows aligned) a cp.async a store
        (16 bytes where the store is one vector), else a 4-byte one a float (cp.async needs only its size's alignment)."""
        for (copy, r, _, _, _, stores), ptr in zip(copies, ptrs):
            for dst, imm, e0, width in self._ring_targets(copy, stores, stage_off):
                if whole:
                    size = 4 * width
                    self.b.emit(f"cp.async.{'cg' if size == 16 else 'ca'}.shared.global {_addr(dst, imm)}, "
                                f"{_addr(ptr, 4 * e0)}, {size};", f"{operand} copy {r}" + (f", float {e0}" if width == 1 else ""))
                    continue
                for e in range(e0, e0 + width):
                    self.b.emit(f"cp.async.ca.shared.global {_addr(dst, imm + 4 * (e - e0))}, {_addr(ptr, 4 * e)}, 4;",
                                f"{operand} copy {r}, float {e}")

    def _ring_targets(self, copy, stores, stage_off: Optional[str]):
        """(shared address register, byte immediate, first float of the copy, floats) of each of
        the copy's stores in the stage at stage_off."""
        b = self.b
        out = []
        for access, base, imm in stores:
            dst = base if stage_off is None else b.op("add.s32", base, stage_off)
            first = list(copy.regs).index(access.regs[0])
            out.append((dst, imm, first, access.width))
        return out
