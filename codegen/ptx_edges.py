"""The PTX kernel's edge tiles (a mixin of emit_ptx._Kernel): the bounds-checked global loads -
each copy's float4 where the whole vector is inside and aligned, else each float; with
edge_vector_path (config.py) the block-uniform split into a float4 path and a per-float path,
so that no load's registers are written again behind it - and, with edge_clamp, the sources
clamped into the matrix that let an M / N edge tile skip them (clamp_setup; a tile across a ragged
vector bound on every k-tile but its last), with unaligned_vectors the unchecked floats of unaligned
rows inside K."""
from __future__ import annotations

from typing import Optional

from .plan import GlobalCopy
from .program import OperandLoads
from .ptx_builder import ZERO as _ZERO, _addr, _r


class EdgeLoadsMixin:
    def clamp_setup(self, op: str, dim, end: str) -> str:
        """config.edge_clamp, once a tile (emit_ptx.tile_setup): the limit of the operand's copies'
        block coordinate (clamp_lim, read by copy_setup), whether the tile's block dimension is
        inside (block_ok, read by floats_setup; None: every tile) or inside on k-tiles that end
        before line K - 1 (spaced: ld >= 4, read by tile_setup's loose guards), and the interior-tile
        predicate it returns.  Along lines (A's rows, B^T's columns) a copy past the bound reads line
        bound - 1, so every tile with aligned rows is inside.
        Along the vectors (B's columns, A^T's rows) a vector past the bound reads the last one
        holding a float inside, at (bound - 1) & ~3 (16-byte aligned where the rows are).  Where
        the bound is a multiple of 4 or the tile ends within it, no vector read straddles the
        bound and the tile is inside.  Else the last vector of each line reads up to 3 floats
        past the bound: they reach only C's columns (A^T: rows) past it, never stored, and they
        lie inside the operand's memory on every line but the last where ld >= 4 (the next line
        starts within 3 floats) - so such a tile is inside on k-tiles that end before line K - 1
        (k_test's second test), and only its last k-tile takes the checked copies.  (Before, it
        took them on every k-tile: 4-13% of the kernel's time, session 27.)  Across the k-loop this
        costs predicates, no general register: the tests compare with K itself (a k_lim register
        live across the loop added up to 10 registers to some members, session 28)."""
        b = self.b
        bound = self.p[dim.bound]
        if not self.k_in_line(op):  # the block dimension runs along lines
            self.clamp_lim[op] = b.op("add.s32", bound, -1)
            self.block_ok[op] = None  # every tile
            return self.vec_ok_pred[op]
        self.clamp_lim[op] = b.op("and.b32", b.op("add.s32", bound, -1), -4)
        whole = self.setp("eq", b.op("and.b32", bound, 3), 0)
        self.block_ok[op] = b.op("or.pred", self.setp("le", end, bound), whole, typ=".pred")
        self.spaced[op] = self.setp("ge", self.ld(op), 4)
        return b.op("and.pred", self.block_ok[op], self.vec_ok_pred[op], typ=".pred")

    def k_test(self, kend: str, strict: str, loose: Optional[str]) -> str:
        """The interior paths' predicate of a k-tile ending at kend: inside K and `strict` (tile_setup's
        tile_ok, floats_ok or both_ok), or - with `loose`, the same guard where a tile straddles a vector bound
        (clamp_setup) - before line K - 1 and `loose` (`strict` None: that test alone)."""
        if strict is None:
            return self.setp("lt", kend, self.p["K"], loose)
        full = self.setp("le", kend, self.p["K"], strict)
        if loose is None:
            return full
        return self.b.op("or.pred", full, self.setp("lt", kend, self.p["K"], loose), typ=".pred")

    def floats_setup(self, op: str) -> None:
        """unaligned_vectors, once a tile (after clamp_setup): floats_ok, the predicate that the operand's
        rows are not 16-byte aligned and its block dimension is clamped (block_ok), so that a
        k-tile inside K loads its vectors' floats unchecked (ptx_tile_loads.load_float4_or_edge); and
        floats_loose, its form for k-tiles that end before line K - 1 where a tile may straddle a vector
        bound (rows not aligned, ld >= 4: clamp_setup's spaced), else None."""
        b = self.b
        unaligned = b.op("not.pred", self.vec_ok_pred[op], typ=".pred")
        ok, spaced = self.block_ok[op], self.spaced.get(op)
        self.floats_ok[op] = unaligned if ok is None else b.op("and.pred", ok, unaligned, typ=".pred")
        self.floats_loose[op] = None if spaced is None else b.op("and.pred", unaligned, spaced, typ=".pred")

    def _load_unaligned_unchecked(self, loads: OperandLoads, copies, ptrs, done: str) -> None:
        """edge_clamp, rows not 16-byte aligned, a k-tile inside K whose block dimension is
        clamped (floats_setup; ptx_tile_loads.load_float4_or_edge branches here): each vector's
        four floats unchecked, into the registers the float4 would fill, then a branch to `done`.
        The floats and where they land are the float4's: nothing else changes."""
        b = self.b
        operand = loads.operand
        for (copy, r, *_), ptr in zip(copies, ptrs):
            for e, reg in enumerate(copy.regs):
                b.emit(f"ld.global.nc.f32 {_r(reg)}, {_addr(ptr, 4 * e)};", f"{operand} copy {r}, element {e}")
        b.emit(f"bra.uni {done};")

    def _limits(self, operand: str):
        """(line limit, offset limit) of the operand's layout: the bounds of its copies."""
        return self.element(operand, *(self.p[d.bound] for d in self.prog.dims[operand]))

    def _load_edge_split_paths(self, operand: str, copies, ptrs, k0: str, done: str) -> None:
        """An edge tile's copies with edge_vector_path (config.py): where the operand's rows are
        aligned and its extent along the vectors is a multiple of 4 (block-uniform), every
        vector is wholly inside or wholly outside: zeros, then the float4 where inside; else
        each float (zero, then its load).  No load's registers are written again behind it,
        so nothing waits for a load before the shared-memory store."""
        b = self.b
        scalar = b.label(f"{operand.lower()}_edge_floats")
        rlim, clim = self._limits(operand)
        whole = self.setp("eq", b.op("and.b32", clim, 3), 0, self.vec_ok_pred[operand])
        b.emit(f"@!{whole} bra.uni {scalar};", f"{operand}: vectors wholly inside or outside: float4 or zeros")
        for (copy, r, grow, gcol, _, _), ptr in zip(copies, ptrs):
            rowv, colv = self._edge_coords(copy, grow, gcol, k0)
            regs = [_r(x) for x in copy.regs]
            last = b.op("add.s32", colv, copy.width - 1)
            pv = self.setp("lt", last, clim, self.setp("lt", rowv, rlim))
            for reg in regs:
                b.emit(f"mov.f32 {reg}, {_ZERO};")
            b.emit(f"@{pv} ld.global.nc.v4.f32 {{{', '.join(regs)}}}, [{ptr}];",
                   f"{copy.operand} copy {r}: vector inside")
        b.emit(f"bra.uni {done};")
        b.place(scalar)
        for (copy, r, grow, gcol, _, _), ptr in zip(copies, ptrs):
            self._load_scalars(copy, r, grow, gcol, ptr, k0, None)

    def _edge_coords(self, copy: GlobalCopy, grow: str, gcol: str, k0: str):
        """(line, offset) of a copy's first float at k-tile k0 (k0 moves the one K runs along)."""
        if self.k_in_line(copy.operand):
            return self.b.op("add.s32", k0, grow), gcol
        return grow, self.b.op("add.s32", k0, gcol)

    def _load_scalars(self, copy: GlobalCopy, r: int, grow: str, gcol: str, ptr: str, k0: str,
                      vec_ok: Optional[str]) -> None:
        """One copy with bounds checks: the float4 when the whole vector is inside and
        aligned (vec_ok given), else each float, zero outside the matrix."""
        b = self.b
        # grow, gcol: the copy's (line, offset) at k = 0; k0 moves the one K runs along.
        # Plain layouts: A (block_m + row < M) && (k0 + col + e < K), B (k0 + row < K) &&
        # (block_n + col + e < N); the vector runs along the offset.
        rlim, clim = self._limits(copy.operand)
        rowv, colv = self._edge_coords(copy, grow, gcol, k0)
        row_ok = self.setp("lt", rowv, rlim)
        regs = [_r(x) for x in copy.regs]
        pv = None
        if vec_ok is not None and copy.width > 1:
            last = b.op("add.s32", colv, copy.width - 1)
            pv = self.setp("lt", last, clim, b.op("and.pred", row_ok, vec_ok, typ=".pred"))
            b.emit(f"@{pv} ld.global.nc.v4.f32 {{{', '.join(regs)}}}, [{ptr}];",
                   f"{copy.operand} copy {r}: whole vector inside, aligned")
        # the per-float path: only where the vector load did not run
        scalar_ok = row_ok if pv is None else self.setp("lt", rowv, rlim, f"!{pv}")
        for e, reg in enumerate(regs):
            ce = colv if e == 0 else b.op("add.s32", colv, e)
            pe = self.setp("lt", ce, clim, scalar_ok)
            b.emit(f"mov.f32 {reg}, {_ZERO};" if pv is None else f"@!{pv} mov.f32 {reg}, {_ZERO};")
            b.emit(f"@{pe} ld.global.nc.f32 {reg}, {_addr(ptr, 4 * e)};",
                   f"{copy.operand} copy {r}, element {e}" if copy.width > 1 else f"{copy.operand} copy {r}")
