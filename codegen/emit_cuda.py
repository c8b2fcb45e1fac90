"""CUDA C renderer: spells the kernel program (codegen/program.py) as CUDA C text, laid out by
templates/sgemm.cu.j2.

The program decides every step (which copies happen when, the fragment loads, the FFMA walk,
the epilogue and its guards); here each step becomes statements, with the addresses of
mapping.py's index functions evaluated on symbols (expr.Sym) and printed as C.  The template
only places the lines.
"""
from __future__ import annotations

import dataclasses
from typing import List

from . import mapping as mp
from . import program as pg
from .config import SgemmConfig
from .expr import Sym, _wrap, c_expr
from .kernel import XYZW, KernelSource, c_params
from .plan import GlobalCopy, SmemAccess, ThreadVars, make_plan, require_sgemm_config
from .program import geometry, kernel_name  # noqa: F401  (the kernel's symbol and launch, for callers)
from . import splitk
from .templates import render

TV = ThreadVars.symbolic()


# ---- statements -------------------------------------------------------------------
def _copy_names(copy: GlobalCopy, r: int):
    """Per-thread names of one copy: its source pointer and its tile coordinates."""
    p = copy.operand.lower()
    return f"{p}_src{r}", f"{p}_row{r}", f"{p}_col{r}"


def _global_offset(line, off, ld: str) -> str:
    """`(size_t)line * ld + off`: the float offset of (line, offset) (mapping.a/b_element)."""
    if isinstance(line, int) and line == 0:
        return c_expr(off)
    head = f"(size_t){_wrap(line)._paren()} * {ld}"
    return head if isinstance(off, int) and off == 0 else f"{head} + {c_expr(off)}"


def _global_at(ptr: str, line, off, ld: str) -> str:
    """`ptr + (size_t)line * ld + off`: the address of (line, offset)."""
    return f"{ptr} + {_global_offset(line, off, ld)}"


def _element(operand: str):
    """(mapping.a_element or b_element, its leading dimension, the operand's pointer)."""
    return (mp.a_element, "lda", "A") if operand == "A" else (mp.b_element, "ldb", "B")


def _copy_global(prog: pg.KernelProgram, copy: GlobalCopy, r: int, k0: str):
    """(m, k) of A's (or (k, n) of B's) copy r in the whole matrix at k-tile start `k0` (""
    for k = 0): each dimension's origin (program.TileDim) + the copy's tile coordinate."""
    out = []
    for dim, name in zip(prog.dims[copy.operand], _copy_names(copy, r)[1:]):
        origin = k0 if dim.origin == "k0" else dim.origin
        out.append(Sym(origin) + Sym(name) if origin else Sym(name))
    return tuple(out)


def _copy_setup(prog: pg.KernelProgram, copies, split: bool = False) -> List[str]:
    """Before the k-loop: each copy's tile coordinates and source pointer at k = 0.
    Per k-tile the pointer only advances (by BK along K: floats or rows, as the
    operand's layout has it), so the loop carries no 64-bit index arithmetic.  Split-K:
    k = 0 is the split's k_begin, folded in here (a shifted base pointer would stay live
    in registers)."""
    cfg, lines = prog.cfg, []
    for r, copy in enumerate(copies):
        src, row_n, col_n = _copy_names(copy, r)
        row, col = (c_expr(x) for x in copy.coords(TV))
        element, ld, ptr = _element(copy.operand)
        base = _global_at(ptr, *element(cfg, *_copy_global(prog, copy, r, "k_begin" if split else "")), ld)
        lines += [f"const int {row_n} = {row}, {col_n} = {col};  // {copy.operand} tile coordinates of copy {r}",
                  f"const float* const {src} = {base};"]
    return lines


