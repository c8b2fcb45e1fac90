"""CUDA C backend: lays a plan out as kernel text through templates/sgemm.cu.j2.

Every statement is decided here, from the plan and the index functions of
mapping.py evaluated on symbols; the template only places the lines.
"""
from __future__ import annotations

import dataclasses
import hashlib
from typing import List

from . import mapping as mp
from .config import SgemmConfig
from .expr import Sym, _wrap, c_expr
from .kernel import SGEMM_PARAMS, SPLITK_PARAMS, KernelSource, LaunchGeometry, with_batch
from .plan import GlobalCopy, SgemmPlan, SmemAccess, ThreadVars, make_plan, require_sgemm_config
from . import splitk
from .templates import render

TV = ThreadVars.symbolic()
_XYZW = "xyzw"


def kernel_name(cfg: SgemmConfig) -> str:
    """A stable symbol derived from the config alone (same config, same name)."""
    digest = hashlib.sha1(repr(sorted(cfg.to_dict().items())).encode()).hexdigest()[:10]
    return f"regtile_sgemm_{cfg.bm}x{cfg.bn}x{cfg.bk}_{cfg.tm}x{cfg.tn}_{digest}"


def geometry(cfg: SgemmConfig) -> LaunchGeometry:
    return LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=cfg.bm, tile_n=cfg.bn,
                          dynamic_smem_bytes=cfg.smem_bytes, batched=cfg.batched)


# ---- statements -------------------------------------------------------------------
def _copy_names(copy: GlobalCopy, r: int):
    """Per-thread names of one copy: its source pointer and its tile coordinates."""
    p = copy.operand.lower()
    return f"{p}_src{r}", f"{p}_row{r}", f"{p}_col{r}"


def _global_at(ptr: str, line, off, ld: str) -> str:
    """`ptr + (size_t)line * ld + off`: the address of (line, offset) (mapping.a/b_element)."""
    if isinstance(line, int) and line == 0:
        return f"{ptr} + {c_expr(off)}"
    head = f"{ptr} + (size_t){_wrap(line)._paren()} * {ld}"
    return head if isinstance(off, int) and off == 0 else f"{head} + {c_expr(off)}"


def _element(copy: GlobalCopy):
    """(mapping.a_element or b_element, its leading dimension, the operand's pointer)."""
    return (mp.a_element, "lda", "A") if copy.operand == "A" else (mp.b_element, "ldb", "B")


def _copy_global(cfg: SgemmConfig, copy: GlobalCopy, r: int, k0: str):
    """(m, k) of A's (or (k, n) of B's) copy r in the whole matrix at k-tile start `k0`."""
    _, row_n, col_n = _copy_names(copy, r)
    if copy.operand == "A":
        return Sym("block_m") + Sym(row_n), (Sym(k0) + Sym(col_n) if k0 else Sym(col_n))
    return (Sym(k0) + Sym(row_n) if k0 else Sym(row_n)), Sym("block_n") + Sym(col_n)


def _copy_setup(cfg: SgemmConfig, copies, split: bool = False) -> List[str]:
    """Before the k-loop: each copy's tile coordinates and source pointer at k = 0.
    Per k-tile the pointer only advances (by BK along K: floats or rows, as the
    operand's layout has it), so the loop carries no 64-bit index arithmetic.  Split-K:
    k = 0 is the split's k_begin, folded in here (a shifted base pointer would stay live
    in registers)."""
    lines = []
    for r, copy in enumerate(copies):
        src, row_n, col_n = _copy_names(copy, r)
        row, col = (c_expr(x) for x in copy.coords(TV))
        element, ld, ptr = _element(copy)
        base = _global_at(ptr, *element(cfg, *_copy_global(cfg, copy, r, "k_begin" if split else "")), ld)
        lines += [f"const int {row_n} = {row}, {col_n} = {col};  // {copy.operand} tile coordinates of copy {r}",
                  f"const float* const {src} = {base};"]
    return lines


