"""The PTX kernel's copies of operands whose rows are not 16-byte aligned (config.unaligned_rows;
a mixin of emit_ptx._Kernel).

Without it, rows that are not 16-byte aligned (lda or ldb % 4 != 0, or a pointer off 16 bytes)
fail the interior tile's test on every k-tile, so every tile - interior or not - takes the edge
tiles' per-float path: per float an index add, a predicate and a zero before its predicated
load, and per copy a row test, all inside the k-loop (issue 20: 255x257x65537 at 0.79x cuBLAS,
docs/shapes.md "Unaligned rows").

With it, a k-tile inside K on unaligned rows takes each float with no guard at all:
`ld.global.nc.f32 reg, [src + koff + 4e]`, the addresses of the aligned path.  What makes
that safe is done once a tile (copy_setup, clamped_source): each copy's source is the
element of its block coordinate (A's row, B's column) clamped to the matrix's last one, so a copy outside M or N
reads inside the matrix; the floats it loads reach only C's rows and columns outside the
matrix, which are never stored.  Along K nothing is clamped: the path runs only where the
k-tile is inside K.  A vector along the block dimension (B's row, or A^T's) that starts
inside and runs past N (M) reads on into the next row, which exists below row K - 1: so
such an operand's edge tiles take the path only for k-tiles before the last one of the
range (k0 + BK < K), and only where N (M) >= 4 (ld >= 4: the vector's 3 floats past the
bound stay before the next row's end).  Everything else - the last k-tile of an edge tile,
the K edge, aligned rows - takes the paths of before.
"""
from __future__ import annotations

from .ptx_builder import _addr, _r


class UnalignedLoadsMixin:
    def _vectors_across_lines(self, operand: str) -> bool:
        """Does the operand's vector run along the block dimension (B, A^T: K is its line)?"""
        return self.k_in_line(operand)

    def clamped_source(self, operand: str, at, ld: str, src: str) -> str:
        """A copy's source at k = 0 clamped into the matrix: the address of its block coordinate
        (A's row, B's column; `at` in the operand's dims order) at most the last one, the other
        coordinate kept.  Addresses grow with either coordinate (ld > 0), so the 64-bit min of
        the two is that element.  (A 32-bit min of the coordinate with bound - 1 becomes a
        VIADDMNMX, which the SASS pass does not rename.)  The guards keep the coordinates."""
        b = self.b
        last = [x if dim.origin == "k0" else b.op("add.s32", self.p[dim.bound], -1)
                for dim, x in zip(self.prog.dims[operand], at)]
        line, off = self.element(operand, *last)
        limit = self.wide_addr(self.p[operand + "g"], line, ld, off)
        return b.op("min.u64", src, limit, typ=".b64")

    def unaligned_setup(self) -> None:
        """Once a kernel: unal_ok[op], the operand's rows are not aligned (and where its
        vectors run along the block dimension, that dimension is >= 4)."""
        b = self.b
        self.unal_ok = {}
        for op in ("A", "B"):
            vec_ok = self.vec_ok_pred[op]
            if self._vectors_across_lines(op):
                self.unal_ok[op] = self.setp("ge", self._limits(op)[1], 4, f"!{vec_ok}")
            else:
                self.unal_ok[op] = b.op("not.pred", vec_ok, typ=".pred")

    def unaligned_tile_setup(self, ends) -> None:
        """Once a tile: for an operand whose vectors run along the block dimension, whether
        the tile is inside that dimension (no vector runs past the bound: the last k-tile too
        may take the unchecked path)."""
        self.unal_inside = {}
        for op, (d, end) in ends.items():
            if self._vectors_across_lines(op):
                self.unal_inside[op] = self.setp("le", end, self.p[d.bound], self.unal_ok[op])

    def _load_unaligned(self, operand: str, copies, ptrs, kend: str, kbound: str, done: str) -> None:
        """Unaligned rows, k-tile inside K: every float of every copy, unchecked; else on to
        the edge paths that follow."""
        b = self.b
        guarded = b.label(f"{operand.lower()}_edge_guarded")
        if self._vectors_across_lines(operand):
            before_last = self.setp("lt", kend, self.p[kbound], self.unal_ok[operand])
            inside = self.setp("le", kend, self.p[kbound], self.unal_inside[operand])
            go = b.op("or.pred", before_last, inside, typ=".pred")
        else:
            go = self.setp("le", kend, self.p[kbound], self.unal_ok[operand])
        b.emit(f"@!{go} bra.uni {guarded};", f"{operand}: rows not 16-byte aligned, k-tile inside K: each float, "
                                              f"unchecked (sources clamped into the matrix)")
        for (copy, r, *_), ptr in zip(copies, ptrs):
            for e, reg in enumerate(copy.regs):
                b.emit(f"ld.global.nc.f32 {_r(reg)}, {_addr(ptr, 4 * e)};",
                       f"{copy.operand} copy {r}, element {e}" if copy.width > 1 else f"{copy.operand} copy {r}")
        b.emit(f"bra.uni {done};")
        b.place(guarded)