def _load_global(prog: pg.KernelProgram, copy: GlobalCopy, r: int, tile_guard: bool) -> List[str]:
    """Global -> staging registers for one vector of a tile, bounds-checked (the program's
    OperandLoads guard): "tile", the float4 in an interior tile or where the whole vector
    is inside and aligned, else each float; "element", each float.  The vector runs along
    the operand's unit stride (mapping.a/b_element's offset)."""
    cfg, src = prog.cfg, _copy_names(copy, r)[0]
    element, ld, _ = _element(copy.operand)
    ok = f"{copy.operand.lower()}_vec_ok"
    gr, gc = (c_expr(x) for x in element(cfg, *_copy_global(prog, copy, r, "k0")))
    rlim, clim = (c_expr(x) for x in element(cfg, *(Sym(d.bound) for d in prog.dims[copy.operand])))
    k_line, k_off = element(cfg, Sym("k0"), 0) if copy.operand == "B" else element(cfg, 0, Sym("k0"))
    at = _global_at(src, k_line, k_off, ld)
    lines = [f"{{  // {copy.operand} copy {r}",
             f"    const float* src = {at};"]
    w = copy.width
    scalar = [f"{reg} = ({gr} < {rlim} && {gc} + {e} < {clim}) ? src[{e}] : 0.f;"
              for e, reg in enumerate(copy.regs)]
    if not tile_guard:
        lines += ["    " + s for s in scalar]
    else:
        # Interior tiles (a block-uniform test, made once per k-tile) take the
        # unchecked float4 load; edge tiles check each vector, then each float.
        unpack = " ".join(f"{reg} = v.{XYZW[e]};" for e, reg in enumerate(copy.regs))
        lines += [f"    if ({copy.operand.lower()}_tile_full || ({ok} && {gr} < {rlim} && {gc} + {w - 1} < {clim})) {{",
                  f"        const float4 v = __ldg(reinterpret_cast<const float4*>(src)); {unpack}",
                  "    } else {"]
        lines += ["        " + s for s in scalar]
        lines += ["    }"]
    lines.append("}")
    return lines


def _tile_flags(loads) -> List[str]:
    """Block-uniform tests, once per k-tile: is the whole A (B) tile inside the
    matrix with 16-byte aligned rows?  Then every vector load of it is safe."""
    return [f"const bool {o.operand.lower()}_tile_full = {o.operand.lower()}_vec_ok && "
            + " && ".join(f"{d.origin} + {d.extent} <= {d.bound}" for d in o.dims) + ";" for o in loads]


def _store_shared(access: SmemAccess, buf: str) -> str:
    off = c_expr(access.offset(TV))
    if access.width == 1:
        return f"{buf}[{off}] = {access.regs[0]};  // {access.what}"
    return (f"*reinterpret_cast<float4*>(&{buf}[{off}]) = make_float4({', '.join(access.regs)});"
            f"  // {access.what}")


def _relative(ref: pg.SmemRef, bases) -> str:
    """`a_frag[delta]` where the program found a constant distance from the fragment base,
    else `cur[full expression]`."""
    if ref.delta is not None:
        return f"{bases[ref.operand].name}[{ref.delta}]"
    return f"cur[{c_expr(ref.offset(TV))}]"


def _load_shared(access: SmemAccess, ref: pg.SmemRef, bases) -> str:
    at = _relative(ref, bases)
    if access.width == 1:
        return f"{access.regs[0]} = {at};"
    unpack = " ".join(f"{reg} = v.{XYZW[e]};" for e, reg in enumerate(access.regs))
    return f"{{ const float4 v = *reinterpret_cast<const float4*>(&{at}); {unpack} }}"


def _frag_pointers(prog: pg.KernelProgram, buf: str) -> List[str]:
    return [f"const float* const {base.name} = {buf} + {c_expr(base.offset(TV))};"
            for base in prog.frag_bases.values()]


def _naive_load(cfg: SgemmConfig, load: pg.DirectLoad, split: bool) -> str:
    """stages=0: a fragment straight from global memory at k (split-K: k counts from the
    split's k_begin)."""
    kk = Sym("(k_begin + k)" if split else "k")
    idx, dim = load.index(TV), load.block_dim
    coords = [kk if d.origin == "k0" else Sym(d.origin) + idx for d in load.dims]
    element, ld, ptr = _element(load.operand)
    at = _global_offset(*element(cfg, *coords), ld)
    return f"{load.reg} = ({dim.origin} + {c_expr(idx)} < {dim.bound}) ? {ptr}[{at}] : 0.f;"


# ---- the program's steps as statements -------------------------------------------------
_K0 = {"first": "0", "this": "kt * {bk}", "next": "(kt + 1) * {bk}"}
_STAGE = {"only": "smem", "first": "smem", "next": "smem + ((kt + 1) & 1) * {sf}"}


