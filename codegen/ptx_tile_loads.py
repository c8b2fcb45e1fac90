"""A k-tile's global loads in the PTX renderer (a mixin of emit_ptx._Kernel): the program's load
guards spelled as tests and branches, and the unchecked float4 path they lead to.

"tile" guard, per operand: where the k-tile is inside K and the operand's whole tile inside the
matrix with 16-byte aligned rows (block-uniform: tile_setup's tile_ok) - or, for a tile across a
ragged vector bound, where the k-tile ends before line K - 1 (tile_loose; ptx_edges.clamp_setup,
k_test) - every copy is one float4, unchecked; else the checked loads of an edge tile (ptx_edges.py).  Where both operands take that
guard (and no unaligned rows' path), one test and one branch cover both (both_float4): one operand
at a time, each branch waited 11-13 cycles on its predicate (PLOP3 -> BRA, sm_90) every k-tile.
With unaligned_vectors a k-tile inside K on unaligned rows branches first to each vector's floats
(ptx_edges._load_unaligned_unchecked).  "element" guard: each float, checked."""
from __future__ import annotations

from typing import Tuple

from .program import OperandLoads
from .ptx_builder import _r


class TileLoadsMixin:
    def load_tile(self, k0: str, operands: Tuple[OperandLoads, ...]) -> None:
        """Global -> staging registers for one k-tile at k0, as the program's guards say:
        "tile", the unchecked float4 loads when the whole tile of the operand is inside the
        matrix with aligned rows (block-uniform), else each vector, then each float (or the
        split paths, ptx_edges.py); "element", each float.  Where both operands take the
        "tile" guard (and no unaligned rows' path), one test and one branch take both to
        their float4 loads (both_float4)."""
        b = self.b
        a_koff, b_koff = self.k_offset("A", k0), self.k_offset("B", k0)
        tiled = []
        for loads, koff in zip(operands, (a_koff, b_koff)):
            operand = loads.operand
            copies = [c for c in self.copies if c[0].operand == operand]
            if not copies:
                continue
            if loads.floats:
                self._load_tile_with_floats(loads, copies, koff, k0)
                continue
            ptrs = [b.op("add.s64", src, koff, typ=".b64") for _, _, _, _, src, _ in copies]
            if loads.guard == "element":
                for (copy, r, grow, gcol, _, _), ptr in zip(copies, ptrs):
                    self._load_scalars(copy, r, grow, gcol, ptr, k0, None)
                continue
            tiled.append((loads, copies, ptrs))
        if len(tiled) == 2 and (self.both_ok or self.both_loose):
            self.both_float4(k0, tiled)
        else:
            for loads, copies, ptrs in tiled:
                self.float4_or_edge(k0, loads, copies, ptrs)
        if self.cfg.last_col:
            self.last_col_load(k0)

    def float4_or_edge(self, k0: str, loads: OperandLoads, copies, ptrs, loose: bool = True) -> None:
        """One operand's k-tile through load_float4_or_edge, its labels placed (loose: with the loose
        form of its float4 path's guard, tile_setup's tile_loose)."""
        b, operand = self.b, loads.operand
        edge, done = b.label(f"{operand.lower()}_edge"), b.label(f"{operand.lower()}_loaded")
        kend = b.op("add.s32", k0, loads.k_dim.extent)
        self.load_float4_or_edge(loads, copies, ptrs, k0, kend, edge, done, loose)
        b.place(done)

    def both_float4(self, k0: str, tiled) -> None:
        """Both operands' k-tile: where it is inside K and both tiles inside the matrix with
        aligned rows (tile_setup's both_ok; or, where a tile may straddle a vector bound, before
        line K - 1 with both_loose), every float4, unchecked, behind one test and one branch; else
        each operand's own paths (float4_or_edge).  One operand at a time, each
        branch waited 11-13 cycles on its predicate (PLOP3 -> BRA, sm_90), every k-tile."""
        b = self.b
        slow, done = b.label("ab_edge"), b.label("ab_loaded")
        kend = b.op("add.s32", k0, tiled[0][0].k_dim.extent)
        self.float4_loads(tiled, (self.both_ok, self.both_loose), kend, slow, done)
        b.place(slow)
        for loads, copies, ptrs in tiled:
            # the strict guards alone: with both_loose a tile with both operands' rows aligned is here on its last
            # k-tile only (the others took the float4s above; an interior tile then takes each operand's float4s
            # behind its own branch); with one operand's rows unaligned (no unaligned form), on every k-tile, where
            # a tile across a vector bound takes the checked copies as before session 28.  A loose guard more,
            # live across the k-loop, spilled sq-128x128 (128 registers)
            self.float4_or_edge(k0, loads, copies, ptrs, loose=False)
        b.place(done)

    def load_float4_or_edge(self, loads: OperandLoads, copies, ptrs, k0: str, kend: str, edge: str,
                            done: str, loose: bool = True) -> None:
        """The "tile" guard's two paths for one operand's k-tile ending at kend: the unchecked
        float4 loads, then a branch to `done`, when the whole tile is inside the matrix with
        aligned rows (block-uniform); else, from label `edge`, each vector, then each float (or
        the split paths, ptx_edges.py), falling through at the end.  With unaligned_vectors a
        k-tile inside K on unaligned rows whose block dimension is clamped branches first to
        its vectors' floats, unchecked (ptx_edges._load_unaligned_unchecked; the test: ptx_edges.k_test):
        both tests sit in
        one block, so ptxas issues them together rather than one behind the other's branch (the
        second test, behind the float4 path's branch, stalled 13 cycles on its predicate before
        its own branch on every k-tile of both operands, sm_90)."""
        b = self.b
        operand = loads.operand
        floats = self.floats_branch(operand, kend, "floats", "each vector's floats, unchecked")
        guard = (self.tile_ok[operand], self.tile_loose.get(operand) if loose else None)
        self.float4_loads([(loads, copies, ptrs)], guard, kend, edge, done)
        if floats is not None:
            b.place(floats)
            self._load_unaligned_unchecked(loads, copies, ptrs, done)
        b.place(edge)
        self.checked_loads(loads, copies, ptrs, k0, done)

    def floats_branch(self, operand: str, kend: str, stem: str, what: str):
        """With unaligned_vectors, the branch of the k-tile ending at kend to its vectors' floats, unchecked, where the
        operand's rows are not aligned and the tile is inside K and clamped (ptx_edges.k_test of floats_setup's
        guards): the label it branches to, named `stem`, to be placed with that path; None without the option."""
        if not self.prog.unaligned_vectors:
            return None
        label = self.b.label(f"{operand.lower()}_{stem}")
        unchecked = self.k_test(kend, self.floats_ok[operand], self.floats_loose[operand])
        self.b.emit(f"@{unchecked} bra.uni {label};", f"{operand}: rows not aligned, tile inside K and clamped: {what}")
        return label

    def float4_loads(self, tiled, inside, kend: str, edge: str, done: str) -> None:
        """The tile guard's test (ptx_edges.k_test of `inside`: tile_setup's (tile_ok, tile_loose) of
        one operand, or (both_ok, both_loose) of both), a branch to `edge` where it fails, else every copy of the
        operands in `tiled` ((loads, copies, ptrs) each) as a float4, unchecked, and a branch to `done`."""
        b = self.b
        names = " and ".join(loads.operand for loads, _, _ in tiled)
        full = self.k_test(kend, *inside)
        b.emit(f"@!{full} bra.uni {edge};", f"{names} tile{'s' if len(tiled) > 1 else ''} inside the matrix, "
                                            f"rows aligned: float4, unchecked")
        for loads, copies, ptrs in tiled:
            for (copy, r, *_), ptr in zip(copies, ptrs):
                b.emit(f"ld.global.nc.v4.f32 {{{', '.join(_r(x) for x in copy.regs)}}}, [{ptr}];",
                       f"{loads.operand} copy {r}")
        b.emit(f"bra.uni {done};")

    def checked_loads(self, loads: OperandLoads, copies, ptrs, k0: str, done: str) -> None:
        """An edge k-tile's loads of one operand: the split paths (ptx_edges.py, branching to
        `done`), else each vector where whole and aligned, then each float (falling through)."""
        if loads.split_paths:
            self._load_edge_split_paths(loads.operand, copies, ptrs, k0, done)
        else:
            for (copy, r, grow, gcol, _, _), ptr in zip(copies, ptrs):
                self._load_scalars(copy, r, grow, gcol, ptr, k0, self.vec_ok_pred[loads.operand])
