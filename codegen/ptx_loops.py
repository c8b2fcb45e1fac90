"""The PTX kernel's k-loops and epilogue (a mixin of emit_ptx._Kernel): stages 1 and 2 over
shared memory, stages 0 straight from global memory, and C = alpha * acc + beta * C."""
from __future__ import annotations

from typing import Dict, Optional

from . import mapping as mp
from .emit_cuda import ktile_schedule
from .expr import c_expr
from .plan import ThreadVars
from .ptx_builder import ZERO as _ZERO, _addr, _r, _split

TV_SYM = ThreadVars.symbolic()


class LoopsMixin:
    # -- the loops
    def loop_stages1(self) -> None:
        b, cfg = self.b, self.cfg
        _, body, _ = ktile_schedule(cfg)
        kt, k0 = self.named("kt"), self.named("k0")
        b.emit(f"mov.u32 {kt}, 0;")
        top = b.label("ktile")
        b.place(top)
        b.emit(f"mul.lo.s32 {k0}, {kt}, {cfg.bk};")
        self.load_tile(k0)
        self.store_tile(None)
        b.emit("bar.sync 0;")
        self.steps(body, self.frag_pointers(None))
        b.emit("bar.sync 0;")
        b.emit(f"add.s32 {kt}, {kt}, 1;")
        more = self.setp("lt", kt, self.k_tiles)
        b.emit(f"@{more} bra.uni {top};")

    def loop_stages2(self) -> None:
        """Two shared stages: tile kt+1 travels global -> registers while tile kt is
        computed, then lands in the other stage; one barrier per k-tile (the CUDA C
        template's loop, statement for statement)."""
        b, cfg = self.b, self.cfg
        preload, body, tail = ktile_schedule(cfg)
        b.comment("tile 0 -> stage 0")
        zero = b.op("mov.b32", 0)
        self.load_tile(zero)
        self.store_tile(None)
        b.emit("bar.sync 0;")
        if preload:
            self.steps(preload, self.frag_pointers(None))
        kt, k0 = self.named("kt"), self.named("k0")
        cur, nxt = self.named("cur_off"), self.named("next_off")
        b.emit(f"mov.u32 {kt}, 0;")
        top = b.label("ktile")
        b.place(top)
        b.emit(f"and.b32 {cur}, {kt}, 1;")
        b.emit(f"mul.lo.s32 {cur}, {cur}, {self.stage_bytes};", "stage of tile kt")
        b.emit(f"xor.b32 {nxt}, {cur}, {self.stage_bytes};", "stage of tile kt + 1")
        b.emit(f"add.s32 {k0}, {kt}, 1;")
        has_next = self.named("has_next", ".pred")
        b.emit(f"setp.lt.s32 {has_next}, {k0}, {self.k_tiles};")
        b.emit(f"mul.lo.s32 {k0}, {k0}, {cfg.bk};")
        skip = b.label("no_load")
        b.emit(f"@!{has_next} bra.uni {skip};")
        self.load_tile(k0)
        b.place(skip)
        self.steps(body, self.frag_pointers(cur))
        skip = b.label("no_store")
        b.emit(f"@!{has_next} bra.uni {skip};")
        self.store_tile(nxt)
        b.place(skip)
        b.emit("bar.sync 0;")
        if tail:
            skip = b.label("no_preload")
            b.emit(f"@!{has_next} bra.uni {skip};")
            self.steps(preload, self.frag_pointers(nxt))
            b.place(skip)
            self.steps(tail, {})
        b.emit(f"add.s32 {kt}, {kt}, 1;")
        b.emit(f"@{has_next} bra.uni {top};")

    def loop_stages0(self) -> None:
        """stages=0: one k at a time, operands straight from global memory (emit_cuda's
        _naive_kstep): A fragment i = A[block_m + row_i][k] if that row is inside M,
        B fragment j = B[k][block_n + col_j] if that column is inside N."""
        b, cfg, r = self.b, self.cfg, self.plan.regs
        a_rows, b_cols = [], []
        # an operand whose K runs along its lines starts at its row (col) and steps ld
        # floats a k; the other starts at the row's (col's) line and steps one float
        a_line, b_line = self.k_in_line("A"), self.k_in_line("B")
        for i in range(cfg.tm):
            grow = b.op("add.s32", self.block_m, self._reg(mp.tile_row(cfg, self.tv.row0, i)))
            ok = self.setp("lt", grow, self.p["M"])
            ptr = self.named(f"a_ptr{i}", ".b64")
            at = self.wide_addr(self.p["Ag"], grow) if a_line else self.wide_addr(self.p["Ag"], grow, self.p["lda"])
            b.emit(f"mov.b64 {ptr}, {at};")
            a_rows.append((ok, ptr))
        for j in range(cfg.tn):
            gcol = b.op("add.s32", self.block_n, self._reg(mp.tile_col(cfg, self.tv.col0, j)))
            ok = self.setp("lt", gcol, self.p["N"])
            ptr = self.named(f"b_ptr{j}", ".b64")
            at = self.wide_addr(self.p["Bg"], gcol) if b_line else self.wide_addr(self.p["Bg"], gcol, self.p["ldb"])
            b.emit(f"mov.b64 {ptr}, {at};")
            b_cols.append((ok, ptr))
        b.memo = None
        step = b.op("mul.wide.s32", self.p["ldb"], 4, typ=".b64") if b_line else 4
        a_step = b.op("mul.wide.s32", self.p["lda"], 4, typ=".b64") if a_line else 4
        k = self.named("k")
        b.emit(f"mov.u32 {k}, 0;")
        top = b.label("k")
        b.place(top)
        for i, (ok, ptr) in enumerate(a_rows):
            reg = _r(r.frag_a[0][i])
            b.emit(f"mov.f32 {reg}, {_ZERO};")
            b.emit(f"@{ok} ld.global.nc.f32 {reg}, [{ptr}];")
            b.emit(f"add.s64 {ptr}, {ptr}, {a_step};")
        for j, (ok, ptr) in enumerate(b_cols):
            reg = _r(r.frag_b[0][j])
            b.emit(f"mov.f32 {reg}, {_ZERO};")
            b.emit(f"@{ok} ld.global.nc.f32 {reg}, [{ptr}];")
            b.emit(f"add.s64 {ptr}, {ptr}, {step};")
        self.ffmas(0)
        b.emit(f"add.s32 {k}, {k}, 1;")
        more = self.setp("lt", k, self.p["K"])
        b.emit(f"@{more} bra.uni {top};")

    # -- epilogue
    def epilogue(self) -> None:
        """C = alpha * acc + beta * C, as emit_cuda's _epilogue: rows outside M skipped,
        columns outside N untouched, C read only when beta != 0; float4 where a
        4-column piece is inside N and C's rows are 16-byte aligned."""
        b, cfg, r = self.b, self.cfg, self.plan.regs
        vec_store = cfg.vec == 4 and cfg.piece_n % 4 == 0
        step = 4 if vec_store else 1
        alpha, beta = self.p["alpha"], self.p["beta"]
        beta_nz = self.named("beta_nz", ".pred")
        b.emit(f"setp.neu.f32 {beta_nz}, {beta}, {_ZERO};")
        c_vec_ok = self.vec_ok("C", "ldc") if vec_store else None
        o = [self.named(f"o{e}", ".f32") for e in range(step)]
        cv = [self.named(f"cv{e}", ".f32") for e in range(step)]
        for i in range(cfg.tm):
            row = mp.tile_row(cfg, self.tv.row0, i)
            b.comment(f"row {i}: block_m + {c_expr(mp.tile_row(cfg, TV_SYM.row0, i))}")
            grow = b.op("add.s32", self.block_m, self._reg(row))
            skip_row = b.label(f"row{i}_done")
            out = self.setp("ge", grow, self.p["M"])
            b.emit(f"@{out} bra {skip_row};")
            crow = self.wide_addr(self.p["Cg"], grow, self.p["ldc"], self.block_n)
            col_addr: Dict[Optional[str], str] = {}
            for j in range(0, cfg.tn, step):
                col = mp.tile_col(cfg, self.tv.col0, j)
                creg, cc = _split(col)
                if creg not in col_addr:
                    col_addr[creg] = crow if creg is None else b.op(
                        "add.s64", crow, b.op("mul.wide.s32", creg, 4, typ=".b64"), typ=".b64")
                at = col_addr[creg]
                gcol = b.op("add.s32", self.block_n, self._reg(col))
                accs = [_r(a) for a in r.acc[i][j:j + step]]
                if step == 1:
                    self._store_scalar(accs[0], at, 4 * cc, gcol, beta_nz, o[0], cv[0])
                    continue
                scalar, done = b.label("c_scalar"), b.label("c_done")
                last = b.op("add.s32", gcol, 3)
                pv = self.setp("lt", last, self.p["N"], c_vec_ok)
                b.emit(f"@!{pv} bra {scalar};")
                for x in cv:
                    b.emit(f"mov.f32 {x}, {_ZERO};")
                b.emit(f"@{beta_nz} ld.global.v4.f32 {{{', '.join(cv)}}}, {_addr(at, 4 * cc)};")
                for e in range(4):
                    b.emit(f"mul.f32 {cv[e]}, {beta}, {cv[e]};")
                    b.emit(f"fma.rn.f32 {o[e]}, {alpha}, {accs[e]}, {cv[e]};")
                b.emit(f"st.global.v4.f32 {_addr(at, 4 * cc)}, {{{', '.join(o)}}};")
                b.emit(f"bra {done};")
                b.place(scalar)
                for e in range(4):
                    ge = gcol if e == 0 else b.op("add.s32", gcol, e)
                    self._store_scalar(accs[e], at, 4 * (cc + e), ge, beta_nz, o[0], cv[0])
                b.place(done)
            b.place(skip_row)

    def _store_scalar(self, acc: str, at: str, imm: int, gcol: str, beta_nz: str, o: str, cv: str) -> None:
        b = self.b
        inside = self.setp("lt", gcol, self.p["N"])
        read = b.op("and.pred", inside, beta_nz, typ=".pred")
        b.emit(f"mov.f32 {cv}, {_ZERO};")
        b.emit(f"@{read} ld.global.f32 {cv}, {_addr(at, imm)};")
        b.emit(f"@{read} mul.f32 {cv}, {self.p['beta']}, {cv};")
        b.emit(f"fma.rn.f32 {o}, {self.p['alpha']}, {acc}, {cv};")
        b.emit(f"@{inside} st.global.f32 {_addr(at, imm)}, {o};")
