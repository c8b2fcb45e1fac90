"""C's unaligned rows stored through shared memory (config.c_staged; a mixin of emit_ptx._Kernel).

Where C's rows are not 16-byte aligned (ldc % 4 != 0, or C off 16 bytes) the float4 epilogue
stores every float alone, and a warp's store then writes 32 floats spread over its thread tiles'
rows and columns, a few bytes to each of many sectors: the same kernel ran 3000x3000x64 in 78.0 us
with ldc = N + 1 against 47.1 with ldc = N (H100, lab/experiments/c_store_probe.py).  This path
runs instead, chosen at run time by the block's C test (uniform over the block, so its barriers
are met by every thread): for each accumulator row i of the thread tile, every thread writes its
row to its staging row in shared memory (mapping.c_stage_slot / c_stage_offset, float4 stores),
and after a barrier the block reads the staging rows back with consecutive threads on consecutive
columns (mapping.c_stage_element) and stores each float to C's row c_stage_row: a warp writes 32
consecutive floats of one row.  The tiles' shared memory holds the staging rows (tile_config
validates the size); a barrier first lets every warp finish its last k-tile, and one after each
pass frees the rows for the next.
"""
from __future__ import annotations

from . import mapping as mp
from .ptx_builder import ZERO as _ZERO, _addr, _r, _split


def uniform_steps(cfg):
    """Per float q a thread stores from a pass: (its staging offset, its block-tile row) less those of
    its float 0, where the same for every thread and its column is its float 0's (so each float is an
    immediate away from float 0: mapping.c_stage_element, c_stage_offset and c_stage_origin evaluated for
    every thread); None where not (a block of fewer threads than BN columns)."""
    out = []
    for q in range(cfg.tn):
        deltas = set()
        for t in range(cfg.threads):
            s0, c0 = mp.c_stage_element(cfg, t, 0)
            s, c = mp.c_stage_element(cfg, t, q)
            if c != c0:
                return None
            deltas.add((mp.c_stage_offset(cfg, s, c) - mp.c_stage_offset(cfg, s0, c0),
                        mp.c_stage_origin(cfg, s) - mp.c_stage_origin(cfg, s0)))
        if len(deltas) != 1:
            return None
        out.append(deltas.pop())
    return out


class CStagedMixin:
    def c_staged_epilogue(self, e, beta_nz: str) -> None:
        """The epilogue `e` (program.Epilogue, target C) through the staging rows; beta_nz: beta != 0."""
        b, cfg = self.b, self.cfg
        alpha, beta = self.p["alpha"], self.p["beta"]
        b.emit("bar.sync 0;", "C staged: every warp is done with the tiles' shared memory")
        reg, c = _split(mp.c_stage_offset(cfg, mp.c_stage_slot(cfg, self.tv.tid), self.tv.col0))
        write = b.op("add.s32", self.smem, b.op("shl.b32", reg, 2)) if reg else self.smem
        steps = uniform_steps(cfg)
        if steps is not None:  # float q of every pass: immediates from float 0's addresses
            slot, col = mp.c_stage_element(cfg, self.tv.tid, 0)
            sreg, sc = _split(mp.c_stage_offset(cfg, slot, col))
            read0 = b.op("add.s32", self.smem, b.op("shl.b32", sreg, 2)) if sreg else self.smem
            grow0 = b.op("add.s32", self.block_m, self._reg(mp.c_stage_origin(cfg, slot)))
            gcol = b.op("add.s32", self.block_n, self._reg(col))
            rows_left = b.op("sub.s32", self.p["M"], grow0)
            col_in = self.setp("lt", gcol, self.p["N"])
            c0 = self.wide_addr(self.p["Cg"], grow0, self.p["ldc"], gcol)
        v, cv, o = self.named("cs_v", ".f32"), self.named("cs_c", ".f32"), self.named("cs_o", ".f32")
        for row in e.rows:
            b.comment(f"C staged, pass {row.i}: accumulator row {row.i} of every thread to its staging row")
            for g in row.groups:
                off = 4 * (c + mp.tile_col(cfg, 0, g.j))
                b.emit(f"st.shared.v4.f32 {_addr(write, off)}, {{{', '.join(_r(a) for a in g.accs)}}};")
            b.emit("bar.sync 0;")
            r_i = mp.tile_row(cfg, 0, row.i)
            for q in range(cfg.tn):
                if steps is not None:
                    d_smem, d_row = steps[q]
                    b.emit(f"ld.shared.f32 {v}, {_addr(read0, 4 * (sc + d_smem))};")
                    inside = self.setp("gt", rows_left, d_row + r_i, col_in)
                    at = b.op("mad.wide.s32", self.p["ldc"], 4 * (d_row + r_i), c0, typ=".b64")
                else:
                    slot, col = mp.c_stage_element(cfg, self.tv.tid, q)
                    sreg, sc = _split(mp.c_stage_offset(cfg, slot, col))
                    read = b.op("add.s32", self.smem, b.op("shl.b32", sreg, 2)) if sreg else self.smem
                    b.emit(f"ld.shared.f32 {v}, {_addr(read, 4 * sc)};")
                    grow = b.op("add.s32", self.block_m, self._reg(mp.c_stage_row(cfg, slot, row.i)))
                    gcol = b.op("add.s32", self.block_n, self._reg(col))
                    inside = self.setp("lt", grow, self.p["M"])
                    inside = self.setp("lt", gcol, self.p["N"], inside)
                    at = self.wide_addr(self.p["Cg"], grow, self.p["ldc"], gcol)
                read_c = b.op("and.pred", inside, beta_nz, typ=".pred")
                b.emit(f"mov.f32 {cv}, {_ZERO};")
                b.emit(f"@{read_c} ld.global.f32 {cv}, [{at}];")
                b.emit(f"@{read_c} mul.f32 {cv}, {beta}, {cv};")
                b.emit(f"fma.rn.f32 {o}, {alpha}, {v}, {cv};")
                b.emit(f"@{inside} st.global.f32 [{at}], {o};")
            b.emit("bar.sync 0;", "the staging rows are free for the next pass")