def _load_global(cfg: SgemmConfig, copy: GlobalCopy, r: int) -> List[str]:
    """Global -> staging registers for one vector of a tile, bounds-checked.
    A vector load is used only when the whole vector is inside the matrix and the
    matrix rows are 16-byte aligned; otherwise each float is loaded on its own.
    The vector runs along the operand's unit stride (mapping.a/b_element's offset)."""
    src, row_n, col_n = _copy_names(copy, r)
    element, ld, _ = _element(copy)
    ok = f"{copy.operand.lower()}_vec_ok"
    gr, gc = (c_expr(x) for x in element(cfg, *_copy_global(cfg, copy, r, "k0")))
    rlim, clim = (c_expr(x) for x in (element(cfg, Sym("M"), Sym("K")) if copy.operand == "A"
                                      else element(cfg, Sym("K"), Sym("N"))))
    k_line, k_off = element(cfg, Sym("k0"), 0) if copy.operand == "B" else element(cfg, 0, Sym("k0"))
    at = _global_at(src, k_line, k_off, ld)
    lines = [f"{{  // {copy.operand} copy {r}",
             f"    const float* src = {at};"]
    w = copy.width
    scalar = [f"{reg} = ({gr} < {rlim} && {gc} + {e} < {clim}) ? src[{e}] : 0.f;"
              for e, reg in enumerate(copy.regs)]
    if w == 1:
        lines += ["    " + s for s in scalar]
    else:
        # Interior tiles (a block-uniform test, made once per k-tile) take the
        # unchecked float4 load; edge tiles check each vector, then each float.
        unpack = " ".join(f"{reg} = v.{_XYZW[e]};" for e, reg in enumerate(copy.regs))
        lines += [f"    if ({copy.operand.lower()}_tile_full || ({ok} && {gr} < {rlim} && {gc} + {w - 1} < {clim})) {{",
                  f"        const float4 v = __ldg(reinterpret_cast<const float4*>(src)); {unpack}",
                  "    } else {"]
        lines += ["        " + s for s in scalar]
        lines += ["    }"]
    lines.append("}")
    return lines


def _tile_flags(cfg: SgemmConfig) -> List[str]:
    """Block-uniform tests, once per k-tile: is the whole A (B) tile inside the
    matrix with 16-byte aligned rows?  Then every vector load of it is safe."""
    if cfg.vec == 1:
        return []
    return [f"const bool a_tile_full = a_vec_ok && block_m + {cfg.bm} <= M && k0 + {cfg.bk} <= K;",
            f"const bool b_tile_full = b_vec_ok && k0 + {cfg.bk} <= K && block_n + {cfg.bn} <= N;"]


def _store_shared(access: SmemAccess, buf: str) -> str:
    off = c_expr(access.offset(TV))
    if access.width == 1:
        return f"{buf}[{off}] = {access.regs[0]};  // {access.what}"
    return (f"*reinterpret_cast<float4*>(&{buf}[{off}]) = make_float4({', '.join(access.regs)});"
            f"  // {access.what}")


def _frag_bases(cfg: SgemmConfig):
    """Per-thread fragment base offsets: A at (row0, k=0), B at (k=0, col0).  Every
    fragment load of a k-tile is then base pointer + a constant, which ptxas folds
    into the LDS's immediate offset."""
    return {"A": ("a_frag", lambda tv: mp.as_index(cfg, tv.row0, 0)),
            "B": ("b_frag", lambda tv: mp.bs_index(cfg, 0, tv.col0))}


def _relative(cfg: SgemmConfig, operand: str, offset) -> str:
    """`ptr[delta]` for a shared-memory offset function, where delta is the same
    for every thread (checked over the whole block), else `cur[full expression]`."""
    name, base = _frag_bases(cfg)[operand]
    deltas = set()
    for tid in range(cfg.threads):
        tv = ThreadVars.numeric(cfg, tid)
        deltas.add(offset(tv) - base(tv))
    if len(deltas) == 1:
        return f"{name}[{deltas.pop()}]"
    return f"cur[{c_expr(offset(TV))}]"


