"""The PTX kernel's copies of operands whose rows are not 16-byte aligned (config.unaligned_rows;
a mixin of emit_ptx._Kernel).

Without it, rows that are not 16-byte aligned (lda or ldb % 4 != 0, or a pointer off 16 bytes)
fail the interior tile's test on every k-tile, so every tile - interior or not - takes the edge
tiles' per-float path: each thread's four floats of a vector, each with an index add, a
predicate and a zero before its predicated load, all inside the k-loop; and a warp's load of
float e of its vectors touches one sector a lane (16 rows of A a load for a 128x8 tile), four
loads for the same sectors (issue 20: 255x257x65537 at 0.79x cuBLAS, docs/shapes-history.md "Unaligned
rows").

With it, a k-tile inside K on unaligned rows takes the plan's float copies (plan.float_copies):
the same tile a float a copy, consecutive threads on consecutive floats of a line (as cuBLAS's
align-1 kernels copy), so a warp's load reads contiguous floats; one pointer a thread, stepped
line by line (a 64-bit step set up once a kernel), the offsets immediates; no guard where the
tile is inside its block dimension (M for A, N for B), else each float predicated on that
dimension alone (a float outside keeps what its register held: it reaches only C's rows or
columns outside the matrix, never stored).  The floats land in shared memory where the vector
copies put them, so the k-loop computes the same numbers (bit for bit).  Which copies the
staging registers hold is recorded in a predicate per operand (%a_floats / %b_floats), and the
tile store follows it.  The last k-tile of the K edge and aligned rows take the paths of before.
The cp.async ring (ptx_ring.py) copies the same floats by a 4-byte cp.async each, straight into
shared memory (no staging registers: there the predicate only picks the path).
"""
from __future__ import annotations

from typing import Optional

from .ptx_builder import _addr, _r


