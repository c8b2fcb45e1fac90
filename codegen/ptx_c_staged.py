"""C's unaligned rows stored through shared memory (config.c_staged; a mixin of emit_ptx._Kernel).

Where C's rows are not 16-byte aligned (ldc % 4 != 0, or C off 16 bytes) the float4 epilogue
stores every float alone, and a warp's store then writes 32 floats spread over its thread tiles'
rows and columns, a few bytes to each of many sectors: the same kernel ran 3000x3000x64 in 78.0 us
with ldc = N + 1 against 47.1 with ldc = N (H100, lab/experiments/c_store_probe.py).

This path runs instead, chosen at run time by the block's C test (uniform over the block, so its
barriers are met by every thread).  For each accumulator row i of the thread tile:
- every thread writes alpha x its row to its staging row in shared memory (mapping.c_stage_slot /
  c_stage_offset, float4 stores of fresh registers: storing the accumulators themselves as float4s
  would pin them in aligned register quads, which the SASS pass cannot rename);
- after a barrier, BN / TN consecutive threads read each staging row back (mapping.c_stage_element)
  and store it to C's row c_stage_row, beta x C added where beta != 0: a warp writes runs of BN / TN
  consecutive columns of C's rows, and a thread's floats are immediates from one address;
- a barrier frees the staging rows for the next pass.
The tiles' shared memory holds the staging rows (tile_config validates the size), so a barrier
first lets every warp finish its last k-tile.
"""
from __future__ import annotations

from . import mapping as mp
from .ptx_builder import ZERO as _ZERO, _addr, _r, _split


class CStagedMixin:
    def c_staged_epilogue(self, e, beta_nz: str) -> None:
        """The epilogue `e` (program.Epilogue, target C) through the staging rows; beta_nz: beta != 0."""
        b, cfg = self.b, self.cfg
        alpha, beta = self.p["alpha"], self.p["beta"]
        b.emit("bar.sync 0;", "C staged: every warp is done with the tiles' shared memory")
        reg, c = _split(mp.c_stage_offset(cfg, mp.c_stage_slot(cfg, self.tv.tid), self.tv.col0))
        write = b.op("add.s32", self.smem, b.op("shl.b32", reg, 2)) if reg else self.smem
        # the floats this thread stores: one staging row, columns `step` apart (mapping.c_stage_element)
        slot, col = mp.c_stage_element(cfg, self.tv.tid, 0)
        step = mp.c_stage_element(cfg, 0, 1)[1]
        sreg, sc = _split(mp.c_stage_offset(cfg, slot, col))
        read = b.op("add.s32", self.smem, b.op("shl.b32", sreg, 2)) if sreg else self.smem
        gcol = b.op("add.s32", self.block_n, self._reg(col))
        cols_left = b.op("sub.s32", self.p["N"], gcol)
        v, cv, o = self.named("cs_v", ".f32"), self.named("cs_c", ".f32"), self.named("cs_o", ".f32")
        scaled = [self.named(f"cs_a{x}", ".f32") for x in range(4)]
        for row in e.rows:
            b.comment(f"C staged, pass {row.i}: accumulator row {row.i} of every thread to its staging row")
            for g in row.groups:  # alpha * acc into fresh registers: a vector store of the accumulators themselves
                # would pin each four into an aligned quad, which the SASS pass cannot rename (its main loop's FFMAs
                # went from 4.1% to 16.9% in register-bank conflict on 128x256)
                for x, a in zip(scaled, g.accs):
                    b.emit(f"mul.f32 {x}, {alpha}, {_r(a)};")
                off = 4 * (c + mp.tile_col(cfg, 0, g.j))
                b.emit(f"st.shared.v4.f32 {_addr(write, off)}, {{{', '.join(scaled)}}};")
            b.emit("bar.sync 0;")
            grow = b.op("add.s32", self.block_m, self._reg(mp.c_stage_row(cfg, slot, row.i)))
            row_in = self.setp("lt", grow, self.p["M"])
            at = self.wide_addr(self.p["Cg"], grow, self.p["ldc"], gcol)
            for q in range(cfg.tn):
                b.emit(f"ld.shared.f32 {v}, {_addr(read, 4 * (sc + q * step))};")
                inside = self.setp("gt", cols_left, q * step, row_in)
                read_c = b.op("and.pred", inside, beta_nz, typ=".pred")
                b.emit(f"mov.f32 {cv}, {_ZERO};")
                b.emit(f"@{read_c} ld.global.f32 {cv}, {_addr(at, 4 * q * step)};")
                b.emit(f"fma.rn.f32 {o}, {beta}, {cv}, {v};", "alpha * acc + beta * C (C read only where beta != 0)")
                b.emit(f"@{inside} st.global.f32 {_addr(at, 4 * q * step)}, {o};")
            b.emit("bar.sync 0;", "the staging rows are free for the next pass")