def _load_shared(cfg: SgemmConfig, access: SmemAccess) -> str:
    at = _relative(cfg, access.operand, access.offset)
    if access.width == 1:
        return f"{access.regs[0]} = {at};"
    unpack = " ".join(f"{reg} = v.{_XYZW[e]};" for e, reg in enumerate(access.regs))
    return f"{{ const float4 v = *reinterpret_cast<const float4*>(&{at}); {unpack} }}"


def _ffmas(plan: SgemmPlan, buf: int) -> List[str]:
    r = plan.regs
    return [f"{r.acc[i][j]} = fmaf({r.frag_a[buf][i]}, {r.frag_b[buf][j]}, {r.acc[i][j]});"
            for i, j in r.ffma_order]


def _ffmas_from_smem(plan: SgemmPlan, kk: int) -> List[str]:
    """frag_regs=False (seed's tile2d): each FFMA names its operands in shared memory."""
    cfg, r = plan.cfg, plan.regs
    out = []
    for i, j in r.ffma_order:
        a = _relative(cfg, "A", lambda tv, i=i: mp.as_index(cfg, mp.tile_row(cfg, tv.row0, i), kk))
        b = _relative(cfg, "B", lambda tv, j=j: mp.bs_index(cfg, kk, mp.tile_col(cfg, tv.col0, j)))
        out.append(f"{r.acc[i][j]} = fmaf({a}, {b}, {r.acc[i][j]});")
    return out


def crosses_tiles(cfg: SgemmConfig) -> bool:
    """Register prefetch across k-tiles (seed 000): with two shared stages and an
    even BK, slice 0 of tile kt+1 is loaded right after the barrier, into the
    fragment buffer that slice BK-1 of tile kt does not use, so the FFMAs of that
    last slice hide the load's latency instead of the next tile waiting for it."""
    return cfg.stages == 2 and cfg.reg_prefetch and cfg.bk % 2 == 0


def _frag_pointers(cfg: SgemmConfig, buf: str) -> List[str]:
    return [f"const float* const {name} = {buf} + {c_expr(base(TV))};"
            for name, base in _frag_bases(cfg).values()]


def _slice_loads(plan: SgemmPlan, kk: int) -> List[str]:
    cfg = plan.cfg
    return [_load_shared(cfg, a) for a in plan.a_frag_loads[kk] + plan.b_frag_loads[kk]]


def ktile_schedule(cfg: SgemmConfig):
    """(preload, body, tail): the BK k-slices of one tile with register fragments,
    unrolled, as steps that each backend lays out as text: ("comment", text),
    ("loads", kk) - the fragment loads of k-slice kk (plan.a/b_frag_loads[kk]) -
    and ("ffmas", buf) - one k-slice's FFMAs from fragment buffer buf.

    With register prefetch the loads of slice kk+1 go into the other fragment
    buffer before the FFMAs of slice kk.  When the prefetch crosses tiles, slice 0
    is loaded before the loop (preload) and after each barrier, and the FFMAs of
    the last slice (tail) run after the barrier; otherwise preload and tail are
    empty and the body loads slice 0 itself."""
    nbuf = 2 if cfg.reg_prefetch else 1
    cross = crosses_tiles(cfg)
    body = []
    if nbuf == 2 and not cross:
        body += [("comment", "k-slice 0 fragments"), ("loads", 0)]
    last = cfg.bk - 1
    for kk in range(cfg.bk if not cross else last):
        body.append(("comment", f"k-slice {kk}"))
        if nbuf == 2:
            if kk + 1 < cfg.bk:
                body += [("comment", f"prefetch k-slice {kk + 1} fragments into buffer {(kk + 1) % 2}"),
                         ("loads", kk + 1)]
        else:
            body.append(("loads", kk))
        body.append(("ffmas", kk % nbuf))
    if not cross:
        return [], body, []
    preload = [("comment", "k-slice 0 fragments of the next tile (buffer 0)"), ("loads", 0)]
    tail = [("comment", f"k-slice {last} (buffer {last % 2}), after the barrier"), ("ffmas", last % 2)]
    return preload, body, tail


