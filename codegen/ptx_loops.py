"""The PTX renderer's steps (a mixin of emit_ptx._Kernel): each step of the kernel program
(codegen/program.py) - the k-loops of stages 0, 1 and 2 (the cp.async ring's: ptx_ring.py), the
fragment loads and FFMAs of a k-slice, the shared-memory stores, and the epilogue C = alpha * acc +
beta * C - as PTX."""
from __future__ import annotations

from typing import Dict, Optional

from . import program as pg
from .expr import c_expr
from .plan import ThreadVars
from .ptx_builder import ZERO as _ZERO, _addr, _r, _split

TV_SYM = ThreadVars.symbolic()
FFMA = "fma.rn.f32"
# an IfNext's skip label, by what it guards
_SKIP = {pg.LoadTile: "no_load", pg.StoreTile: "no_store", pg.Compute: "no_preload"}


class LoopsMixin:
    def render(self, steps) -> None:
        for step in steps:
            getattr(self, "_" + type(step).__name__)(step)

    # -- leaves
    def _Comment(self, s: pg.Comment) -> None:
        self.b.comment(s.text)

    def _LoadFrags(self, s: pg.LoadFrags) -> None:
        self.slice_loads(s.loads, self._ptrs)

    def _Ffmas(self, s: pg.Ffmas) -> None:
        for c, a, b in s.ops:
            self.b.emit(f"{FFMA} {_r(c)}, {_r(a)}, {_r(b)}, {_r(c)};")

    def _LoadTile(self, s: pg.LoadTile) -> None:
        b = self.b
        if s.tile == "first":
            self.k0 = b.op("mov.b32", 0)
        elif s.tile == "this":
            b.emit(f"mul.lo.s32 {self.k0}, {self.kt}, {self.cfg.bk};")
        self.load_tile(self.k0, s.operands)  # "next": k0 is (kt + 1) * BK since the loop's top

    def _ColumnSums(self, s: pg.ColumnSums) -> None:
        self.last_col_fmas(self._stage_off(s.stage))

    def _StoreTile(self, s: pg.StoreTile) -> None:
        self.store_tile(self._stage_off(s.stage), s.floats)

    def _Barrier(self, s) -> None:
        self.b.emit("bar.sync 0;")

    # -- containers
    def _Scope(self, s: pg.Scope) -> None:
        self.render(s.steps)

    def _IfNext(self, s: pg.IfNext) -> None:
        b = self.b
        skip = b.label(_SKIP[type(s.steps[0])])
        b.emit(f"@!{self.has_next} bra.uni {skip};")
        self.render(s.steps)
        b.place(skip)

    def _Compute(self, s: pg.Compute) -> None:
        self._ptrs = self.frag_pointers(self._stage_off(s.stage))
        self.render(s.steps)
        self._ptrs = {}

    def _stage_off(self, stage: str) -> Optional[str]:
        """Byte offset register of a shared stage; None: stage 0 (the only one, or the first)."""
        return {"only": None, "first": None, "this": getattr(self, "cur_off", None),
                "next": getattr(self, "next_off", None)}[stage]

    def _Pipeline(self, s: pg.Pipeline) -> None:
        self.b.comment("tile 0 -> stage 0")
        self.render(s.steps)

    def _TileLoop(self, s: pg.TileLoop) -> None:
        b = self.b
        if s.stages >= 3:  # the cp.async ring (ptx_ring.py)
            self.ring_loop(s)
            return
        self.kt, self.k0 = self.named("kt"), self.named("k0")
        if s.stages == 2:
            self.cur_off, self.next_off = self.named("cur_off"), self.named("next_off")
        b.emit(f"mov.u32 {self.kt}, 0;")
        hoist = s.stages == 2 and self.cfg.hoist_head  # why: tile_config.hoist_head
        if s.stages == 2:
            self.has_next = self.named("has_next", ".pred")
        if hoist:
            self._loop_head()
        top = b.label("ktile")
        b.place(top)
        if s.stages == 2 and not hoist:
            self._loop_head()
        self.render(s.steps)
        b.emit(f"add.s32 {self.kt}, {self.kt}, 1;")
        if hoist:  # has_next is about to be recomputed for tile kt + 1
            more = self.named("more", ".pred")
            b.emit(f"mov.pred {more}, {self.has_next};")
            self._loop_head()
            b.emit(f"@{more} bra.uni {top};")
            return
        if s.stages == 2:
            b.emit(f"@{self.has_next} bra.uni {top};")
            return
        more = self.setp("lt", self.kt, self.k_tiles)
        b.emit(f"@{more} bra.uni {top};")

    def _loop_head(self) -> None:
        """The two-stage loop's per-tile values for tile kt: this stage's and the next one's byte
        offsets, k0 of tile kt + 1 and whether that tile exists."""
        b, cur, nxt, kt, k0 = self.b, self.cur_off, self.next_off, self.kt, self.k0
        b.emit(f"and.b32 {cur}, {kt}, 1;")
        b.emit(f"mul.lo.s32 {cur}, {cur}, {self.stage_bytes};", "stage of tile kt")
        b.emit(f"xor.b32 {nxt}, {cur}, {self.stage_bytes};", "stage of tile kt + 1")
        b.emit(f"add.s32 {k0}, {kt}, 1;")
        b.emit(f"setp.lt.s32 {self.has_next}, {k0}, {self.k_tiles};")
        b.emit(f"mul.lo.s32 {k0}, {k0}, {self.cfg.bk};")

    def _KLoop(self, s: pg.KLoop) -> None:
        """stages=0: one k at a time, operands straight from global memory: A fragment i =
        A[block_m + row_i][k] if that row is inside M, B fragment j = B[k][block_n + col_j] if
        that column is inside N; each operand's pointer advances a k."""
        b = self.b
        direct = [x for x in s.steps if isinstance(x, pg.DirectLoad)]
        # an operand whose K runs along its lines starts at its row (col) and steps ld
        # floats a k; the other starts at the row's (col's) line and steps one float
        line = {"A": self.k_in_line("A"), "B": self.k_in_line("B")}
        ptrs = []
        count = {"A": 0, "B": 0}
        for d in direct:
            lim, ld = ("Ag", "lda") if d.operand == "A" else ("Bg", "ldb")
            g = b.op("add.s32", getattr(self, d.block_dim.origin), self._reg(d.index(self.tv)))
            ok = self.setp("lt", g, self.p[d.block_dim.bound])
            ptr = self.named(f"{d.operand.lower()}_ptr{count[d.operand]}", ".b64")
            count[d.operand] += 1
            at = self.wide_addr(self.p[lim], g) if line[d.operand] else self.wide_addr(self.p[lim], g, self.p[ld])
            b.emit(f"mov.b64 {ptr}, {at};")
            ptrs.append((d, ok, ptr))
        b.memo = None
        step = {"B": b.op("mul.wide.s32", self.p["ldb"], 4, typ=".b64") if line["B"] else 4}
        step["A"] = b.op("mul.wide.s32", self.p["lda"], 4, typ=".b64") if line["A"] else 4
        k = self.named("k")
        b.emit(f"mov.u32 {k}, 0;")
        top = b.label("k")
        b.place(top)
        for d, ok, ptr in ptrs:
            reg = _r(d.reg)
            b.emit(f"mov.f32 {reg}, {_ZERO};")
            b.emit(f"@{ok} ld.global.nc.f32 {reg}, [{ptr}];")
            b.emit(f"add.s64 {ptr}, {ptr}, {step[d.operand]};")
        self.render([x for x in s.steps if not isinstance(x, pg.DirectLoad)])
        b.emit(f"add.s32 {k}, {k}, 1;")
        more = self.setp("lt", k, self.p["K"])
        b.emit(f"@{more} bra.uni {top};")

    # -- epilogue
    def epilogue(self, e: pg.Epilogue) -> None:
        """The program's epilogue (target C): per row, the row's skip when outside M; per
        group, the float4 where inside N and C's rows aligned, else each float (< N); C read
        only when beta != 0."""
        b = self.b
        assert e.target == "C", "the PTX backend stores to C only (split-K is refused in emit.py)"
        step = 4 if e.vector else 1
        alpha, beta = self.p["alpha"], self.p["beta"]
        beta_nz = self.named("beta_nz", ".pred")
        b.emit(f"setp.neu.f32 {beta_nz}, {beta}, {_ZERO};")
        c_vec_ok = self.vec_ok("C", "ldc") if e.vector else None
        o = [self.named(f"o{k}", ".f32") for k in range(step)]
        cv = [self.named(f"cv{k}", ".f32") for k in range(step)]
        stored = None
        if self.cfg.c_staged:  # C's rows tested once: unaligned ones through shared memory (ptx_c_staged.py)
            vector, stored = b.label("c_vector"), b.label("c_stored")
            b.emit(f"@{c_vec_ok} bra.uni {vector};")
            self.c_staged_epilogue(e, beta_nz)
            b.emit(f"bra.uni {stored};")
            b.place(vector)
        for row in e.rows:
            b.comment(f"row {row.i}: block_m + {c_expr(row.row(TV_SYM))}")
            grow = b.op("add.s32", self.block_m, self._reg(row.row(self.tv)))
            skip_row = b.label(f"row{row.i}_done")
            out = self.setp("ge", grow, self.p["M"])
            b.emit(f"@{out} bra {skip_row};")
            crow = self.wide_addr(self.p["Cg"], grow, self.p["ldc"], self.block_n)
            col_addr: Dict[Optional[str], str] = {}
            for g in row.groups:
                col = g.col(self.tv)
                creg, cc = _split(col)
                if creg not in col_addr:
                    col_addr[creg] = crow if creg is None else b.op(
                        "add.s64", crow, b.op("mul.wide.s32", creg, 4, typ=".b64"), typ=".b64")
                at = col_addr[creg]
                gcol = b.op("add.s32", self.block_n, self._reg(col))
                accs = [_r(a) for a in g.accs]
                if len(accs) == 1:
                    self._store_scalar(accs[0], at, 4 * cc, gcol, beta_nz, o[0], cv[0])
                    continue
                scalar, done = b.label("c_scalar"), b.label("c_done")
                last = b.op("add.s32", gcol, 3)
                pv = self.setp("lt", last, self.p["N"], c_vec_ok)
                b.emit(f"@!{pv} bra {scalar};")
                for x in cv:
                    b.emit(f"mov.f32 {x}, {_ZERO};")
                b.emit(f"@{beta_nz} ld.global.v4.f32 {{{', '.join(cv)}}}, {_addr(at, 4 * cc)};")
                for k in range(4):
                    b.emit(f"mul.f32 {cv[k]}, {beta}, {cv[k]};")
                    b.emit(f"fma.rn.f32 {o[k]}, {alpha}, {accs[k]}, {cv[k]};")
                b.emit(f"st.global.v4.f32 {_addr(at, 4 * cc)}, {{{', '.join(o)}}};")
                b.emit(f"bra {done};")
                b.place(scalar)
                for k in range(4):
                    ge = gcol if k == 0 else b.op("add.s32", gcol, k)
                    self._store_scalar(accs[k], at, 4 * (cc + k), ge, beta_nz, o[0], cv[0])
                b.place(done)
            b.place(skip_row)
        if stored is not None:
            b.place(stored)
        if self.cfg.last_col:
            self.last_col_epilogue()

    def _store_scalar(self, acc: str, at: str, imm: int, gcol: str, beta_nz: str, o: str, cv: str) -> None:
        b = self.b
        inside = self.setp("lt", gcol, self.p["N"])
        read = b.op("and.pred", inside, beta_nz, typ=".pred")
        b.emit(f"mov.f32 {cv}, {_ZERO};")
        b.emit(f"@{read} ld.global.f32 {cv}, {_addr(at, imm)};")
        b.emit(f"@{read} mul.f32 {cv}, {self.p['beta']}, {cv};")
        b.emit(f"fma.rn.f32 {o}, {self.p['alpha']}, {acc}, {cv};")
        b.emit(f"@{inside} st.global.f32 {_addr(at, imm)}, {o};")
