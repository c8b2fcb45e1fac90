"""PTX backend: lays the same plan as emit_cuda.py out as PTX text.

Same config, same plan (codegen/plan.py), same kernel parameters (kernel.SGEMM_PARAMS)
and launch geometry as the CUDA C backend, so the runtime launches either.  What the
PTX decides that NVVM otherwise decides for the CUDA C kernel:

- registers: the register plan's names become PTX registers (`%c0_0` accumulators,
  `%a0_3` / `%b1_7` fragments of buffer 0 / 1, `%ga0_1` / `%gb0_1` staging), so the
  PTX ptxas reads is the plan, not NVVM's renumbering of it;
- FFMA order: one `fma.rn.f32` per entry of plan.regs.ffma_order, per k-slice, in
  that order (the CUDA C backend's order reaches ptxas only through NVVM);
- memory: `ld.global.nc.v4.f32` / `ld.shared.v4.f32` / `st.shared.v4.f32` where the
  plan's accesses are 4 wide, scalar otherwise; every address is an index function
  of codegen/mapping.py evaluated on `PVal` symbols (below) that emit the PTX
  integer arithmetic as they are combined - no index formula is written here.

Bounds checks mirror emit_cuda.py: an interior tile (block-uniform test per k-tile)
takes unchecked float4 loads, an edge tile checks each vector, then each float;
rows of C outside M and columns outside N are never touched; C is not read when
beta == 0; float4 global accesses only with 16-byte aligned rows.

Targeting: `.version 8.0` (CUDA 12.0's PTX ISA; every instruction used here is much
older, sm_90 needs >= 7.8), so any driver from 12.0 on can JIT the text and nvJitLink
13.0 compiles it.  The text is emitted for one arch (default sm_90); the two lines
that depend on the arch - `.target` and `.minnctapersm` (applied on sm_90 only, as the
CUDA C backend's __launch_bounds__) - carry a marker, and `for_arch` rewrites them, so
the compile step (runtime/compiler.py) builds any supported arch from one KernelSource
just as NVRTC does from one CUDA C text.

Stream-K (config.stream_k; codegen/streamk.py): the module holds the one-pass kernel with
tile = block index (mode "linear") and a work-list kernel (mode "ranges") that loops over
(tile, K range) items and sums split tiles through partial slots and flags.

Supported: stages 0, 1 and 2 with register fragments (frag_regs=True): vec 1 and 4,
As transposed or not, padding, linear and z-order lanes, split tiles, register
prefetch within and across k-tiles (emit_cuda.crosses_tiles, through the shared
emit_cuda.ktile_schedule).  frag_regs=False is refused (ConfigError).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Optional, Tuple

from . import mapping as mp
from .config import ConfigError, SgemmConfig
from .emit_cuda import _frag_bases, _header, geometry, kernel_name, ktile_schedule
from .expr import IntLike, c_expr
from .hardware import DEFAULT_ARCH, SUPPORTED_ARCHS
from .kernel import SGEMM_PARAMS, STREAMK_PARAMS, KernelSource, with_batch
from . import streamk
from .plan import GlobalCopy, SgemmPlan, SmemAccess, ThreadVars, make_plan

PTX_VERSION = "8.0"
FFMA = "fma.rn.f32"
_TARGET_MARK = "// regtile: target"
_MINCTA_MARK = "// regtile: sm_90 only (as the CUDA C backend's __launch_bounds__)"
_PTX_TYPES = {"int": ".u32", "float": ".f32", "const float*": ".u64", "float*": ".u64", "const int*": ".u64",
              "int*": ".u64", "long long": ".s64"}
_ZERO = "0f00000000"
_NEG_ZERO = "0f80000000"
TV_SYM = ThreadVars.symbolic()


def kernel_name_ptx(cfg: SgemmConfig) -> str:
    return kernel_name(cfg) + "_ptx"


def check_supported(cfg: SgemmConfig) -> None:
    if not cfg.frag_regs:
        raise ConfigError("frag_regs=False: the PTX backend needs register fragments (frag_regs=True); PTX has no "
                          "shared-memory operands for fma, so each operand would go through a register anyway - "
                          "use --backend cuda for this config, or frag_regs=True (the tile2d-reg preset)")


# ---- the instruction builder and its integer symbols --------------------------------
class Builder:
    """PTX lines, register declarations and labels of one kernel body."""

    def __init__(self):
        self.lines: List[str] = []
        self.decls: Dict[str, str] = {}  # register -> PTX type, in declaration order
        self.counts: Dict[str, int] = {}
        self.memo: Optional[Dict[tuple, str]] = None  # CSE of integer ops (entry block only)
        self.labels = 0

    TEMP_PREFIX = {".pred": "%p", ".b32": "%r", ".b64": "%rd"}

    def declare(self, name: str, typ: str) -> str:
        if self.decls.setdefault(name, typ) != typ:
            raise ValueError(f"register {name} declared as {self.decls[name]} and {typ}")
        return name

    def temp(self, typ: str) -> str:
        """A numbered temporary (%p<n>, %r<n>, %rd<n>), declared as a range at the end."""
        n = self.counts.get(typ, 0)
        self.counts[typ] = n + 1
        return f"{self.TEMP_PREFIX[typ]}{n}"

    def declarations(self, groups) -> List[str]:
        """`.reg` lines: each group (comment, names) of named registers, then the
        remaining named registers by type, then the temporaries' ranges."""
        out, done = [], set()
        for comment, names in groups:
            out.append(f"\t// {comment}")
            for row in names:
                out.append(f"\t.reg {self.decls[row[0]]} {', '.join(row)};")
                done.update(row)
        out.append("\t// kernel state")
        for typ in (".pred", ".b32", ".b64", ".f32"):
            names = [n for n, t in self.decls.items() if t == typ and n not in done]
            for k in range(0, len(names), 10):
                out.append(f"\t.reg {typ} {', '.join(names[k:k + 10])};")
        out.append("\t// temporaries")
        for typ, n in self.counts.items():
            out.append(f"\t.reg {typ} {self.TEMP_PREFIX[typ]}<{n}>;")
        return out

    def emit(self, text: str, comment: str = "") -> None:
        self.lines.append(f"\t{text}" + (f"  // {comment}" if comment else ""))

    def comment(self, text: str) -> None:
        self.lines.append(f"\t// {text}")

    def label(self, stem: str) -> str:
        self.labels += 1
        return f"$L_{stem}_{self.labels}"

    def place(self, label: str) -> None:
        self.lines.append(f"{label}:")

    def op(self, opcode: str, *srcs, typ: str = ".b32") -> str:
        """dst = opcode srcs, in a fresh register; common subexpressions reused while
        memo is on (the entry block, which dominates every later use)."""
        key = (opcode, srcs)
        if self.memo is not None and key in self.memo:
            return self.memo[key]
        dst = self.temp(typ)
        self.emit(f"{opcode} {dst}, {', '.join(str(s) for s in srcs)};")
        if self.memo is not None:
            self.memo[key] = dst
        return dst