def _render_steps(plan: SgemmPlan, steps) -> List[str]:
    out: List[str] = []
    for kind, arg in steps:
        out += [f"// {arg}"] if kind == "comment" else \
            _slice_loads(plan, arg) if kind == "loads" else _ffmas(plan, arg)
    return out


def _compute_ktile(plan: SgemmPlan):
    """(preload, body, tail) of one k-tile as CUDA C lines (see ktile_schedule)."""
    cfg = plan.cfg
    body: List[str] = _frag_pointers(cfg, "cur")
    if not cfg.frag_regs:
        for kk in range(cfg.bk):
            body.append(f"// k-slice {kk}")
            body += _ffmas_from_smem(plan, kk)
        return [], body, []
    preload, main, tail = ktile_schedule(cfg)
    return _render_steps(plan, preload), body + _render_steps(plan, main), _render_steps(plan, tail)


def _naive_kstep(plan: SgemmPlan, split: bool = False) -> List[str]:
    """stages=0: one k at a time, operands straight from global memory (split-K:
    k counts from the split's k_begin)."""
    cfg, r = plan.cfg, plan.regs
    kk = "(k_begin + k)" if split else "k"
    lines = []
    for i in range(cfg.tm):
        row = c_expr(mp.tile_row(cfg, TV.row0, i))
        at = _global_at("", *mp.a_element(cfg, Sym("block_m") + mp.tile_row(cfg, TV.row0, i), Sym(kk)), "lda")
        lines.append(f"{r.frag_a[0][i]} = (block_m + {row} < M) ? A[{at[3:]}] : 0.f;")
    for j in range(cfg.tn):
        col = c_expr(mp.tile_col(cfg, TV.col0, j))
        at = _global_at("", *mp.b_element(cfg, Sym(kk), Sym("block_n") + mp.tile_col(cfg, TV.col0, j)), "ldb")
        lines.append(f"{r.frag_b[0][j]} = (block_n + {col} < N) ? B[{at[3:]}] : 0.f;")
    return lines + _ffmas(plan, 0)


def _epilogue(plan: SgemmPlan, partial: bool = False) -> List[str]:
    """C = alpha * acc + beta * C, bounds-checked; C is not read when beta == 0
    (BLAS semantics: C may hold NaN then).  float4 stores where a 4-column piece
    is inside the matrix and C's rows are 16-byte aligned.  partial (split-K): the
    accumulators themselves, to this split's workspace tile (_partial_epilogue)."""
    if partial:
        return _partial_epilogue(plan)
    cfg, r = plan.cfg, plan.regs
    vec_store = cfg.vec == 4 and cfg.piece_n % 4 == 0
    step = 4 if vec_store else 1
    lines = []
    for i in range(cfg.tm):
        row = c_expr(mp.tile_row(cfg, TV.row0, i))
        lines.append(f"if (block_m + {row} < M) {{")
        lines.append(f"    float* crow = C + (size_t)(block_m + {row}) * ldc + block_n;")
        for j in range(0, cfg.tn, step):
            col = c_expr(mp.tile_col(cfg, TV.col0, j))
            accs = r.acc[i][j:j + step]
            scalar = [f"if (block_n + {col} + {e} < N) crow[{col} + {e}] = alpha * {a} + "
                      f"(beta != 0.f ? beta * crow[{col} + {e}] : 0.f);" for e, a in enumerate(accs)]
            if step == 1:
                lines += ["    " + s.replace(" + 0", "") for s in scalar]
                continue
            lines.append(f"    if (c_vec_ok && block_n + {col} + 3 < N) {{")
            lines.append(f"        float4* dst = reinterpret_cast<float4*>(crow + {col});")
            lines.append("        float4 o = make_float4(0.f, 0.f, 0.f, 0.f);")
            lines.append("        if (beta != 0.f) o = *dst;")
            comps = ", ".join(f"alpha * {a} + beta * o.{_XYZW[e]}" for e, a in enumerate(accs))
            lines.append(f"        *dst = make_float4({comps});")
            lines.append("    } else {")
            lines += ["        " + s for s in scalar]
            lines.append("    }")
        lines.append("}")
    return lines