class UnalignedLoadsMixin:
    # ---- the float copies (plan.float_copies): consecutive threads on consecutive floats --------
    def float_setup(self) -> None:
        """Once a kernel, for each operand with float copies: whether its rows are unaligned, the
        distances of its floats from float 0 (_float_deltas), the 64-bit step of each distance
        in lines between consecutive floats (ld * 4 bytes a line), and the named predicate that
        records which copies the staging registers hold (the tile store follows it)."""
        b = self.b
        self.float_loads = tuple(loads for loads in self._operand_loads() if loads.floats)
        self.float_steps, self.float_pred, self.unal_ok, self.float_deltas = {}, {}, {}, {}
        for loads in self.float_loads:
            op = loads.operand
            self.unal_ok[op] = b.op("not.pred", self.vec_ok_pred[op], typ=".pred")
            self.float_deltas[op] = deltas = self._float_deltas(loads)
            steps = {}
            cur = 0
            for line, _, _, _ in deltas:
                if line != cur and line - cur not in steps:
                    steps[line - cur] = b.op("mul.wide.s32", self.ld(op), 4 * (line - cur), typ=".b64")
                cur = line
            self.float_steps[op] = steps
            self.float_pred[op] = self.named(f"{op.lower()}_floats", ".pred")

    def _operand_loads(self):
        """The OperandLoads of the program's first tile load (every LoadTile, and the ring's AsyncCopyTile, has the
        same)."""
        from . import program as pg
        from .program import walk
        for step in walk(self.prog.main):
            if isinstance(step, (pg.LoadTile, pg.AsyncCopyTile)):
                return step.operands
        return ()

    def _float_deltas(self, loads):
        """Per float j: (lines, offset, block-dimension distance, shared-memory floats) from float
        0, the same for every thread (plan.float_copies derived and checked them)."""
        out = []
        for f in loads.floats:
            line, off = self.element(loads.operand, *f.tile_delta)
            out.append((int(line), int(off), f.tile_delta[loads.block_axis], f.smem_delta))
        return out

    def _load_tile_with_floats(self, loads, copies, koff: str, k0: str) -> None:
        """load_tile for an operand with float copies: their path first where it applies (rows
        not aligned, k-tile inside K), else load_tile's float4 and edge paths."""
        b = self.b
        operand = loads.operand
        done = b.label(f"{operand.lower()}_loaded")
        kend = b.op("add.s32", k0, loads.k_dim.extent)
        setup = self.float_tiles[operand]
        label = self.load_floats(loads, kend)
        ptrs = [b.op("add.s64", src, koff, typ=".b64") for _, _, _, _, src, _ in copies]
        self.load_float4_or_edge(loads, copies, ptrs, k0, kend, b.label(f"{operand.lower()}_edge"), done)
        b.emit(f"bra.uni {done};")
        self.emit_float_path(loads, koff, setup, label, done)
        b.place(done)

    def float_tile_setup(self, loads) -> dict:
        """Once a tile, for an operand's float copies: the source of float 0 at k = 0, the room
        left along the block dimension (bound - float 0's block coordinate), whether the tile is
        inside that dimension, and float 0's shared-memory address."""
        b = self.b
        op = loads.operand
        first = loads.floats[0]
        at = [self._reg(x) for x in first.coords(self.tv)]
        dim, x = loads.dims[loads.block_axis], at[loads.block_axis]
        at[loads.block_axis] = g = b.op("add.s32", getattr(self, dim.origin), x)
        room = b.op("sub.s32", self.p[dim.bound], g)
        inside = self.setp("le", self.block_end(dim), self.p[dim.bound])
        src = self.source_at(op, *at)
        smem, imm = self.smem_address(first.stores[0])
        return {"src": src, "room": room, "inside": inside, "smem": smem, "imm": imm}

    def load_floats(self, loads, kend: str) -> str:
        """The float path's test (rows not aligned, k-tile inside K: recorded in the operand's
        float predicate) and its branch; returns the label of the path (emit_float_path)."""
        op = loads.operand
        pred = self.float_pred[op]
        self.b.emit(f"setp.le.and.s32 {pred}, {kend}, {self.p[loads.k_dim.bound]}, {self.unal_ok[op]};")
        label = self.b.label(f"{op.lower()}_floats")
        self.b.emit(f"@{pred} bra.uni {label};", f"{op}: rows not 16-byte aligned, k-tile inside K: a float a "
                                                 f"thread, consecutive threads on consecutive floats")
        return label

    def emit_float_path(self, loads, koff: str, setup: dict, label: str, done: str, ring: bool = False,
                        stage_off: Optional[str] = None) -> None:
        """Every float of the tile: one pointer stepped line by line, the offsets immediates; no
        guard inside the block dimension, else each float predicated on it (a float outside
        keeps what its register held: it reaches only C's rows or columns outside the matrix).
        With `ring` (the cp.async ring, ptx_ring.py) each float goes by a 4-byte cp.async straight into the stage at
        byte offset stage_off (None: stage 0) rather than into its staging register (a float outside leaves its
        shared word as it was: it reaches only the sums of C's rows or columns outside the matrix, which C never
        receives - a stream-K partial slot may hold them), and both paths end in a branch to `done`."""
        b = self.b
        op = loads.operand
        b.place(label)
        if ring:
            base = setup["smem"] if stage_off is None else b.op("add.s32", setup["smem"], stage_off)
        edge = b.label(f"{op.lower()}_{'ring_' if ring else ''}floats_edge")
        b.emit(f"@!{setup['inside']} bra.uni {edge};")
        for room in (None, setup["room"]):
            for f, ptr, off, dblock, ds in self.float_sources(loads, koff, setup):
                guard = "" if room is None else f"@{self.setp('gt', room, dblock)} "
                if ring:
                    b.emit(f"{guard}cp.async.ca.shared.global {_addr(base, setup['imm'] + 4 * ds)}, "
                           f"{_addr(ptr, 4 * off)}, 4;", f.stores[0].what)
                else:
                    b.emit(f"{guard}ld.global.nc.f32 {_r(f.regs[0])}, {_addr(ptr, 4 * off)};", f.stores[0].what)
            if room is None or ring:
                b.emit(f"bra.uni {done};")
            if room is None:
                b.place(edge)

    def float_sources(self, loads, koff: str, setup: dict):
        """(float copy, the 64-bit pointer of its line, offset, block-dimension distance, shared-memory distance) of
        each float of the k-tile at koff: one pointer stepped line by line (a serial IMAD.WIDE chain in the SASS).
        Measured (H200, session 36, docs/data/session36/e_bb6de22): every line's pointer from float 0's by one
        multiply-add, so that no load's address waits on another's, ran 0-5% slower on all 15 shapes (the chain's
        IMAD.WIDE with an immediate is one instruction a line; ptxas made the independent form two or three)."""
        b = self.b
        op = loads.operand
        ptr = b.op("add.s64", setup["src"], koff, typ=".b64")
        cur = 0
        for f, (line, off, dblock, ds) in zip(loads.floats, self.float_deltas[op]):
            if line != cur:
                ptr = b.op("add.s64", ptr, self.float_steps[op][line - cur], typ=".b64")
                cur = line
            yield f, ptr, off, dblock, ds

    def store_floats(self, op: str, floats, setup: dict, vector_stores, stage_off) -> None:
        """The operand's tile store: its float copies' stores where its last load took them,
        else `vector_stores` (the copies' own)."""
        b = self.b
        vec, end = b.label(f"{op.lower()}_st_vectors"), b.label(f"{op.lower()}_stored")
        b.emit(f"@!{self.float_pred[op]} bra.uni {vec};")
        base = setup["smem"] if stage_off is None else b.op("add.s32", setup["smem"], stage_off)
        for f, (_, _, _, ds) in zip(floats, self.float_deltas[op]):
            b.emit(f"st.shared.f32 {_addr(base, setup['imm'] + 4 * ds)}, {_r(f.regs[0])};", f.stores[0].what)
        b.emit(f"bra.uni {end};")
        b.place(vec)
        vector_stores()
        b.place(end)