def _pow2(k: int) -> bool:
    return k > 0 and k & (k - 1) == 0


class PVal:
    """A non-negative 32-bit integer `reg + const` in PTX.  Index functions of
    mapping.py combine these like ints; each operation emits what it needs
    (mul.lo/shl, div/shr, rem/and, add) and constants stay folded, so an offset
    reaches the memory instruction as register + immediate."""

    __slots__ = ("b", "reg", "const")

    def __init__(self, b: Builder, reg: Optional[str], const: int = 0):
        self.b, self.reg, self.const = b, reg, const

    def __repr__(self):
        return f"PVal({self.reg} + {self.const})"

    def materialize(self) -> str:
        if self.reg is None:
            return self.b.op("mov.b32", self.const)
        return self.reg if self.const == 0 else self.b.op("add.s32", self.reg, self.const)

    @staticmethod
    def _make(b, reg, const) -> IntLike:
        return const if reg is None else PVal(b, reg, const)

    def _other(self, o):
        if isinstance(o, PVal):
            return o
        if isinstance(o, int) and not isinstance(o, bool):
            return PVal(self.b, None, o)
        return NotImplemented

    def __add__(self, o):
        o = self._other(o)
        if o is NotImplemented:
            return o
        if self.reg is None or o.reg is None:
            return PVal._make(self.b, self.reg or o.reg, self.const + o.const)
        return PVal(self.b, self.b.op("add.s32", self.reg, o.reg), self.const + o.const)

    __radd__ = __add__

    def __mul__(self, o):
        if isinstance(o, PVal):
            if o.reg is None:
                return self * o.const
            if self.reg is None:
                return o * self.const
            return PVal(self.b, self.b.op("mul.lo.s32", self.materialize(), o.materialize()))
        if not isinstance(o, int) or isinstance(o, bool):
            return NotImplemented
        if o == 0:
            return 0
        if o == 1 or self.reg is None:
            return PVal._make(self.b, self.reg, self.const * o) if o != 1 else self
        reg = self.b.op("shl.b32", self.reg, o.bit_length() - 1) if _pow2(o) else self.b.op("mul.lo.s32", self.reg, o)
        return PVal(self.b, reg, self.const * o)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        if not isinstance(o, int) or isinstance(o, bool) or o < 1:
            return NotImplemented
        if o == 1:
            return self
        if self.reg is None:
            return self.const // o
        # (r + c) // k == r // k + c // k for r >= 0 when k divides c
        reg, c = (self.reg, self.const) if self.const % o == 0 else (self.materialize(), 0)
        out = self.b.op("shr.u32", reg, o.bit_length() - 1) if _pow2(o) else self.b.op("div.u32", reg, o)
        return PVal(self.b, out, c // o)

    def __mod__(self, o):
        if not isinstance(o, int) or isinstance(o, bool) or o < 1:
            return NotImplemented
        if o == 1:
            return 0
        if self.reg is None:
            return self.const % o
        reg = self.reg if self.const % o == 0 else self.materialize()
        return PVal(self.b, self.b.op("and.b32", reg, o - 1) if _pow2(o) else self.b.op("rem.u32", reg, o))


def _split(x: IntLike) -> Tuple[Optional[str], int]:
    """(register or None, constant) of an index value."""
    return (x.reg, x.const) if isinstance(x, PVal) else (None, int(x))


def _addr(reg: str, imm: int) -> str:
    return f"[{reg}+{imm}]" if imm > 0 else f"[{reg}-{-imm}]" if imm < 0 else f"[{reg}]"


def _r(name: str) -> str:
    """The PTX register of a register-plan name."""
    return f"%{name}"


# ---- the kernel -----------------------------------------------------------------------
class _Kernel:
    def __init__(self, cfg: SgemmConfig, arch: str):
        self.cfg, self.arch = cfg, arch
        self.plan: SgemmPlan = make_plan(cfg)
        self.name = kernel_name_ptx(cfg)
        self.b = Builder()
        self.stage_bytes = 4 * cfg.smem_floats_per_stage
        # "grid": tile (blockIdx.y, blockIdx.x), the one-pass kernel; "linear": block b is tile
        # b (tile_n fastest), stream-K's whole tiles; "ranges": stream-K's work-list kernel
        self.mode = "grid"
        self.param_list = with_batch(SGEMM_PARAMS, cfg.batched)

    def as_mode(self, mode: str, name: str) -> "_Kernel":
        self.mode, self.name = mode, name
        self.param_list = with_batch(STREAMK_PARAMS if mode == "ranges" else SGEMM_PARAMS, self.cfg.batched)
        return self

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

    # -- prologue: parameters and per-thread values
    def params(self) -> None:
        b = self.b
        self.p = {}
        for pname, ctype in self.param_list:
            t = _PTX_TYPES[ctype]
            reg = self.named(pname + ("_param" if "*" in ctype else ""), ".f32" if t == ".f32" else
                             ".b64" if t in (".u64", ".s64") else ".b32")
            b.emit(f"ld.param{t} {reg}, [{self.pname(pname)}];")
            self.p[pname] = reg
        for ptr in ("A", "B", "C") + (("items", "starts", "flags", "partials") if self.mode == "ranges" else ()):
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

    def vec_ok(self, ptr: str, ld: str) -> str:
        """(ld % 4 == 0) && (pointer % 16 == 0): float4 accesses of this operand's rows."""
        b = self.b
        lo = b.op("and.b32", self.p[ld], 3)
        al = b.op("and.b64", self.p[ptr], 15, typ=".b64")
        p1 = self.setp("eq", al, 0, typ=".u64")
        return self.setp("eq", lo, 0, p1, typ=".u32")

    def thread_values(self) -> None:
        cfg, b = self.cfg, self.b
        tid = self.tid = self.named("tid_x")
        b.emit(f"mov.u32 {tid}, %tid.x;")
        self.block_m, self.block_n = self.named("block_m"), self.named("block_n")
        if self.mode == "linear":  # stream-K's whole tiles: block b is tile b, tile_n fastest
            tiles_n = b.op("div.u32", b.op("add.s32", self.p["N"], cfg.bn - 1), cfg.bn)
            bid = b.op("mov.u32", "%ctaid.x")
            b.emit(f"div.u32 {self.block_m}, {bid}, {tiles_n};")
            b.emit(f"rem.u32 {self.block_n}, {bid}, {tiles_n};")
            b.emit(f"mul.lo.s32 {self.block_m}, {self.block_m}, {cfg.bm};")
            b.emit(f"mul.lo.s32 {self.block_n}, {self.block_n}, {cfg.bn};")
        elif self.mode == "grid":  # "ranges": from each work item (item_loop)
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
        fragment bases A (row0, k=0), B (k=0, col0) - emit_cuda._frag_bases."""
        b = self.b
        self.smem = self.named("smem_base")
        b.emit(f"mov.u32 {self.smem}, smem;")
        self.frag_base = {}
        for operand, (name, base) in _frag_bases(self.cfg).items():
            reg, c = _split(base(self.tv))
            off = b.op("shl.b32", reg, 2) if reg else None
            dst = self.named(f"{name}0")
            b.emit(f"add.s32 {dst}, {self.smem}, {off};" if off else f"mov.b32 {dst}, {self.smem};",
                   f"{name} = smem + 4 * ({c_expr(base(TV_SYM))})" + (f", less {4 * c} that each load adds" if c else ""))
            self.frag_base[operand] = (dst, 4 * c)

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
                if copy.operand == "A":  # (m, k) = (block_m + tile row, tile col)
                    grow = self.named(f"a_grow{r}")
                    b.emit(f"add.s32 {grow}, {self.block_m}, {row};", "block_m + tile row")
                    gcol = self.named(f"a_col{r}")
                    b.emit(f"mov.b32 {gcol}, {col};")
                else:  # (k, n) = (tile row, block_n + tile col)
                    grow = self.named(f"b_row{r}")
                    b.emit(f"mov.b32 {grow}, {row};")
                    gcol = self.named(f"b_gcol{r}")
                    b.emit(f"add.s32 {gcol}, {self.block_n}, {col};", "block_n + tile col")
                # (line, offset) of the operand's layout (mapping.a/b_element): source at k = 0
                line, off = self.element(copy.operand, grow, gcol)
                src = self.wide_addr(self.p[copy.operand + "g"], line, self.p["lda" if p == "a" else "ldb"], off)
                src_n = self.named(f"{p}_src{r}", ".b64")
                b.emit(f"mov.b64 {src_n}, {src};")
                stores = [(s, *self.smem_address(s)) for s in copy.stores]
                self.copies.append((copy, r, line, off, src_n, stores))

    def element(self, operand: str, x, y):
        """(line, offset) of op(A)'s (m, k) = (x, y), or of op(B)'s (k, n) = (x, y)."""
        return (mp.a_element if operand == "A" else mp.b_element)(self.cfg, x, y)

    def k_in_line(self, operand: str) -> bool:
        """Does K run along the operand's lines (its leading dimension) or its unit stride?"""
        line, _ = self.element(operand, 0, 1) if operand == "A" else self.element(operand, 1, 0)
        return line == 1

    def k_offset(self, operand: str, k: str) -> str:
        """Bytes from the operand's element at k = 0 to the one at k (same row / column)."""
        b = self.b
        if self.k_in_line(operand):
            ld = self.p["lda" if operand == "A" else "ldb"]
            return b.op("shl.b64", b.op("mul.wide.s32", k, ld, typ=".b64"), 2, typ=".b64")
        return b.op("mul.wide.s32", k, 4, typ=".b64")

    def _reg(self, x: IntLike) -> str:
        return x.materialize() if isinstance(x, PVal) else self.b.op("mov.b32", int(x))

    # -- the k-tile pieces
    def load_tile(self, k0: str) -> None:
        """Global -> staging registers for one k-tile at k0, bounds-checked as emit_cuda's
        _load_global: vec 4 takes the unchecked float4 loads when the whole tile of the
        operand is inside the matrix with aligned rows (block-uniform), else checks each
        vector, then each float; vec 1 checks each float."""
        b, cfg = self.b, self.cfg
        a_koff, b_koff = self.k_offset("A", k0), self.k_offset("B", k0)
        for operand, koff in (("A", a_koff), ("B", b_koff)):
            copies = [c for c in self.copies if c[0].operand == operand]
            if not copies:
                continue
            ptrs = [b.op("add.s64", src, koff, typ=".b64") for _, _, _, _, src, _ in copies]
            if cfg.vec == 1:
                for (copy, r, grow, gcol, _, _), ptr in zip(copies, ptrs):
                    self._load_scalars(copy, r, grow, gcol, ptr, k0, None)
                continue
            edge, done = b.label(f"{operand.lower()}_edge"), b.label(f"{operand.lower()}_loaded")
            kend = b.op("add.s32", k0, cfg.bk)
            full = self.setp("le", kend, self.p["K"], self.tile_ok[operand])
            b.emit(f"@!{full} bra.uni {edge};", f"{operand} tile inside the matrix, rows aligned: float4, unchecked")
            for (copy, r, *_), ptr in zip(copies, ptrs):
                b.emit(f"ld.global.nc.v4.f32 {{{', '.join(_r(x) for x in copy.regs)}}}, [{ptr}];",
                       f"{operand} copy {r}")
            b.emit(f"bra.uni {done};")
            b.place(edge)
            for (copy, r, grow, gcol, _, _), ptr in zip(copies, ptrs):
                self._load_scalars(copy, r, grow, gcol, ptr, k0, self.vec_ok_pred[operand])
            b.place(done)

    def _load_scalars(self, copy: GlobalCopy, r: int, grow: str, gcol: str, ptr: str, k0: str,
                      vec_ok: Optional[str]) -> None:
        """One copy with bounds checks: the float4 when the whole vector is inside and
        aligned (vec_ok given), else each float, zero outside the matrix."""
        b = self.b
        # grow, gcol: the copy's (line, offset) at k = 0; k0 moves the one K runs along.
        # Plain layouts: A (block_m + row < M) && (k0 + col + e < K), B (k0 + row < K) &&
        # (block_n + col + e < N); the vector runs along the offset.
        lims = self.element(copy.operand, *((self.p["M"], self.p["K"]) if copy.operand == "A"
                                            else (self.p["K"], self.p["N"])))
        rlim, clim = lims
        if self.k_in_line(copy.operand):
            rowv, colv = b.op("add.s32", k0, grow), gcol
        else:
            rowv, colv = grow, b.op("add.s32", k0, gcol)
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

    def store_tile(self, stage_off: Optional[str]) -> None:
        """Staging registers -> shared memory (stage at byte offset stage_off)."""
        b = self.b
        for copy, r, _, _, _, stores in self.copies:
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

    def slice_loads(self, kk: int, ptrs: Dict[str, str]) -> None:
        b = self.b
        for access in self.plan.a_frag_loads[kk] + self.plan.b_frag_loads[kk]:
            base, base_imm = self.frag_base[access.operand]
            delta = self._frag_delta(access)
            regs = [_r(x) for x in access.regs]
            if delta is not None:
                at = _addr(ptrs[access.operand], base_imm + 4 * delta)
            else:  # not a constant distance from the fragment base: the full offset
                reg, c = _split(access.offset(self.tv))
                stage = b.op("sub.s32", ptrs[access.operand], self.frag_base[access.operand][0])
                at = _addr(b.op("add.s32", b.op("add.s32", self.smem, stage), b.op("shl.b32", reg, 2)), 4 * c)
            if access.width == 1:
                b.emit(f"ld.shared.f32 {regs[0]}, {at};", access.what)
            else:
                b.emit(f"ld.shared.v{access.width}.f32 {{{', '.join(regs)}}}, {at};", access.what)

    def _frag_delta(self, access: SmemAccess) -> Optional[int]:
        """offset - fragment base, when the same for every thread of the block (then
        the load is base register + immediate), else None."""
        key = id(access)
        if key not in self._deltas:
            _, base = _frag_bases(self.cfg)[access.operand]
            deltas = {access.offset(tv) - base(tv) for tv in self._numeric}
            self._deltas[key] = deltas.pop() if len(deltas) == 1 else None
        return self._deltas[key]

    def ffmas(self, buf: int) -> None:
        r = self.plan.regs
        for i, j in r.ffma_order:
            c = _r(r.acc[i][j])
            self.b.emit(f"{FFMA} {c}, {_r(r.frag_a[buf][i])}, {_r(r.frag_b[buf][j])}, {c};")

    def steps(self, steps, ptrs: Dict[str, str]) -> None:
        for kind, arg in steps:
            if kind == "comment":
                self.b.comment(arg)
            elif kind == "loads":
                self.slice_loads(arg, ptrs)
            else:
                self.ffmas(arg)

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

    # -- the whole kernel
    def body(self) -> None:
        cfg, b, r = self.cfg, self.b, self.plan.regs
        b.memo = {}
        self._deltas: Dict[int, Optional[int]] = {}
        self._numeric = [ThreadVars.numeric(cfg, t) for t in range(cfg.threads)] if cfg.stages else []
        self.params()
        self.thread_values()
        b.comment("register plan: accumulators")
        for row in r.acc:
            for a in row:
                self.f32(a)
        if self.mode != "ranges":
            self.zero_accumulators()
        for bufs in (r.frag_a, r.frag_b):
            for buf in bufs:
                for x in buf:
                    self.f32(x)
        if cfg.stages == 0:
            self.loop_stages0()
        else:
            for copy in self.plan.a_copies + self.plan.b_copies:
                for x in copy.regs:
                    self.f32(x)
            self.vec_ok_pred = {}
            if cfg.vec == 4:
                # block-uniform halves of a_tile_full / b_tile_full (the k0 test is per tile).
                # Stream-K moves A by kt_begin * BK floats and B by that many rows: with
                # BK % 4 == 0 (vec 4 needs it) the alignment stays as tested here.
                self.vec_ok_pred["A"] = self.vec_ok("A", "lda")
                self.vec_ok_pred["B"] = self.vec_ok("B", "ldb")
            self.smem_setup()
            if self.mode == "ranges":
                self.item_loop()
                return
            self.k_tiles = self.named("k_tiles")
            kt1 = b.op("add.s32", self.p["K"], cfg.bk - 1)
            b.emit(f"div.s32 {self.k_tiles}, {kt1}, {cfg.bk};", "k_tiles = ceil(K / BK)")
            self.tile_setup()
            b.memo = None  # below: loops and branches; no reuse across them
            self.k_loop()
        b.memo = None
        b.comment("epilogue: C = alpha * acc + beta * C")
        self.epilogue()
        b.emit("ret;")

    def zero_accumulators(self) -> None:
        init = _NEG_ZERO if self.cfg.sass_pass else _ZERO  # config.py, sass_pass: no CS2R pairs
        for row in self.plan.regs.acc:
            for a in row:
                self.b.emit(f"mov.f32 {_r(a)}, {init};")

    def tile_setup(self) -> None:
        """What depends on the block's tile: the interior-tile predicates and the copies'
        sources."""
        cfg, b = self.cfg, self.b
        self.tile_ok = {}
        if cfg.vec == 4:
            m_end = b.op("add.s32", self.block_m, cfg.bm)
            n_end = b.op("add.s32", self.block_n, cfg.bn)
            self.tile_ok["A"] = self.setp("le", m_end, self.p["M"], self.vec_ok_pred["A"])
            self.tile_ok["B"] = self.setp("le", n_end, self.p["N"], self.vec_ok_pred["B"])
        self.copy_setup()

    def k_loop(self) -> None:
        (self.loop_stages1 if self.cfg.stages == 1 else self.loop_stages2)()

    # -- stream-K: the block runs its items of the work list (codegen/streamk.py)
    def item_loop(self) -> None:
        """for w in starts[b] .. starts[b+1]-1: item (tile, kt_begin, kt_end, slot, first,
        count) -> the one-pass kernel's tile setup, k loop and epilogue on A, B and K narrowed
        to the item's K range.  A later piece of a split tile (slot >= 0) stores its
        accumulators to its slot and raises the slot's flag; the tile's first piece (count >
        0), the last item of its block, waits for the flags of slots first .. first+count-1,
        adds them to its accumulators in K order and writes C (codegen/streamk.py)."""
        cfg, b = self.cfg, self.b
        b.memo = None  # a loop: nothing computed inside is reused across items
        w, w_end = self.named("item"), self.named("item_end")
        at = b.op("add.s64", self.p["startsg"], b.op("mul.wide.u32", b.op("mov.u32", "%ctaid.x"), 4, typ=".b64"),
                  typ=".b64")
        b.emit(f"ld.global.nc.u32 {w}, [{at}];", "this block's items: starts[b] .. starts[b+1]-1")
        b.emit(f"ld.global.nc.u32 {w_end}, [{at}+4];")
        leader = self.setp("eq", self.tid, 0)
        top, done = b.label("item"), b.label("items_done")
        b.place(top)
        last = self.setp("ge", w, w_end)
        b.emit(f"@{last} bra.uni {done};")
        tile, kt0, kt1, slot, first, count = (self.named(x) for x in (
            "item_tile", "item_kt0", "item_kt1", "item_slot", "item_first", "item_count"))
        at = b.op("add.s64", self.p["itemsg"], b.op("mul.wide.u32", w, streamk.ITEM_BYTES, typ=".b64"), typ=".b64")
        b.emit(f"ld.global.nc.v4.u32 {{{tile}, {kt0}, {kt1}, {slot}}}, [{at}];",
               "(tile_m << 16 | tile_n, kt_begin, kt_end, slot)")
        b.emit(f"ld.global.nc.v2.u32 {{{first}, {count}}}, [{at}+16];", "slots to add: first, count")
        b.emit(f"shr.u32 {self.block_m}, {tile}, 16;")
        b.emit(f"mul.lo.s32 {self.block_m}, {self.block_m}, {cfg.bm};")
        b.emit(f"and.b32 {self.block_n}, {tile}, 65535;")
        b.emit(f"mul.lo.s32 {self.block_n}, {self.block_n}, {cfg.bn};")
        k_first = b.op("mul.lo.s32", kt0, cfg.bk)
        k_end = b.op("min.s32", b.op("mul.lo.s32", kt1, cfg.bk), self.p["K"])
        full = dict(self.p)
        self.p["K"] = self.named("item_K")
        b.emit(f"sub.s32 {self.p['K']}, {k_end}, {k_first};", "K of this item's range")
        self.p["Ag"] = self.named("item_A", ".b64")
        b.emit(f"add.s64 {self.p['Ag']}, {full['Ag']}, {self.k_offset('A', k_first)};",
               "A moved to " + ("row" if self.k_in_line("A") else "column") + " kt_begin * BK")
        self.p["Bg"] = self.named("item_B", ".b64")
        boff = self.k_offset("B", k_first)
        b.emit(f"add.s64 {self.p['Bg']}, {full['Bg']}, {boff};",
               "B moved to " + ("row" if self.k_in_line("B") else "column") + " kt_begin * BK")
        self.k_tiles = self.named("k_tiles")
        b.emit(f"sub.s32 {self.k_tiles}, {kt1}, {kt0};")
        self.zero_accumulators()
        self.tile_setup()
        self.k_loop()
        self.p = full
        partial, stored, direct = b.label("partial"), b.label("item_stored"), b.label("direct")
        part = self.setp("ge", slot, 0)
        b.emit(f"@{part} bra.uni {partial};")
        none = self.setp("eq", count, 0)
        b.emit(f"@{none} bra.uni {direct};")
        b.comment("the first piece of a split tile: wait for the later pieces, add them in K order")
        self.fixup(first, count, leader)
        b.place(direct)
        b.comment("a whole tile (or a split one, summed): C = alpha * acc + beta * C")
        self.epilogue()
        b.emit(f"bra.uni {stored};")
        b.place(partial)
        b.comment("a later piece of a split tile: the accumulators to partial slot `slot` (BM x BN, "
                  "thread-major), then its flag")
        self.epilogue_partial(slot)
        b.emit("bar.sync 0;", "every thread's partial stored ...")
        flag = self.flag_address(slot)
        b.emit(f"@{leader} fence.acq_rel.gpu;", "... and visible GPU-wide before the flag")
        b.emit(f"@{leader} st.relaxed.gpu.global.u32 [{flag}], 1;")
        b.place(stored)
        b.emit("bar.sync 0;", "every warp is done with shared memory before the next item's first tile lands")
        b.emit(f"add.s32 {w}, {w}, 1;")
        b.emit(f"bra.uni {top};")
        b.place(done)
        b.emit("ret;")

    def flag_address(self, slot: str) -> str:
        b = self.b
        return b.op("add.s64", self.p["flagsg"], b.op("mul.wide.u32", slot, 4, typ=".b64"), typ=".b64")

    def fixup(self, first: str, count: str, leader: str) -> None:
        """Thread 0 waits (acquire) for the flags of slots first .. first+count-1; then every
        thread adds each slot's values of its thread tile to its accumulators, slot by slot
        (K order: deterministic); thread 0 lowers the flags again for the next launch."""
        b, r = self.b, self.plan.regs
        p, end = self.named("fix_slot"), self.named("fix_end")
        b.emit(f"add.s32 {end}, {first}, {count};")
        b.emit(f"mov.u32 {p}, {first};")
        wait, waited = b.label("wait"), b.label("waited")
        skip = b.temp(".pred")
        b.emit(f"not.pred {skip}, {leader};")
        b.emit(f"@{skip} bra {waited};")
        b.place(wait)
        got = self.named("fix_flag")
        flag = self.flag_address(p)
        spin = b.label("spin")
        b.place(spin)
        b.emit(f"ld.acquire.gpu.global.u32 {got}, [{flag}];")
        unset = self.setp("eq", got, 0)
        b.emit(f"@{unset} bra {spin};")
        b.emit(f"add.s32 {p}, {p}, 1;")
        more = self.setp("lt", p, end)
        b.emit(f"@{more} bra {wait};")
        b.place(waited)
        b.emit("bar.sync 0;", "every later piece is in memory")
        b.emit("fence.acq_rel.gpu;")
        b.emit(f"mov.u32 {p}, {first};")
        add = b.label("add_slot")
        b.place(add)
        tmp = self.named("fix_v", ".f32")
        for i, j, at in self.slot_addresses(p):
            b.emit(f"ld.global.cg.f32 {tmp}, {at};")
            b.emit(f"add.rn.f32 {_r(r.acc[i][j])}, {_r(r.acc[i][j])}, {tmp};")
        b.emit(f"add.s32 {p}, {p}, 1;")
        more = self.setp("lt", p, end)
        b.emit(f"@{more} bra {add};")
        b.emit("bar.sync 0;", "every thread has read the slots")
        b.emit(f"mov.u32 {p}, {first};")
        clear, cleared = b.label("clear"), b.label("cleared")
        b.emit(f"@{skip} bra {cleared};")
        b.place(clear)
        b.emit(f"st.relaxed.gpu.global.u32 [{self.flag_address(p)}], 0;")
        b.emit(f"add.s32 {p}, {p}, 1;")
        more = self.setp("lt", p, end)
        b.emit(f"@{more} bra {clear};")
        b.place(cleared)

    def slot_addresses(self, slot: str):
        """(i, j, address operand) of accumulator (i, j) in partial slot `slot`: BM x BN floats
        laid out thread-major, element (i, j) of thread t at (i * TN + j) * threads + t.  Every
        piece of a tile runs the same thread mapping, so only the layout's consistency matters;
        thread-major makes each warp's store (and the fix-up's load) of one accumulator 32
        consecutive floats, four full sectors, where the tile's row-major layout spread a warp
        over sixteen (measured: the scalar partial stores held 5% of the ranges kernel's warp
        samples in lg_throttle at 4097^3).  One 64-bit address, constant offsets."""
        cfg, b = self.cfg, self.b
        base = b.op("add.s64", self.p["partialsg"], b.op("mul.wide.u32", slot, 4 * cfg.bm * cfg.bn, typ=".b64"),
                    typ=".b64")
        base = b.op("add.s64", base, b.op("mul.wide.u32", self.tid, 4, typ=".b64"), typ=".b64")
        for i in range(cfg.tm):
            for j in range(cfg.tn):
                yield i, j, _addr(base, 4 * (i * cfg.tn + j) * cfg.threads)

    def epilogue_partial(self, slot: str) -> None:
        """acc -> partial slot `slot` (slot_addresses: no bounds, the slot holds the whole
        tile, every thread's whole thread tile).  One float a store: a
        vector store would pin four accumulators into an aligned quad, which the SASS
        pass must keep free to rename (the one-pass epilogue stores fma results)."""
        for i, j, at in self.slot_addresses(slot):
            self.b.emit(f"st.global.f32 {at}, {_r(self.plan.regs.acc[i][j])};")

    def module_header(self) -> List[str]:
        cfg = self.cfg
        out = ["//"] + [f"// {ln}".rstrip() for ln in _header(self.plan, self.name)]
        out += ["//", f"// FFMA issue order per k-slice: plan.regs.ffma_order ({cfg.ffma_order}), {FFMA} "
                      f"%c<i>_<j>, %a<buf>_<i>, %b<buf>_<j>, %c<i>_<j>",
                "//", "",
                f".version {PTX_VERSION}", f".target {self.arch}  {_TARGET_MARK}", ".address_size 64", ""]
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
            out.append(_mincta_line(cfg.min_blocks, self.arch))
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


def _mincta_line(min_blocks: int, arch: str) -> str:
    directive = f".minnctapersm {min_blocks}"
    return (directive if arch == "sm_90" else "// " + directive) + f"  {_MINCTA_MARK}"


def for_arch(text: str, arch: str) -> str:
    """The same PTX retargeted: the `.target` line, and `.minnctapersm` applied on
    sm_90 only.  Only the two marked lines change."""
    if arch not in SUPPORTED_ARCHS:
        raise ValueError(f"unknown arch {arch!r}: regtile targets {', '.join(SUPPORTED_ARCHS)}")
    text = re.sub(r"^\.target sm_\d+  " + re.escape(_TARGET_MARK) + "$", f".target {arch}  {_TARGET_MARK}",
                  text, count=1, flags=re.M)
    return re.sub(r"^(?://\s)?\.minnctapersm (\d+)  " + re.escape(_MINCTA_MARK) + "$",
                  lambda m: _mincta_line(int(m.group(1)), arch), text, flags=re.M)  # every entry's


def target_of(text: str) -> Optional[str]:
    m = re.search(r"^\.target (sm_\d+)", text, flags=re.M)
    return m.group(1) if m else None


def emit_sgemm_ptx(cfg: SgemmConfig, arch: str = DEFAULT_ARCH) -> KernelSource:
    """The SGEMM kernel of `cfg` as PTX for `arch` (the compile step retargets it to
    the arch it builds; see for_arch)."""
    check_supported(cfg)
    if arch not in SUPPORTED_ARCHS:
        raise ValueError(f"unknown arch {arch!r}: regtile targets {', '.join(SUPPORTED_ARCHS)}")
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
        src = dataclasses.replace(src, edge=edge)
    return dataclasses.replace(src, text=text)


def _module_entries(cfg: SgemmConfig, arch: str) -> Tuple[List[str], KernelSource]:
    """(module header lines, KernelSource whose text is the module's entries without the
    header).  Stream-K (codegen/streamk.py): two entries - the whole tiles (the one-pass
    kernel, tile = block index) and the K ranges of the last wave's tiles."""
    k = _Kernel(cfg, arch)
    if not cfg.stream_k:
        header = k.module_header()
        return header, KernelSource(name=k.name, language="ptx", text="\n".join(k.entry()) + "\n",
                                    geometry=geometry(cfg), params=k.param_list)
    name = k.name
    whole = k.as_mode("linear", name)
    header = whole.module_header()
    whole_text = "\n".join(whole.entry()) + "\n"
    ranges = _Kernel(cfg, arch).as_mode("ranges", name + "_ranges")
    ranges_text = "\n".join(ranges.entry()) + "\n"
    geo = dataclasses.replace(geometry(cfg), stream_k=True, tile_k=cfg.bk)
    ranges_src = KernelSource(name=ranges.name, language="ptx", text=ranges_text, geometry=geo,
                              params=ranges.param_list)
    return header, KernelSource(name=name, language="ptx", text=whole_text + "\n" + ranges_text,
                                geometry=geo, params=whole.param_list, ranges=ranges_src)


def ffma_sequence(text: str) -> List[Tuple[str, str, str, str]]:
    """(d, a, b, c) register names of every fma.rn.f32 of a PTX text, in text order."""
    return [tuple(x.strip() for x in m.group(1).split(","))
            for m in re.finditer(r"^\s*fma\.rn\.f32 ([^;]+);", text, flags=re.M)
            if m.group(1).split(",")[0].strip().startswith("%c")]