def _partial_epilogue(plan: SgemmPlan) -> List[str]:
    """Split-K: W[split] = acc over the same elements as the one-pass epilogue (rows
    < M, columns < N), float4 where a 4-column piece is inside and aligned."""
    cfg, r = plan.cfg, plan.regs
    vec_store = cfg.vec == 4 and cfg.piece_n % 4 == 0
    step = 4 if vec_store else 1
    lines = splitk.partial_store_setup(cfg.vec == 4)
    for i in range(cfg.tm):
        row = c_expr(mp.tile_row(cfg, TV.row0, i))
        lines.append(f"if (block_m + {row} < M) {{")
        lines.append(f"    float* crow = Wz + (size_t)(block_m + {row}) * N + block_n;")
        for j in range(0, cfg.tn, step):
            col = c_expr(mp.tile_col(cfg, TV.col0, j))
            accs = r.acc[i][j:j + step]
            scalar = [f"if (block_n + {col} + {e} < N) crow[{col} + {e}] = {a};" for e, a in enumerate(accs)]
            if step == 1:
                lines += ["    " + s.replace(" + 0", "") for s in scalar]
                continue
            lines.append(f"    if (c_vec_ok && block_n + {col} + 3 < N) {{")
            lines.append(f"        *reinterpret_cast<float4*>(crow + {col}) = make_float4({', '.join(accs)});")
            lines.append("    } else {")
            lines += ["        " + s for s in scalar]
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


def _header(plan: SgemmPlan, name: str) -> List[str]:
    cfg, r = plan.cfg, plan.regs
    lines = [f"regtile SGEMM kernel {name}",
             "C = alpha * A @ B + beta * C; A (M x K), B (K x N), C (M x N) row-major with leading dimensions."
             if not (cfg.trans_a or cfg.trans_b) else
             f"C = alpha * op(A) @ op(B) + beta * C, layout {cfg.layout}: op(A) (M x K) "
             f"{'= A^T, A stored K x M' if cfg.trans_a else 'row-major'}, op(B) (K x N) "
             f"{'= B^T, B stored N x K' if cfg.trans_b else 'row-major'}, C (M x N) row-major; leading dimensions.",
             f"config: {cfg.describe()}",
             f"launch: block ({cfg.threads}, 1, 1), grid (ceil(N/{cfg.bn}), ceil(M/{cfg.bm})"
             f"{f', {cfg.split_k}' if cfg.split_k > 1 else ', batch' if cfg.batched else ''}), "
             f"dynamic shared memory {cfg.smem_bytes} bytes",
             "", f"thread mapping ({cfg.mapping}): lane numbers over one warp's "
                 f"{cfg.lanes_m}x{cfg.lanes_n} grid of thread tiles"]
    grid = [[0] * cfg.lanes_n for _ in range(cfg.lanes_m)]
    for lane in range(32):
        ly, lx = mp.lane_coords(cfg, lane)
        grid[ly][lx] = lane
    lines += ["  " + " ".join(f"{v:2d}" for v in row) for row in grid]
    rows = sorted({mp.tile_row(cfg, 0, i) for i in range(cfg.tm)})
    cols = sorted({mp.tile_col(cfg, 0, j) for j in range(cfg.tn)})
    lines += ["", f"thread tile rows: row0 + {rows}", f"thread tile cols: col0 + {cols}",
              "", f"register plan: accumulators {r.acc[0][0]}..{r.acc[-1][-1]} ({cfg.tm * cfg.tn}), "
                  f"A fragments {' / '.join(f'{b[0]}..{b[-1]}' for b in r.frag_a)}, "
                  f"B fragments {' / '.join(f'{b[0]}..{b[-1]}' for b in r.frag_b)}",
              f"FFMA order per k-slice ({cfg.ffma_order}, (i, j)): {' '.join(f'{i}{j}' for i, j in r.ffma_order)}"]
    if cfg.split_k > 1:
        lines += splitk.header_lines(cfg.bk, cfg.split_k, None)
    return lines