class _Renderer:
    def __init__(self, prog: pg.KernelProgram):
        self.prog, self.cfg = prog, prog.cfg
        self.split = prog.k_range == "split"

    def lines(self, steps) -> List[str]:
        out: List[str] = []
        for step in steps:
            out += getattr(self, "_" + type(step).__name__)(step)
        return out

    def _inner(self, steps) -> List[str]:
        return ["    " + ln for ln in self.lines(steps)]

    def _Comment(self, s: pg.Comment):
        return [f"// {s.text}"]

    def _LoadFrags(self, s: pg.LoadFrags):
        return [_load_shared(access, ref, self.prog.frag_bases) for access, ref in s.loads]

    def _Ffmas(self, s: pg.Ffmas):
        def spell(x):  # a fragment register, or a float of shared memory
            return x if isinstance(x, str) else _relative(x, self.prog.frag_bases)
        return [f"{c} = fmaf({spell(a)}, {spell(b)}, {c});" for c, a, b in s.ops]

    def _LoadTile(self, s: pg.LoadTile):
        cfg = self.cfg
        out = [f"const int k0 = {_K0[s.tile].format(bk=cfg.bk)};"]
        out += _tile_flags([o for o in s.operands if o.guard == "tile"])
        for o in s.operands:
            for r, c in enumerate(o.copies):
                out += _load_global(self.prog, c, r, o.guard == "tile")
        return out

    def _StoreTile(self, s: pg.StoreTile):
        head = f"float* const st = {_STAGE[s.stage].format(sf=self.cfg.smem_floats_per_stage)};"
        return [head] + [_store_shared(a, "st") for c in s.copies for a in c.stores]

    def _Barrier(self, s):
        return ["__syncthreads();"]

    def _Scope(self, s: pg.Scope):
        return ["{"] + self._inner(s.steps) + ["}"]

    def _IfNext(self, s: pg.IfNext):
        return ["if (has_next) {"] + self._inner(s.steps) + ["}"]

    def _Compute(self, s: pg.Compute):
        sf = self.cfg.smem_floats_per_stage
        decl, buf = {"only": ("const float* const cur = smem;", "cur"), "first": (None, "smem"),
                     "this": (None, "cur"),
                     "next": (f"const float* const nxt = smem + ((kt + 1) & 1) * {sf};", "nxt")}[s.stage]
        return ([decl] if decl else []) + _frag_pointers(self.prog, buf) + self.lines(s.steps)

    def _TileLoop(self, s: pg.TileLoop):
        head = ["for (int kt = 0; kt < k_tiles; ++kt) {"]
        if s.stages == 2:
            head += [f"    const float* const cur = smem + (kt & 1) * {self.cfg.smem_floats_per_stage};",
                     "    const bool has_next = kt + 1 < k_tiles;"]
        return head + self._inner(s.steps) + ["}"]

    def _Pipeline(self, s: pg.Pipeline):
        return ["// two shared-memory stages: tile kt+1 travels global -> registers while tile kt",
                "// is computed, then lands in the other stage; one barrier per k-tile."] + self.lines(s.steps)

    def _KLoop(self, s: pg.KLoop):
        return ["for (int k = 0; k < K; ++k) {"] + self._inner(s.steps) + ["}"]

    def _DirectLoad(self, s: pg.DirectLoad):
        return [_naive_load(self.cfg, s, self.split)]

    def epilogue(self) -> List[str]:
        """C = alpha * acc + beta * C (C read only when beta != 0), or split-K's partial tile
        W[split] = acc: every row under M, every column under N; a float4 group's vector store
        where the piece is inside N and the rows aligned (c_vec_ok), else its floats."""
        e = self.prog.epilogue
        partial = e.target == "workspace"
        lines = ["// epilogue: W[split] = acc (the reduce kernel applies alpha and beta)" if partial else
                 "// epilogue: C = alpha * acc + beta * C"]
        if partial:
            lines += splitk.partial_store_setup(self.prog.load_guard == "tile")
        dest, ld = ("Wz", "N") if partial else ("C", "ldc")
        for row in e.rows:
            rexpr = c_expr(row.row(TV))
            lines.append(f"if (block_m + {rexpr} < M) {{")
            lines.append(f"    float* crow = {dest} + (size_t)(block_m + {rexpr}) * {ld} + block_n;")
            for g in row.groups:
                col = c_expr(g.col(TV))
                value = (lambda a, e_: a) if partial else \
                    (lambda a, e_: f"alpha * {a} + (beta != 0.f ? beta * crow[{col} + {e_}] : 0.f)")
                scalar = [f"if (block_n + {col} + {k} < N) crow[{col} + {k}] = {value(a, k)};"
                          for k, a in enumerate(g.accs)]
                if len(g.accs) == 1:
                    lines += ["    " + x.replace(" + 0", "") for x in scalar]
                    continue
                lines.append(f"    if (c_vec_ok && block_n + {col} + 3 < N) {{")
                if partial:
                    accs = ", ".join(g.accs)
                    lines.append(f"        *reinterpret_cast<float4*>(crow + {col}) = make_float4({accs});")
                else:
                    lines.append(f"        float4* dst = reinterpret_cast<float4*>(crow + {col});")
                    lines.append("        float4 o = make_float4(0.f, 0.f, 0.f, 0.f);")
                    lines.append("        if (beta != 0.f) o = *dst;")
                    comps = ", ".join(f"alpha * {a} + beta * o.{XYZW[k]}" for k, a in enumerate(g.accs))
                    lines.append(f"        *dst = make_float4({comps});")
                lines.append("    } else {")
                lines += ["        " + x for x in scalar]
                lines.append("    }")
            lines.append("}")
        return lines


