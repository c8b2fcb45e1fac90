"""PTX renderer: spells the kernel program (codegen/program.py) as PTX text.

The program is the CUDA C renderer's too (codegen/emit_cuda.py): same steps, same guards,
same kernel parameters and launch geometry, so the runtime launches either.  What the PTX
spells that NVVM otherwise decides for the CUDA C kernel:

- registers: the register plan's names become PTX registers (`%c0_0` accumulators,
  `%a0_3` / `%b1_7` fragments of buffer 0 / 1, `%ga0_1` / `%gb0_1` staging), so the
  PTX ptxas reads is the plan, not NVVM's renumbering of it;
- FFMA order: one `fma.rn.f32` per (accumulator, A, B) of the program's Ffmas steps, in
  that order (the CUDA C backend's order reaches ptxas only through NVVM);
- memory: `ld.global.nc.v4.f32` / `ld.shared.v4.f32` / `st.shared.v4.f32` where the
  plan's accesses are 4 wide, scalar otherwise; every address is an index function
  of codegen/mapping.py evaluated on `PVal` symbols (ptx_builder.py) that emit the PTX
  integer arithmetic as they are combined - no index formula is written here;
- branches: the program's guards (interior tile, edge tile, rows and columns of C) become
  predicates and uniform branches.

Targeting: `.version 8.0` (CUDA 12.0's PTX ISA; every instruction used here is much
older, sm_90 needs >= 7.8), so any driver from 12.0 on can JIT the text and nvJitLink
13.0 compiles it.  The text is emitted for one arch (default sm_90); the two lines
that depend on the arch - `.target` and `.minnctapersm` (applied on sm_90 only, as the
CUDA C backend's __launch_bounds__) - carry a marker, and `ptx_arch.for_arch` rewrites them, so
the compile step (runtime/compiler.py) builds any supported arch from one KernelSource
just as NVRTC does from one CUDA C text.

Stream-K (config.stream_k; codegen/streamk.py): the module holds the program's two entries
(program.entry_programs): the whole tiles (tile = block index) and the work-list kernel
(WorkItems) that loops over (tile, K range) items and sums split tiles through partial slots
and flags.

Modules: this one holds an entry's setup (parameters, thread values, copies, shared
addresses, the tile stores and fragment loads) and the module text; codegen/ptx_builder.py the
instruction builder and PVal; codegen/ptx_loops.py the program's steps (k-loops, FFMAs,
epilogue); codegen/ptx_streamk.py the WorkItems step (item loop, fix-up); ptx_tile_loads.py a
k-tile's global loads and the guards that pick their path; ptx_edges.py an edge tile's loads;
ptx_unaligned.py the unchecked per-float copies of unaligned rows (config.unaligned_rows);
ptx_last_col.py C's fused last column (config.last_col) (mixins of one _Kernel class);
ptx_arch.py the arch-dependent lines and their retargeting.

Operand layouts (config.trans_a / trans_b): each copy reads along its operand's unit stride
(mapping.a/b_copy_coords) from (line, offset) = mapping.a/b_element, K advancing the lines
or the offsets; strided batch (config.batched): A, B and C moved to matrix %ctaid.z first.

Supported: stages 0, 1 and 2 with register fragments (frag_regs=True): vec 1 and 4,
and the cp.async ring (stages 3-4, vec 4: ptx_ring.py),
As transposed or not, padding, linear and z-order lanes, split tiles, register
prefetch within and across k-tiles (program.ktile_schedule).  frag_regs=False (FFMAs on
shared-memory operands: Ffmas with SmemRef operands) is refused (ConfigError).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Optional, Tuple

from . import mapping as mp
from .config import ConfigError, SgemmConfig
from .expr import IntLike, c_expr
from .hardware import DEFAULT_ARCH
from .kernel import KernelSource
from .plan import SmemAccess, ThreadVars
from .program import KernelProgram, block_axis, entry_programs, geometry, header_lines, kernel_name
from .ptx_arch import TARGET_MARK, check_arch, mincta_line, pdl_line
from .ptx_builder import NEG_ZERO as _NEG_ZERO, ZERO as _ZERO, Builder, PVal, _addr, _r, _split
from .ptx_c_staged import CStagedMixin
from .ptx_edges import EdgeLoadsMixin
from .ptx_last_col import LastColMixin
from .ptx_loops import FFMA, LoopsMixin
from .ptx_ring import RingMixin
from .ptx_streamk import StreamKMixin
from .ptx_tile_loads import TileLoadsMixin
from .ptx_unaligned import UnalignedLoadsMixin

PTX_VERSION = "8.0"
# Programmatic dependent launch (codegen/kernel.py, PDL_WAIT): every SGEMM kernel of this backend
# waits for the kernel before it on the stream (griddepcontrol.wait: finished, its writes visible)
# before it touches global memory, and the runtime launches it programmatic (geometry.programmatic),
# so that its blocks may be scheduled before that kernel has finished.  Where each lets the next
# kernel be scheduled (launch_dependents) is measured, not blanket (docs/shapes.md, sessions 38-39):
# - the one-pass kernel right after its wait (the rule of codegen/kernel.PDL_ENTRY): the next call's
#   launch hides behind this one's run, one call ahead at most.  Before the wait (session 7's place, measured then on the H100 as 0.3-1.2 us a
#   call off 13 of 15 shapes against no trigger) a call's blocks, scheduled while the call before still
#   runs, let the call after them be scheduled too, and calls pile up in the block slots: the 26
#   one-pass plans of the suite and held-out sets ran 2.1% faster back to back and 5.2% in CUDA graphs
#   of 20 calls with the trigger after the wait (H200, docs/data/session39/c_5e6f424; NN 384^3 9.3 ->
#   8.2 us in graphs).  At exit: 5.5% faster back to back, 1.2% slower in graphs.
# - stream-K's whole-tile and ranges kernels at exit.  The ranges kernel's trigger at entry let the next
#   call's blocks into the slots its grid leaves, beside its pieces and fix-ups: at exit the 43 TN ring
#   plans ran 5.8% faster back to back (docs/data/session38/e_a4c736a; 3072x64x512 14.5 -> 11.3 us), the
#   104 NN ranges plans 0.8%; right after the wait 7.1% slower than at exit (session39/c).  The
#   whole-tile kernel's trigger changed nothing measurable (session 7: 2000^3, 4096^3 within 0.5 us).
# - a batched one-pass kernel (blockIdx.z the entry) at exit (session 47, lab/experiments/batched_pdl_ab.py,
#   docs/data/session47/d_0a8b858): a batch whose blocks fill one wave in part let the next call's first blocks into
#   the slots it left, beside its own, and those SMs ended with more blocks than the rest: NT 8 x 64x4096x14336 on
#   wide-64x128-k16 (256 blocks in 396 slots) 1568.0 -> 1277.7 us at exit (torch.bmm 1311.9), NT 32 x 8x2048x128 17.3
#   -> 13.8, NN 64 x 128x128x128 11.9 -> 10.0; over the 68 batched shapes of the three sets that run one, at exit
#   0.985x the time (geometric mean), none more than 0.6% slower.
# Without PDL the stream-K plans ran 2-8% slower (session 38), the one-pass plans 26% back to back and
# 13% in graphs than with the trigger after the wait (geometric means, session39/c).  Both lines are
# sm_90's (ptx_arch.for_arch comments them out below it).
PDL_TRIGGER_AT_ENTRY = ("grid",)  # program.TILES that trigger at entry (stream-K's "whole_tiles" and "items" at exit)
PDL_BATCHED_AT_ENTRY = False  # a batched kernel of those tiles too (False: at exit, above; lab/experiments/batched_pdl_ab)
# Where an entry trigger sits: after the kernel's griddepcontrol.wait (True: the next call is scheduled once this one
# runs, one call ahead at most) or before it (False: as soon as this call's blocks are scheduled).
PDL_TRIGGER_AFTER_WAIT = True
_PTX_TYPES = {"int": ".u32", "float": ".f32", "const float*": ".u64", "float*": ".u64", "const int*": ".u64",
              "int*": ".u64", "long long": ".s64"}
TV_SYM = ThreadVars.symbolic()


def kernel_name_ptx(cfg: SgemmConfig) -> str:
    return kernel_name(cfg) + "_ptx"


def check_supported(cfg: SgemmConfig) -> None:
    if not cfg.frag_regs:
        raise ConfigError("frag_regs=False: the PTX backend needs register fragments (frag_regs=True); PTX has no "
                          "shared-memory operands for fma, so each operand would go through a register anyway - "
                          "use --backend cuda for this config, or frag_regs=True (the tile2d-reg preset)")


# ---- the kernel -----------------------------------------------------------------------
class _Kernel(TileLoadsMixin, EdgeLoadsMixin, UnalignedLoadsMixin, LoopsMixin, RingMixin, StreamKMixin,
              LastColMixin, CStagedMixin):
    """One entry of the module: the PTX of one kernel program (codegen/program.py)."""

    def __init__(self, prog: KernelProgram, arch: str, name: str):
        self.prog, self.arch, self.name = prog, arch, name
        self.cfg, self.plan = prog.cfg, prog.plan
        self.param_list = prog.params
        self.b = Builder()
        self.stage_bytes = 4 * self.cfg.smem_floats_per_stage

    # -- helpers
    def v(self, reg: str) -> PVal:
        return PVal(self.b, reg)

    def f32(self, name: str) -> str:
        return self.b.declare(_r(name), ".f32")

    def named(self, name: str, typ: str = ".b32") -> str:
        return self.b.declare(f"%{name}", typ)

    def setp(self, cmp: str, a, c, combine: str = "", typ: str = ".s32") -> str:
        """A fresh predicate: a <cmp> c, and-combined with `combine` ("%p" or "!%p")."""
        p = self.b.temp(".pred")
        if combine:
            self.b.emit(f"setp.{cmp}.and{typ} {p}, {a}, {c}, {combine};")
        else:
            self.b.emit(f"setp.{cmp}{typ} {p}, {a}, {c};")
        return p

    def wide_addr(self, base64: str, idx32: str, scale_reg: Optional[str] = None, add32: Optional[str] = None) -> str:
        """base + 4 * (idx * scale + add) as a 64-bit address (signed 32-bit operands,
        as the CUDA C backend's (size_t)(row) * ld + col)."""
        b = self.b
        if scale_reg is not None:
            tail = b.op("cvt.s64.s32", add32, typ=".b64") if add32 is not None else None
            if tail is not None:
                off = b.op("mad.wide.s32", idx32, scale_reg, tail, typ=".b64")
            else:
                off = b.op("mul.wide.s32", idx32, scale_reg, typ=".b64")
            off = b.op("shl.b64", off, 2, typ=".b64")
        else:
            off = b.op("mul.wide.s32", idx32, 4, typ=".b64")
        return b.op("add.s64", base64, off, typ=".b64")

    def ld(self, operand: str) -> str:
        """The operand's leading dimension (parameter lda or ldb)."""
        return self.p["lda" if operand == "A" else "ldb"]

    def source_at(self, operand: str, x, y) -> str:
        """The 64-bit address of op(A)'s (m, k) = (x, y), or op(B)'s (k, n) = (x, y), through
        the operand's layout (mapping.a/b_element)."""
        line, off = self.element(operand, x, y)
        return self.wide_addr(self.p[operand + "g"], line, self.ld(operand), off)

    def block_end(self, dim) -> str:
        """The end of the block's tile along a block dimension (program.TileDim): origin + extent."""
        return self.b.op("add.s32", getattr(self, dim.origin), dim.extent)

    # -- prologue: parameters and per-thread values
    def pdl_entry(self) -> None:
        """The kernel's first lines: PDL's trigger (where PDL_TRIGGER_AT_ENTRY and, for a batched kernel,
        PDL_BATCHED_AT_ENTRY say) and wait, marked for ptx_arch.for_arch."""
        at_entry = self.prog.tiles in PDL_TRIGGER_AT_ENTRY and (PDL_BATCHED_AT_ENTRY or not self.cfg.batched)
        trigger = ["griddepcontrol.launch_dependents;"] if at_entry else []
        wait = ["griddepcontrol.wait;"]
        lines = wait + trigger if PDL_TRIGGER_AFTER_WAIT else trigger + wait
        for line in lines:
            self.b.lines.append(pdl_line(line, self.arch))

    def params(self) -> None:
        b = self.b
        self.p = {}
        for pname, ctype in self.param_list:
            t = _PTX_TYPES[ctype]
            reg = self.named(pname + ("_param" if "*" in ctype else ""), ".f32" if t == ".f32" else
                             ".b64" if t in (".u64", ".s64") else ".b32")
            b.emit(f"ld.param{t} {reg}, [{self.pname(pname)}];")
            self.p[pname] = reg
        for ptr in ("A", "B", "C") + (("items", "starts", "flags", "partials") if self.prog.tiles == "items" else ()):
            g = self.named(ptr, ".b64")
            b.emit(f"cvta.to.global.u64 {g}, {self.p[ptr]};")
            self.p[ptr + "g"] = g
        if self.cfg.batched:
            self.batch_offsets()

    def batch_offsets(self) -> None:
        """Strided batch: A, B and C moved to matrix blockIdx.z (strides in floats, 0
        broadcasts), before the float4 tests read their alignment (vec_ok reads self.p)."""
        b = self.b
        z = b.op("cvt.u64.u32", b.op("mov.u32", "%ctaid.z"), typ=".b64")
        b.comment("strided batch: blockIdx.z is the batch index")
        for ptr, stride in (("A", "stride_a"), ("B", "stride_b"), ("C", "stride_c")):
            off = b.op("shl.b64", b.op("mul.lo.s64", z, self.p[stride], typ=".b64"), 2, typ=".b64")
            b.emit(f"add.s64 {self.p[ptr + 'g']}, {self.p[ptr + 'g']}, {off};")
            self.p[ptr] = self.p[ptr + "g"]  # the float4 tests' pointer (alignment as the generic one's)

    def pname(self, pname: str) -> str:
        return f"{self.name}_param_{pname}"

    def vec_ok(self, ptr, ld) -> str:
        """(ld % 4 == 0) && (pointer % 16 == 0): float4 accesses of this operand's rows (ptr, ld: names
        of parameters; or tuples of them: every operand's)."""
        b = self.b
        ptrs, lds = (ptr, ld) if isinstance(ptr, tuple) else ((ptr,), (ld,))
        lo = b.op("and.b32", self._or(lds, ".b32"), 3)
        al = b.op("and.b64", self._or(ptrs, ".b64"), 15, typ=".b64")
        p1 = self.setp("eq", al, 0, typ=".u64")
        return self.setp("eq", lo, 0, p1, typ=".u32")

    def _or(self, names, typ: str) -> str:
        """The parameters `names` or-ed together (one: the parameter itself)."""
        out = self.p[names[0]]
        for name in names[1:]:
            out = self.b.op(f"or{typ}", out, self.p[name], typ=typ)
        return out

    def thread_values(self) -> None:
        cfg, b = self.cfg, self.b
        tid = self.tid = self.named("tid_x")
        b.emit(f"mov.u32 {tid}, %tid.x;")
        self.block_m, self.block_n = self.named("block_m"), self.named("block_n")
        if self.prog.tiles == "whole_tiles":  # stream-K's whole tiles: block b is tile b, tile_n fastest
            tiles_n = b.op("div.u32", b.op("add.s32", self.p["N"], cfg.bn - 1), cfg.bn)
            bid = b.op("mov.u32", "%ctaid.x")
            b.emit(f"div.u32 {self.block_m}, {bid}, {tiles_n};")
            b.emit(f"rem.u32 {self.block_n}, {bid}, {tiles_n};")
            b.emit(f"mul.lo.s32 {self.block_m}, {self.block_m}, {cfg.bm};")
            b.emit(f"mul.lo.s32 {self.block_n}, {self.block_n}, {cfg.bn};")
        elif self.prog.tiles == "grid":  # "items": from each work item (ptx_streamk)
            b.emit(f"mov.u32 {self.block_m}, %ctaid.y;")
            b.emit(f"mul.lo.s32 {self.block_m}, {self.block_m}, {cfg.bm};")
            b.emit(f"mov.u32 {self.block_n}, %ctaid.x;")
            b.emit(f"mul.lo.s32 {self.block_n}, {self.block_n}, {cfg.bn};")
        sym_r0, sym_c0 = (c_expr(x) for x in mp.thread_origin(cfg, TV_SYM.tid))
        b.comment(f"origin of this thread's tile in the block tile ({cfg.mapping} lanes): "
                  f"row0 = {sym_r0}, col0 = {sym_c0}")
        r0, c0 = mp.thread_origin(cfg, self.v(tid))
        row0, col0 = self.named("row0"), self.named("col0")
        b.emit(f"mov.b32 {row0}, {PVal.materialize(r0) if isinstance(r0, PVal) else r0};")
        b.emit(f"mov.b32 {col0}, {PVal.materialize(c0) if isinstance(c0, PVal) else c0};")
        self.tv = ThreadVars(self.v(tid), self.v(row0), self.v(col0))

    def smem_setup(self) -> None:
        """Shared addresses (32-bit, .shared window): stage 0 of every store and the
        fragment bases A (row0, k=0), B (k=0, col0) of the program."""
        b = self.b
        self.smem = self.named("smem_base")
        b.emit(f"mov.u32 {self.smem}, smem;")
        self.frag_base = {}
        for operand, fb in self.prog.frag_bases.items():
            name, base = fb.name, fb.offset
            reg, c = _split(base(self.tv))
            off = b.op("shl.b32", reg, 2) if reg else None
            dst = self.named(f"{name}0")
            b.emit(f"add.s32 {dst}, {self.smem}, {off};" if off else f"mov.b32 {dst}, {self.smem};",
                   f"{name} = smem + 4 * ({c_expr(base(TV_SYM))})" + (f", less {4 * c} that each load adds" if c else ""))
            self.frag_base[operand] = (dst, 4 * c)
        if self.cfg.last_col:
            self.last_col_kernel_setup()

    def smem_address(self, access: SmemAccess) -> Tuple[str, int]:
        """(stage-0 address register, byte immediate) of a store of the plan."""
        reg, c = _split(access.offset(self.tv))
        if reg is None:
            return self.smem, 4 * c
        return self.b.op("add.s32", self.smem, self.b.op("shl.b32", reg, 2)), 4 * c

    def copy_setup(self) -> None:
        """Per copy: its tile coordinates, its source at k = 0 (then advanced by k0 per
        k-tile: A by k0 floats, B by k0 rows) and its stores' shared addresses."""
        b = self.b
        self.copies = []
        for copies in (self.plan.a_copies, self.plan.b_copies):
            for r, copy in enumerate(copies):
                row, col = copy.coords(self.tv)
                srow, scol = (c_expr(x) for x in copy.coords(TV_SYM))
                row, col = self._reg(row), self._reg(col)
                p = copy.operand.lower()
                b.comment(f"{copy.operand} copy {r}: tile ({srow}, {scol})")
                # (m, k) of A, (k, n) of B at k = 0: the block's origin + the tile coordinate in
                # the block's dimension, the tile coordinate alone along K (program.TileDim)
                at = []
                for dim, x, what in zip(self.prog.dims[copy.operand], (row, col), ("row", "col")):
                    if dim.origin == "k0":
                        reg = self.named(f"{p}_{what}{r}")
                        b.emit(f"mov.b32 {reg}, {x};")
                    else:
                        reg = self.named(f"{p}_g{what}{r}")
                        b.emit(f"add.s32 {reg}, {getattr(self, dim.origin)}, {x};", f"{dim.origin} + tile {what}")
                    at.append(reg)
                # the source at k = 0, through the operand's layout (mapping.a/b_element); with
                # edge_clamp the block coordinate clamped into the matrix (clamp_setup) for the
                # source alone: the edge paths' bounds checks keep the true coordinate
                line, off = self.element(copy.operand, *at)
                src_at = list(at)
                if copy.operand in self.clamp_lim:
                    axis = block_axis(self.prog.dims[copy.operand])
                    src_at[axis] = b.op("min.s32", at[axis], self.clamp_lim[copy.operand])
                src = self.source_at(copy.operand, *src_at)
                src_n = self.named(f"{p}_src{r}", ".b64")
                b.emit(f"mov.b64 {src_n}, {src};")
                stores = [(s, *self.smem_address(s)) for s in copy.stores]
                self.copies.append((copy, r, line, off, src_n, stores))
        if self.cfg.unaligned_rows:
            self.float_tiles = {loads.operand: self.float_tile_setup(loads) for loads in self.float_loads}

    def element(self, operand: str, x, y):
        """(line, offset) of op(A)'s (m, k) = (x, y), or of op(B)'s (k, n) = (x, y)."""
        return (mp.a_element if operand == "A" else mp.b_element)(self.cfg, x, y)

    def k_in_line(self, operand: str) -> bool:
        """Does K run along the operand's lines (its leading dimension) or its unit stride? (mapping.k_in_line)"""
        return mp.k_in_line(self.cfg, operand)

    def k_offset(self, operand: str, k: str) -> str:
        """Bytes from the operand's element at k = 0 to the one at k (same row / column)."""
        b = self.b
        if self.k_in_line(operand):
            return b.op("shl.b64", b.op("mul.wide.s32", k, self.ld(operand), typ=".b64"), 2, typ=".b64")
        return b.op("mul.wide.s32", k, 4, typ=".b64")

    def _reg(self, x: IntLike) -> str:
        return x.materialize() if isinstance(x, PVal) else self.b.op("mov.b32", int(x))

    # -- the k-tile pieces
    def store_tile(self, stage_off: Optional[str], floats=()) -> None:
        """Staging registers -> shared memory (stage at byte offset stage_off); an operand with
        float copies (unaligned rows) stores them where its last tile load took them."""
        if floats:
            for op in ("A", "B"):
                mine = [f for f in floats if f.operand == op]
                copies = [c for c in self.copies if c[0].operand == op]
                if mine:
                    self.store_floats(op, mine, self.float_tiles[op],
                                      lambda copies=copies: self._store_copies(copies, stage_off), stage_off)
                else:
                    self._store_copies(copies, stage_off)
        else:
            self._store_copies(self.copies, stage_off)
        if self.cfg.last_col:
            self.last_col_store(stage_off)

    def _store_copies(self, copies, stage_off: Optional[str]) -> None:
        b = self.b
        for copy, r, _, _, _, stores in copies:
            for access, base, imm in stores:
                addr = base if stage_off is None else b.op("add.s32", base, stage_off)
                regs = [_r(x) for x in access.regs]
                if access.width == 1:
                    b.emit(f"st.shared.f32 {_addr(addr, imm)}, {regs[0]};", access.what)
                else:
                    b.emit(f"st.shared.v{access.width}.f32 {_addr(addr, imm)}, {{{', '.join(regs)}}};", access.what)

    def frag_pointers(self, stage_off: Optional[str]) -> Dict[str, str]:
        out = {}
        for operand, (base, _) in self.frag_base.items():
            out[operand] = base if stage_off is None else self.b.op("add.s32", base, stage_off)
        return out

    def slice_loads(self, loads, ptrs: Dict[str, str]) -> None:
        """The program's fragment loads (LoadFrags): base register + immediate where the
        offset is a constant distance from the fragment base, else the full offset."""
        b = self.b
        for access, ref in loads:
            base, base_imm = self.frag_base[access.operand]
            regs = [_r(x) for x in access.regs]
            if ref.delta is not None:
                at = _addr(ptrs[access.operand], base_imm + 4 * ref.delta)
            else:  # not a constant distance from the fragment base: the full offset
                reg, c = _split(access.offset(self.tv))
                stage = b.op("sub.s32", ptrs[access.operand], self.frag_base[access.operand][0])
                at = _addr(b.op("add.s32", b.op("add.s32", self.smem, stage), b.op("shl.b32", reg, 2)), 4 * c)
            if access.width == 1:
                b.emit(f"ld.shared.f32 {regs[0]}, {at};", access.what)
            else:
                b.emit(f"ld.shared.v{access.width}.f32 {{{', '.join(regs)}}}, {at};", access.what)

    # -- the whole kernel
    def body(self) -> None:
        cfg, b, r = self.cfg, self.b, self.plan.regs
        b.memo = {}
        self._ptrs: Dict[str, str] = {}
        self.pdl_entry()
        self.params()
        self.thread_values()
        b.comment("register plan: accumulators")
        for row in r.acc:
            for a in row:
                self.f32(a)
        if self.prog.tiles != "items":  # zeroed per item
            self.zero_accumulators()
        for bufs in (r.frag_a, r.frag_b):
            for buf in bufs:
                for x in buf:
                    self.f32(x)
        if cfg.stages == 0:
            self.render(self.prog.main)
        else:
            for copy in self.plan.a_copies + self.plan.b_copies:
                for x in copy.regs:
                    self.f32(x)
            self.vec_ok_pred = {}
            if self.prog.load_guard == "tile":
                # block-uniform halves of a_tile_full / b_tile_full (the k0 test is per tile).
                # Stream-K moves A by kt_begin * BK floats and B by that many rows: with
                # BK % 4 == 0 (vec 4 needs it) the alignment stays as tested here.
                self.vec_ok_pred["A"] = self.vec_ok("A", "lda")
                self.vec_ok_pred["B"] = self.vec_ok("B", "ldb")
                if cfg.unaligned_rows:
                    self.float_setup()
            self.smem_setup()
            if self.prog.tiles == "items":
                self.render(self.prog.main)
                return
            self.k_tiles = self.named("k_tiles")
            kt1 = b.op("add.s32", self.p["K"], cfg.bk - 1)
            b.emit(f"div.s32 {self.k_tiles}, {kt1}, {cfg.bk};", "k_tiles = ceil(K / BK)")
            self.tile_setup()
            b.memo = None  # below: loops and branches; no reuse across them
            self.render(self.prog.main)
            if cfg.last_col:
                self.last_col_gather()
        b.memo = None
        b.comment("epilogue: C = alpha * acc + beta * C")
        self.epilogue(self.prog.epilogue)
        b.emit("ret;")

    def zero_accumulators(self) -> None:
        init = {"-0": _NEG_ZERO, "0": _ZERO}[self.prog.acc_init]
        for row in self.plan.regs.acc:
            for a in row:
                self.b.emit(f"mov.f32 {_r(a)}, {init};")
        if self.cfg.last_col:
            self.last_col_zero()

    def tile_setup(self) -> None:
        """What depends on the block's tile: the interior-tile predicates and the copies'
        sources.  Each interior guard (tile_ok, floats_ok, both_ok: good for any k-tile inside K) has
        a loose form (tile_loose, floats_loose, both_loose: good for k-tiles that end before line
        K - 1) where a tile may straddle a vector bound (ptx_edges.clamp_setup), else None."""
        self.tile_ok, self.clamp_lim, self.block_ok, self.spaced, self.floats_ok = {}, {}, {}, {}, {}
        self.tile_loose, self.floats_loose = {}, {}
        # both operands' tiles inside, rows aligned (load_tile's both_float4): both_ok, or both_loose (one of them)
        self.both_ok = self.both_loose = None
        if self.prog.load_guard == "tile":  # the block's dimension of each tile (the k0 one per k-tile)
            b = self.b
            ends = {op: (d, self.block_end(d)) for op, dims in self.prog.dims.items() for d in dims if d.origin != "k0"}
            for op, (d, end) in ends.items():
                self.tile_ok[op] = (self.clamp_setup(op, d, end) if self.prog.clamp_edges else
                                    self.setp("le", end, self.p[d.bound], self.vec_ok_pred[op]))
                # aligned rows have ld % 4 == 0, and ld >= the extent >= 1 (arrays.in_place_layout refuses less): ld >= 4
                self.tile_loose[op] = None if op not in self.spaced else self.vec_ok_pred[op]
                if self.prog.unaligned_vectors:
                    self.floats_setup(op)
            if len(self.tile_ok) == 2 and not self.prog.unaligned_vectors and not self.cfg.unaligned_rows:
                if any(self.tile_loose.values()):  # both_float4 tests k-tiles before line K - 1 alone
                    # each operand's loose guard, or its tile_ok where it has none, is its rows' alignment
                    # (clamp_setup), so both_loose is both's, tested afresh on the parameters: as the AND of the
                    # operands' predicates ptxas recomputed it (PLOP3) ahead of the test on every k-tile
                    assert all(self.tile_loose[op] or self.tile_ok[op] is self.vec_ok_pred[op] for op in "AB")
                    self.both_loose = self.vec_ok(("A", "B"), ("lda", "ldb"))
                else:
                    self.both_ok = b.op("and.pred", self.tile_ok["A"], self.tile_ok["B"], typ=".pred")
        self.copy_setup()
        if self.cfg.last_col:
            self.last_col_tile_setup()

    def module_header(self) -> List[str]:
        cfg = self.cfg
        out = ["//"] + [f"// {ln}".rstrip() for ln in header_lines(self.plan, self.name)]
        out += ["//", f"// FFMA issue order per k-slice: plan.regs.ffma_order ({cfg.ffma_order}), {FFMA} "
                      f"%c<i>_<j>, %a<buf>_<i>, %b<buf>_<j>, %c<i>_<j>",
                "//", "",
                f".version {PTX_VERSION}", f".target {self.arch}  {TARGET_MARK}", ".address_size 64", ""]
        if cfg.stages:
            out.append(".extern .shared .align 16 .b8 smem[];")
            out.append("")
        return out

    def entry(self) -> List[str]:
        cfg = self.cfg
        self.body()
        params = ",\n".join(f"\t.param {_PTX_TYPES[ctype]} {self.pname(pname)}" for pname, ctype in self.param_list)
        out = [f".visible .entry {self.name}(", params, ")", f".maxntid {cfg.threads}, 1, 1"]
        if cfg.min_blocks > 1:
            out.append(mincta_line(cfg.min_blocks, self.arch))
        if cfg.max_registers:
            out.append(f".maxnreg {cfg.max_registers}")
        out.append("{")
        r = self.plan.regs
        groups = [("register plan (codegen/plan.py): accumulators c<i>_<j>", [[_r(a) for a in row] for row in r.acc]),
                  ("register plan: A fragments a<buffer>_<i>", [[_r(x) for x in buf] for buf in r.frag_a]),
                  ("register plan: B fragments b<buffer>_<j>", [[_r(x) for x in buf] for buf in r.frag_b])]
        staging = [[_r(x) for x in c.regs] for c in self.plan.a_copies + self.plan.b_copies]
        if staging:
            groups.append(("register plan: staging of the global -> shared copy ga<copy>_<e> / gb<copy>_<e>", staging))
        out += self.b.declarations(groups)
        out.append("")
        out += self.b.lines
        out.append("}")
        return out

    def text(self) -> str:
        return "\n".join(self.module_header() + self.entry()) + "\n"


def emit_sgemm_ptx(cfg: SgemmConfig, arch: str = DEFAULT_ARCH) -> KernelSource:
    """The SGEMM kernel of `cfg` as PTX for `arch` (the compile step retargets it to
    the arch it builds; see ptx_arch.for_arch)."""
    check_supported(cfg)
    check_arch(arch)
    header, src = _module_entries(cfg, arch)
    text = "\n".join(header) + "\n" + src.text
    if cfg.edge_split:
        # edge split (codegen/edges.py): the small-tile kernel's entries join the module;
        # its header is this one's (same .version, .target and dynamic `smem`)
        from .edges import edge_config
        _, edge = _module_entries(edge_config(cfg), arch)
        if ".extern .shared .align 16 .b8 smem[];" not in header:
            text = text.replace(".address_size 64\n", ".address_size 64\n\n.extern .shared .align 16 .b8 smem[];\n", 1)
        text += "\n" + edge.text
        src = dataclasses.replace(src, entries=src.entries + (("edge", edge),))
    return dataclasses.replace(src, text=text)


def _module_entries(cfg: SgemmConfig, arch: str) -> Tuple[List[str], KernelSource]:
    """(module header lines, KernelSource whose text is the module's entries without the
    header): the program's entries (program.entry_programs), stream-K's "ranges" among them."""
    name = kernel_name_ptx(cfg)
    kernels = [(role, _Kernel(prog, arch, name if role == "main" else f"{name}_{role}"))
               for role, prog in entry_programs(cfg)]
    header = kernels[0][1].module_header()
    texts = ["\n".join(k.entry()) + "\n" for _, k in kernels]
    geo = dataclasses.replace(geometry(cfg), programmatic=True)  # pdl_entry
    others = [(role, KernelSource(name=k.name, language="ptx", text=t, geometry=geo, params=k.param_list,
                                  trans_a=cfg.trans_a, trans_b=cfg.trans_b))
              for (role, k), t in zip(kernels[1:], texts[1:])]
    return header, KernelSource(name=name, language="ptx", text="\n".join(texts), geometry=geo,
                                params=kernels[0][1].param_list, entries=tuple(others),
                                trans_a=cfg.trans_a, trans_b=cfg.trans_b)


def ffma_sequence(text: str) -> List[Tuple[str, str, str, str]]:
    """(d, a, b, c) register names of every fma.rn.f32 of a PTX text, in text order."""
    return [tuple(x.strip() for x in m.group(1).split(","))
            for m in re.finditer(r"^\s*fma\.rn\.f32 ([^;]+);", text, flags=re.M)
            if m.group(1).split(",")[0].strip().startswith("%c")]