def emit_sgemm_cuda(cfg: SgemmConfig) -> KernelSource:
    """The kernel of `cfg`; with split_k > 1 the split-K partial kernel, its text
    followed by the reduce kernel's (one module), which KernelSource.reduce also
    holds with its own parameters and launch geometry (codegen/splitk.py)."""
    require_sgemm_config(cfg, "emit_sgemm_cuda")
    plan = make_plan(cfg)
    name = kernel_name(cfg)
    r = plan.regs
    split = cfg.split_k > 1
    params = with_batch(SGEMM_PARAMS, cfg.batched)
    staging = [reg for c in plan.a_copies + plan.b_copies for reg in c.regs]
    # -0.0 for the SASS pass: ptxas zeroes +0.0 accumulators two at a time (CS2R), which
    # pins them into pairs (config.py, sass_pass).
    acc_init = "-0.f" if cfg.sass_pass else "0.f"
    preload, compute, tail = _compute_ktile(plan) if cfg.stages else ([], [], [])
    ctx = dict(
        name=name,
        header=_header(plan, name),
        threads=cfg.threads,
        min_blocks=cfg.min_blocks,
        params=", ".join(f"{ctype} {'__restrict__ ' if '*' in ctype else ''}{pname}"
                         for pname, ctype in (SPLITK_PARAMS if split else params)),
        batch_prologue=BATCH_PROLOGUE if cfg.batched else [],
        split_prologue=splitk.partial_prologue(cfg.bk, cfg.split_k) if split else [],
        bm=cfg.bm, bn=cfg.bn, bk=cfg.bk, stages=cfg.stages,
        stage_floats=cfg.smem_floats_per_stage,
        row0=c_expr(mp.thread_origin(cfg, TV.tid)[0]),
        col0=c_expr(mp.thread_origin(cfg, TV.tid)[1]),
        acc_decls=[", ".join(f"{a} = {acc_init}" for a in row) for row in r.acc],
        frag_decls=[", ".join(b) for b in r.frag_a + r.frag_b],
        staging_decl=", ".join(staging),
        vec=cfg.vec,
        split=split,
        copy_setup=_copy_setup(cfg, plan.a_copies, split) + _copy_setup(cfg, plan.b_copies, split),
        load_tile=_tile_flags(cfg) + [ln for copies in (plan.a_copies, plan.b_copies)
                                      for r, c in enumerate(copies) for ln in _load_global(cfg, c, r)],
        store_tile=[_store_shared(s, "st") for c in plan.a_copies + plan.b_copies for s in c.stores],
        compute=compute,
        preload=preload,
        compute_tail=tail,
        frag_pointers_first=_frag_pointers(cfg, "smem"),
        frag_pointers_next=_frag_pointers(cfg, "nxt"),
        naive_step=_naive_kstep(plan, split) if cfg.stages == 0 else [],
        epilogue=_epilogue(plan, partial=split),
    )
    text = render("sgemm.cu.j2", **ctx)
    if not split:
        return KernelSource(name=name, language="cuda", text=text, geometry=geometry(cfg), params=params,
                            trans_a=cfg.trans_a, trans_b=cfg.trans_b)
    reduce = splitk.emit_reduce(cfg.split_k)
    geo = dataclasses.replace(geometry(cfg), splits=cfg.split_k)
    return KernelSource(name=name, language="cuda", text=text + "\n" + reduce.text, geometry=geo,
                        params=SPLITK_PARAMS, reduce=reduce, trans_a=cfg.trans_a, trans_b=cfg.trans_b)