# Strided batch: the batch's matrices, before anything reads a pointer (the float4 tests
# included: a stride that is not a multiple of 4 floats misaligns the operand).
BATCH_PROLOGUE = [
    "// strided batch: blockIdx.z is the batch index, strides in floats (0 broadcasts)",
    "A += (long long)blockIdx.z * stride_a;",
    "B += (long long)blockIdx.z * stride_b;",
    "C += (long long)blockIdx.z * stride_c;",
]


def emit_sgemm_cuda(cfg: SgemmConfig) -> KernelSource:
    """The kernel of `cfg`; with split_k > 1 the split-K partial kernel, its text
    followed by the reduce kernel's (one module), which the module's "reduce" entry also
    holds with its own parameters and launch geometry (codegen/splitk.py)."""
    require_sgemm_config(cfg, "emit_sgemm_cuda")
    plan = make_plan(cfg)
    prog = pg.kernel_program(plan)
    name = kernel_name(cfg)
    r = plan.regs
    split = prog.k_range == "split"
    params = prog.params
    staging = [reg for c in plan.a_copies + plan.b_copies for reg in c.regs]
    out = _Renderer(prog)
    acc_init = {"-0": "-0.f", "0": "0.f"}[prog.acc_init]
    ctx = dict(
        name=name,
        header=pg.header_lines(plan, name),
        threads=cfg.threads,
        min_blocks=cfg.min_blocks,
        params=c_params(params),
        prologue=(splitk.partial_pdl() + splitk.partial_prologue(cfg.bk, cfg.split_k, cfg.batched) if split
                  else BATCH_PROLOGUE if cfg.batched else []),
        staged=bool(cfg.stages),
        bm=cfg.bm, bn=cfg.bn, bk=cfg.bk,
        row0=c_expr(mp.thread_origin(cfg, TV.tid)[0]),
        col0=c_expr(mp.thread_origin(cfg, TV.tid)[1]),
        acc_decls=[", ".join(f"{a} = {acc_init}" for a in row) for row in r.acc],
        frag_decls=[", ".join(b) for b in r.frag_a + r.frag_b],
        staging_decl=", ".join(staging),
        vec_ok=_VEC_OK if prog.load_guard == "tile" else [],
        copy_setup=_copy_setup(prog, plan.a_copies, split) + _copy_setup(prog, plan.b_copies, split),
        c_vec_ok=_C_VEC_OK if prog.load_guard == "tile" and prog.epilogue.target == "C" else [],
        main=out.lines(prog.main),
        epilogue=out.epilogue(),
    )
    text = render("sgemm.cu.j2", **ctx)
    if not split:
        return KernelSource(name=name, language="cuda", text=text, geometry=geometry(cfg), params=params,
                            trans_a=cfg.trans_a, trans_b=cfg.trans_b)
    reduce = splitk.emit_reduce(cfg.split_k, cfg.batched)
    geo = dataclasses.replace(geometry(cfg), programmatic=splitk.PARTIAL_PROGRAMMATIC)  # splitk.partial_pdl
    return KernelSource(name=name, language="cuda", text=text + "\n" + reduce.text, geometry=geo,
                        params=params, entries=(("reduce", reduce),), trans_a=cfg.trans_a, trans_b=cfg.trans_b)


_VEC_OK = ["// float4 global accesses need 16-byte aligned rows",
           "const bool a_vec_ok = (lda % 4 == 0) && (reinterpret_cast<size_t>(A) % 16 == 0);",
           "const bool b_vec_ok = (ldb % 4 == 0) && (reinterpret_cast<size_t>(B) % 16 == 0);"]
_C_VEC_OK = ["const bool c_vec_ok = (ldc % 4 == 0) && (reinterpret_cast<size_t>(C) % 16 == 0);"]

