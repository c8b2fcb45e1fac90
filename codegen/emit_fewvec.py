"""CUDA C backend for the few-vector kernels (codegen/fewvec_config.py): a FewVecTConfig through
templates/fewvec_t.cu.j2, a FewVecNConfig through templates/fewvec_n.cu.j2.  A module holds three
kernels, launched in this order: the `stage` entry (the small operand's vectors copied into the
layout the main kernel reads: templates/fewvec_stage.cu.j2), the main kernel, and, for a split
launch, the `reduce` entry (emit_sgemv.reduce_source, storing to C).

Decided here: which loads are in flight together, which partial sum each product feeds, how the
partial sums meet and where each output goes; the templates place the lines.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, List

from .emit_sgemv import header, name_digest, reduce_source, split_store, t_columns
from .fewvec_config import FewVecNConfig, FewVecTConfig
from .kernel import PDL_ENTRY, XYZW, l2_prefetch, KernelSource, LaunchGeometry, c_params
from .templates import render

# The main kernels: the matrix A (M x N row-major, lda), the staged vectors X (the stage
# kernel's output), C and its leading dimension, and the split workspace W (gridDim.y > 1).
# Op T writes C[v * ldc + col], op N C[row * ldc + v]; with transposed_c the other way round (_c_at).
FEWVEC_ENTRY = PDL_ENTRY  # the stage and main kernels' first lines (the module's section below)
FEWVEC_PARAMS = (
    ("M", "int"), ("N", "int"), ("alpha", "float"),
    ("A", "const float*"), ("lda", "int"), ("X", "const float*"),
    ("beta", "float"), ("C", "float*"), ("ldc", "int"), ("W", "float*"),
)
# The stage kernel: vector v's p-th value is S[v * sv + p * sp], p < K.
STAGE_PARAMS = (("S", "const float*"), ("sv", "int"), ("sp", "int"), ("K", "int"), ("X", "float*"))
STAGE_THREADS = 256
# C[(i / inner) * ldo + i % inner] = alpha * sum_s W[s * count + i] + beta * C[...], s in order.
# The partials: op T W[s][v][col] (inner = N), op N W[s][row][v] (inner = vectors).
FEWVEC_REDUCE_PARAMS = (
    ("count", "int"), ("splits", "int"), ("alpha", "float"), ("W", "const float*"),
    ("beta", "float"), ("C", "float*"), ("inner", "int"), ("ldo", "int"),
)


def _bounds(cfg) -> str:
    """__launch_bounds__'s arguments: the block's threads, and min_blocks where the config caps
    the registers."""
    return f"{cfg.threads}, {cfg.min_blocks}" if cfg.min_blocks else str(cfg.threads)


def kernel_name(cfg) -> str:
    if isinstance(cfg, FewVecTConfig) and cfg.smem_vectors:
        return f"regtile_fewvec_ts{cfg.threads_x}x{cfg.threads_y}_v{cfg.vectors}_{name_digest(cfg)}"
    if isinstance(cfg, FewVecTConfig):
        return f"regtile_fewvec_t{cfg.threads_x}x{cfg.threads_y}_v{cfg.vectors}_{name_digest(cfg)}"
    return f"regtile_fewvec_n{cfg.warps_per_block}x{cfg.row_groups}_v{cfg.vectors}_{name_digest(cfg)}"


def _vector_major(cfg) -> bool:
    """C (and the split partials) hold a vector's outputs together: op T's row-major C, op N's transposed."""
    return isinstance(cfg, FewVecTConfig) != cfg.transposed_c


def _c_at(cfg, vec: str, pos: str) -> str:
    """C's index of vector `vec`'s output at matrix position `pos` (op T: a column, op N: a row)."""
    return f"(size_t){vec} * ldc + {pos}" if _vector_major(cfg) else f"(size_t){pos} * ldc + {vec}"


def _w_at(cfg, vec: str, pos: str) -> str:
    """The split partial's index in W, laid out as C (reduce_inner): [split][vec][pos] or [split][pos][vec]."""
    V, P = cfg.vectors, ("N" if isinstance(cfg, FewVecTConfig) else "M")
    if _vector_major(cfg):
        return f"((size_t)blockIdx.y * {V} + {vec}) * {P} + {pos}"
    return f"((size_t)blockIdx.y * {P} + {pos}) * {V} + {vec}"


def reduce_inner(cfg, rows: int, cols: int) -> int:
    """The reduce kernel's `inner` (C[(i / inner) * ldc + i % inner] for partial i): the positions
    (op T's columns, op N's rows) where C holds a vector's outputs together, else the vectors."""
    if not _vector_major(cfg):
        return cfg.vectors
    return cols if isinstance(cfg, FewVecTConfig) else rows


def staged_floats(cfg, length: int) -> int:
    """The staged vectors' workspace (floats) for vectors `length` long."""
    if isinstance(cfg, FewVecTConfig):
        return length * cfg.staged_vectors
    return cfg.vectors * (-(-length // 4) * 4)


def partial_count(cfg, rows: int, cols: int) -> int:
    """Outputs of one split (the reduce kernel's count)."""
    return cfg.vectors * (cols if isinstance(cfg, FewVecTConfig) else rows)


# ---- op T: a column sweep of the matrix, the vectors broadcast ----------------------------------
def _t_step(cfg: FewVecTConfig, vector: bool, tail: bool) -> List[str]:
    """One step: `unroll` rows' loads of the matrix in flight, then per row the staged vectors'
    float4s (a broadcast: the same address across the thread row) and the FMAs, each vector
    feeding its own 4 partial sums."""
    TY, U, V = cfg.rows_per_step, cfg.unroll, cfg.group_vectors
    VQ = cfg.staged_vectors // 4  # float4s a staged row
    GQ = -(-V // 4)  # float4s of the thread's group, from float4 vg * GQ on
    zero4 = "make_float4(0.f, 0.f, 0.f, 0.f)"
    lines = []
    for u in range(U):
        row = f"(i + {u * TY})"
        if tail:
            lines.append(f"const bool p{u} = {row} < r1;")
        if vector:
            load = f"__ldcs(reinterpret_cast<const float4*>(a + (size_t){row} * lda))"
            lines.append(f"const float4 b{u} = {f'p{u} ? {load} : {zero4}' if tail else load};")
        else:
            for c in range(4):
                guard = f"(p{u} && c{c})" if tail else f"c{c}"
                lines.append(f"const float b{u}_{c} = {guard} ? __ldcs(a + (size_t){row} * lda + {c} * step_c) : 0.f;")
    for u in range(U):
        row = f"(i + {u * TY})"
        for q in range(GQ):
            load = f"__ldg(xv + (size_t){row} * {VQ} + {q})" if GQ == VQ else \
                f"__ldg(xv + (size_t){row} * {VQ} + vg * {GQ} + {q})"
            lines.append(f"const float4 x{u}_{q} = {f'p{u} ? {load} : {zero4}' if tail else load};")
        for v in range(V):
            xe = f"x{u}_{v // 4}.{XYZW[v % 4]}"
            for c in range(4):
                b = f"b{u}.{XYZW[c]}" if vector else f"b{u}_{c}"
                lines.append(f"s{v}[{c}] = fmaf({b}, {xe}, s{v}[{c}]);")
    return lines


def _main_entry(cfg, prefetch: Callable[[object], List[str]]):
    """(the main kernel's first lines, the lines before its loop): without prefetch_steps it waits for
    the kernel before and then lets the next be scheduled (FEWVEC_ENTRY) at once; with them it first
    asks L2 for its first steps of the matrix (`prefetch(cfg)`'s lines: kernel.l2_prefetch, safe
    before the wait), then waits and triggers, before reading the vectors or writing C."""
    if not cfg.prefetch_steps:
        return FEWVEC_ENTRY, []
    return (), [f"// the first {cfg.prefetch_steps} steps' rows asked of L2 while the kernel before this one "
                f"runs (device code only: the host emulation has no prefetch)", "#if defined(__CUDA_ARCH__)",
                *prefetch(cfg), "#endif", *PDL_ENTRY]


def _t_prefetch(cfg: FewVecTConfig) -> List[str]:
    TY, S = cfg.rows_per_step, cfg.prefetch_steps * cfg.unroll
    return ["if (vec_block) {",
            *[f"    if (i + {t * TY} < r1) " + l2_prefetch(f"a + (size_t)(i + {t * TY}) * lda") for t in range(S)],
            "}"]


def _n_prefetch(cfg: FewVecNConfig) -> List[str]:
    W, S = 4 * cfg.lanes_per_row, cfg.prefetch_steps * cfg.unroll
    return ["if (vec) {",
            *[f"    if (j + {W * t} + 3 < c1) " + l2_prefetch(f"a{g} + j + {W * t}")
              for t in range(S) for g in range(cfg.row_groups)],
            "}"]


def _t_store(cfg: FewVecTConfig, v: int, value: str) -> List[str]:
    """Vector v of the thread's group (vector vg * group_vectors + v of C) at its columns."""
    lines = []
    grouped = cfg.vector_groups > 1
    vec = f"(vg * {cfg.group_vectors} + {v})" if grouped else str(v)
    inside = f" && {vec} < {cfg.vectors}" if grouped else ""
    for c in range(4):
        col = f"(first + {c} * step_c)"
        lines += split_store(f"c{c}{inside}", "C", _c_at(cfg, vec, col), f"{value}[{c}]", _w_at(cfg, vec, col))
    return lines


def _t_meet(cfg: FewVecTConfig) -> List[str]:
    """The partial sums of each column (rows_per_step thread rows a vector group) meet in shared
    memory in row order, a vector at a time (threads_y x 4 x threads_x floats, not vectors times
    that); the group's first thread row stores."""
    TY, TX, V, VG, R = cfg.threads_y, cfg.threads_x, cfg.group_vectors, cfg.vector_groups, cfg.rows_per_step
    if R == 1:
        return [ln for v in range(V) for ln in _t_store(cfg, v, f"s{v}")]
    lines = [f"__shared__ float red[{TY}][4][{TX}];", "float t[4];"]
    for v in range(V):
        lines += [f"// vector {v}",
                  *(["__syncthreads();  // red is free again"] if v else []),
                  "#pragma unroll",
                  f"for (int c = 0; c < 4; ++c) red[ty][c][tx] = s{v}[c];",
                  "__syncthreads();",
                  "if (tr == 0) {",
                  "#pragma unroll",
                  "    for (int c = 0; c < 4; ++c) {",
                  f"        float w = red[{'vg' if VG > 1 else 0}][c][tx];",
                  f"        for (int k = 1; k < {R}; ++k) w += red[{f'k * {VG} + vg' if VG > 1 else 'k'}][c][tx];",
                  "        t[c] = w;",
                  "    }"]
        lines += ["    " + ln for ln in _t_store(cfg, v, "t")]
        lines.append("}")
    return lines


def _computes(cfg) -> str:
    """What the main kernel computes, for its header."""
    out = "C[v, :]" if _vector_major(cfg) else "C[:, v]"
    product = "X_v^T A" if isinstance(cfg, FewVecTConfig) else "A X_v"
    return f"{out} = alpha * {product} + beta * {out}"


def _header(cfg, name: str, computes: str, grid: str) -> List[str]:
    """The main kernel's description (a comment at the top of its text)."""
    return header(f"few-vector kernel {name}", f"{computes} for the staged vectors X_v; A (M x N) row-major, lda.",
                  cfg, grid)


def _emit_t(cfg: FewVecTConfig) -> KernelSource:
    name = kernel_name(cfg)
    U = cfg.unroll
    entry, pre_loop = _main_entry(cfg, _t_prefetch)
    text = render(
        "fewvec_t.cu.j2", name=name, entry=entry, pre_loop=pre_loop,
        header=_header(cfg, name, _computes(cfg),
                       f"(ceil(N/{cfg.strip}), row splits, 1)"),
        threads=_bounds(cfg), tx=cfg.threads_x, **t_columns(cfg), vectors=cfg.vectors,
        vq=cfg.staged_vectors // 4, params=c_params(FEWVEC_PARAMS),
        groups=cfg.vector_groups, group_vectors=cfg.group_vectors,
        sums=[f"float s{v}[4] = {{0.f, 0.f, 0.f, 0.f}};" for v in range(cfg.group_vectors)],
        last=(U - 1) * cfg.rows_per_step, step=cfg.step, unroll=U,
        vector_body=_t_step(cfg, True, False), scalar_body=_t_step(cfg, False, False),
        vector_tail=_t_step(cfg, True, True) if U > 1 else [],
        scalar_tail=_t_step(cfg, False, True) if U > 1 else [],
        meet=_t_meet(cfg))
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=1 << 30, tile_n=cfg.strip, dynamic_smem_bytes=0)
    return _module(cfg, name, text, geo)


# ---- op T through shared memory (smem_vectors): the vectors of a step staged in xs --------------
_ZERO4 = "make_float4(0.f, 0.f, 0.f, 0.f)"


def _ts_rows(cfg: FewVecTConfig, into: str, at: str, pointer: str = "") -> List[str]:
    """The thread's `unroll` rows of the matrix from row `at` on (rows at + u * rows_per_step) into
    float4s `into`0.. (zero past r1): one float4 a row, or four scalars on the scalar path, under one
    vec_block test for all the rows.  A test a row (`if (row < r1) n = vec_block ? float4 : scalars`)
    left three to four branches a row in the SASS and ran 1-3% slower on 8 of 9 shapes (16x5120x5120
    45.1 against 43.8 us; lab/experiments/ts_loads_ab.py at 14841a0, docs/data/session23/d_14841a0)."""
    TY = cfg.rows_per_step
    vec, scalar = [], []
    for u in range(cfg.unroll):
        row = f"({at} + {u * TY})"
        # `pointer`: row `at`'s address (running_rows), row u at pointer + u * rstep
        addr = (f"{pointer} + {u} * rstep" if u else pointer) if pointer else f"a + (size_t){row} * lda"
        load = f"__ldcs(reinterpret_cast<const float4*>({addr}))"
        vec.append(f"    {into}{u} = {row} < r1 ? {load} : {_ZERO4};")
        scalars = ", ".join(f"({row} < r1 && c{c}) ? __ldcs({addr} + {c} * step_c) : 0.f" for c in range(4))
        scalar.append(f"    {into}{u} = make_float4({scalars});")
    return ["if (vec_block) {", *vec, "} else {", *scalar, "}"]


def _ts_copies(cfg: FewVecTConfig) -> range:
    """The float4s of a step's staged rows a thread copies, as multiples t of the block's threads:
    copy t moves float4 threadIdx.x + t * threads of the step's step * staged_vectors / 4."""
    return range(-(-cfg.step * cfg.staged_vectors // 4 // cfg.threads))


def _ts_stage(cfg: FewVecTConfig, at: str) -> List[str]:
    """This thread's float4s of the staged rows at.. at + step - 1 (zero past r1) into xn0..: __ldcg,
    not __ldg - ptxas moved the first step's read-only (LDG.CONSTANT) load above the PDL wait (ACQBULK),
    so that it could read the staged vectors before the stage kernel had written them (a CUDA graph
    replay on new vectors gave wrong sums, H100, session 22)."""
    F, T, VQ = cfg.step * cfg.staged_vectors // 4, cfg.threads, cfg.staged_vectors // 4
    lines = []
    for t in _ts_copies(cfg):
        f = f"(threadIdx.x + {t * T})"
        inside = f"({at}) + {f} / {VQ} < r1" + ("" if F % T == 0 else f" && {f} < {F}")
        lines.append(f"xn{t} = {inside} ? __ldcg(xv + (size_t)({at}) * {VQ} + {f}) : {_ZERO4};")
    return lines


def _ts_store(cfg: FewVecTConfig, buf: str) -> List[str]:
    F, T = cfg.step * cfg.staged_vectors // 4, cfg.threads
    return [(f"if (threadIdx.x + {t * T} < {F}) " if F % T else "") + f"xs[{buf}][threadIdx.x + {t * T}] = xn{t};"
            for t in _ts_copies(cfg)]


def _ts_fmas(cfg: FewVecTConfig) -> List[str]:
    """Per row u: the step's staged row u * rows_per_step + ty, a broadcast LDS.128 a float4 of
    vectors, each vector feeding its 4 sums (the staged row's zero padding feeds none)."""
    TY, VQ, V = cfg.rows_per_step, cfg.staged_vectors // 4, cfg.vectors
    lines = [f"const float4* const xr = xs[buf] + ty * {VQ};"]
    for u in range(cfg.unroll):
        for q in range(VQ):
            lines.append(f"{{ const float4 x = xr[{u * TY * VQ + q}];")
            lines += [f"  s{v}[{c}] = fmaf(b{u}.{XYZW[c]}, x.{XYZW[v % 4]}, s{v}[{c}]);"
                      for v in range(4 * q, min(V, 4 * q + 4)) for c in range(4)]
            lines.append("}")
    return lines


def _ts_meet(cfg: FewVecTConfig) -> List[str]:
    """The thread rows of a warp meet by xor shuffles (offsets threads_x .. 16: each thread ends with
    its column's sums over the warp's rows), then the warps in shared memory four vectors a round:
    red[w][t][c][tx], summed in warp order and stored by threads spread over the round's outputs."""
    TX, V, T = cfg.threads_x, cfg.vectors, cfg.threads
    W = T // 32
    lines = []
    if TX < 32:
        lines += ["#pragma unroll", f"for (int o = {TX}; o < 32; o *= 2) {{"]
        lines += [f"    s{v}[{c}] += __shfl_xor_sync(0xffffffffu, s{v}[{c}], o);" for v in range(V) for c in range(4)]
        lines.append("}")
    lines += [f"__shared__ float red[{W}][4][4][{TX}];",
              "const int warp = threadIdx.x / 32;",
              f"const bool lead = threadIdx.x % 32 < {TX};  // the warp's first thread row"]
    for q in range(-(-V // 4)):
        vs = range(4 * q, min(V, 4 * q + 4))
        lines += [f"// vectors {vs[0]}..{vs[-1]}",
                  *(["__syncthreads();  // red is free again"] if q else []),
                  "if (lead) {",
                  *[f"    red[warp][{v - 4 * q}][{c}][tx] = s{v}[{c}];" for v in vs for c in range(4)],
                  "}",
                  "__syncthreads();",
                  f"for (int o = threadIdx.x; o < {len(vs) * 4 * TX}; o += {T}) {{",
                  f"    const int t = o / {4 * TX}, c = o / {TX} % 4, x = o % {TX};",
                  "    float w = red[0][t][c][x];",
                  *([f"    for (int k = 1; k < {W}; ++k) w += red[k][t][c][x];"] if W > 1 else []),
                  f"    const int col = vec_block ? strip0 + 4 * x + c : strip0 + x + c * {TX};",
                  f"    const int vec = {4 * q} + t;"]
        lines += ["    " + ln for ln in split_store("col < N", "C", _c_at(cfg, "vec", "col"), "w",
                                                     _w_at(cfg, "vec", "col"))]
        lines.append("}")
    return lines


def _emit_ts(cfg: FewVecTConfig) -> KernelSource:
    """One loop for both paths, vec_block chosen at each load: a loop a path (the float4 rows' and the
    scalar ones', as _emit_t has) ran 12-15% slower on the H100 (16x16384x4096 112.6 against 97.8 us,
    16x4096x4096 33.7 / 29.9; lab/experiments/fewvec_ts_ab.py at 4cf3c41, docs/data/session22/d_4cf3c41)."""
    name = kernel_name(cfg)
    U = cfg.unroll
    entry, pre_loop = _main_entry(cfg, _t_prefetch)
    regs = ", ".join(f"b{u}, n{u}" for u in range(U))
    prologue = [f"float4 {regs};  // this step's rows, the next step's",
                f"float4 {', '.join(f'xn{t}' for t in _ts_copies(cfg))};  // the staged float4s this thread copies",
                "// the first step: its staged rows into xs[0], the thread's rows in flight",
                *_ts_stage(cfg, "r0"), *_ts_store(cfg, "0"), *_ts_rows(cfg, "n", "i")]
    pointer, advance = "", []
    if cfg.running_rows:  # a pointer to the thread's first row of the next step, stepped once a loop step
        pointer, advance = "ar", [f"ar += {U} * rstep;"]
        prologue += [f"const size_t rstep = (size_t){cfg.rows_per_step} * lda;  // between a thread's rows",
                     f"const float* ar = a + (size_t)(i + {cfg.step}) * lda;"]
    body = [*[f"b{u} = n{u};" for u in range(U)],
            f"const bool more = base + {cfg.step} < r1;",
            "if (more) {",
            *["    " + ln for ln in _ts_rows(cfg, "n", f"i + {cfg.step}", pointer)
              + _ts_stage(cfg, f"base + {cfg.step}")],
            "}",
            *_ts_fmas(cfg),
            "if (more) {", *["    " + ln for ln in _ts_store(cfg, "buf ^ 1")], "}", *advance]
    text = render(
        "fewvec_ts.cu.j2", name=name, entry=entry, pre_loop=pre_loop,
        header=_header(cfg, name, _computes(cfg),
                       f"(ceil(N/{cfg.strip}), row splits, 1)"),
        threads=_bounds(cfg), tx=cfg.threads_x, **t_columns(cfg), vectors=cfg.vectors,
        vq=cfg.staged_vectors // 4, step=cfg.step, params=c_params(FEWVEC_PARAMS),
        sums=[f"float s{v}[4] = {{0.f, 0.f, 0.f, 0.f}};" for v in range(cfg.vectors)],
        prologue=prologue, body=body, meet=_ts_meet(cfg))
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=1 << 30, tile_n=cfg.strip, dynamic_smem_bytes=0)
    return _module(cfg, name, text, geo)


# ---- op N: row sweeps of the matrix, each vector load serving the warp's rows ----------------------
def _n_step(cfg: FewVecNConfig, unroll: int) -> List[str]:
    G, V, W = cfg.row_groups, cfg.vectors, 4 * cfg.lanes_per_row
    lines = [f"const float4 a{g}_{u} = __ldcs(reinterpret_cast<const float4*>(a{g} + j + {W * u}));"
             for u in range(unroll) for g in range(G)]
    for u in range(unroll):
        for v in range(V):
            lines.append(f"{{ const float4 x = __ldg(reinterpret_cast<const float4*>(X + (size_t){v} * kp + j + {W * u}));")
            lines += [f"  s{g}_{v} = fmaf(a{g}_{u}.{c}, x.{c}, s{g}_{v});" for g in range(G) for c in XYZW]
            lines.append("}")
    return lines


def _n_scalar(cfg: FewVecNConfig) -> List[str]:
    G, V = cfg.row_groups, cfg.vectors
    lines = [f"const float a{g}_q = __ldcs(a{g} + q);" for g in range(G)]
    for v in range(V):
        lines.append(f"{{ const float x = __ldg(X + (size_t){v} * kp + q);")
        lines += [f"  s{g}_{v} = fmaf(a{g}_q, x, s{g}_{v});" for g in range(G)]
        lines.append("}")
    return lines


def _n_meet(cfg: FewVecNConfig) -> List[str]:
    """The lanes of a row meet by xor shuffles (offsets below lanes_per_row stay inside the row's
    aligned lanes; every lane ends with every sum); the stores are spread over the lanes, output
    (g, v) from the row's lane (g * vectors + v) % lanes_per_row."""
    G, V, L = cfg.row_groups, cfg.vectors, cfg.lanes_per_row
    lines = []
    for g in range(G):
        for v in range(V):
            lines += ["#pragma unroll",
                      f"for (int o = {L // 2}; o >= 1; o /= 2) s{g}_{v} += __shfl_xor_sync(0xffffffffu, s{g}_{v}, o);"]
    for g in range(G):
        for v in range(V):
            lines += split_store(f"active{g} && sub == {(g * V + v) % L}", "C", _c_at(cfg, str(v), f"row{g}"),
                                 f"s{g}_{v}", _w_at(cfg, str(v), f"row{g}"))
    return lines


def _emit_n(cfg: FewVecNConfig) -> KernelSource:
    name = kernel_name(cfg)
    G, V = cfg.row_groups, cfg.vectors
    setup = []
    for g in range(G):
        setup += [f"const int row{g} = base + {g * (32 // cfg.lanes_per_row)} + rg;",
                  f"const bool active{g} = row{g} < M;  // an inactive row reads row 0 and is never stored",
                  f"const float* const a{g} = A + (size_t)(active{g} ? row{g} : 0) * lda;",
                  "float " + ", ".join(f"s{g}_{v} = 0.f" for v in range(V)) + ";"]
    entry, pre_loop = _main_entry(cfg, _n_prefetch)
    text = render(
        "fewvec_n.cu.j2", name=name, entry=entry, pre_loop=pre_loop,
        header=_header(cfg, name, _computes(cfg),
                       f"(ceil(M/{cfg.rows_per_block}), column splits, 1)"),
        threads=_bounds(cfg), warps=cfg.warps_per_block, rows=cfg.rows_per_warp, lanes=cfg.lanes_per_row,
        params=c_params(FEWVEC_PARAMS), setup=setup, last=4 * cfg.lanes_per_row * (cfg.unroll - 1), step=cfg.step,
        vector_body=_n_step(cfg, cfg.unroll), vector_one=_n_step(cfg, 1), scalar_body=_n_scalar(cfg),
        meet=_n_meet(cfg))
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=cfg.rows_per_block, tile_n=0, dynamic_smem_bytes=0,
                         whole_rows=True)
    return _module(cfg, name, text, geo)


# ---- the module: stage, main, reduce ---------------------------------------------------------
# The stage and main kernels begin with FEWVEC_ENTRY: each waits for the kernel before it (the main
# kernel reads the staged vectors, the stage kernel may follow whatever wrote the vectors), then lets
# the next be scheduled (the main kernel, the reduce: neither competes for the SMs); the reduce
# (emit_sgemv.REDUCE_ENTRY) triggers at exit.  Measured with both at entry on the H100 (session 5's
# pdl_ab, 2026-11-27): 7680x2x2560 27.94 against 28.89 us without PDL, 8192x8x8192 91.53 against
# 92.22.  The trigger follows the wait since session 39 (kernel.PDL_ENTRY; H200,
# docs/data/session39/e_1c2f30f, the 38 NN suite and held-out shapes of this route: 768x8x768
# 5.11 -> 4.54 us back to back, 4.55 -> 4.36 in CUDA graphs; 16384x8x16384 and 2x3072x8192 1.0-1.1%
# slower).


def _stage_source(cfg, name: str) -> KernelSource:
    sname = f"{name}_stage"
    V = cfg.vectors
    if isinstance(cfg, FewVecTConfig):
        VP = cfg.staged_vectors
        layout = dict(layout=f"X[p * {VP} + v], v < {VP} (zero beyond {V})", total=f"K * {VP}",
                      index=f"const int p = d / {VP}, v = d % {VP};", inside=f"v < {V}")
    else:
        layout = dict(layout="X[v * kp + p], p < kp (zero from K on)", total=f"{V} * kp",
                      index="const int v = d / kp, p = d % kp;", inside="p < K")
    text = render("fewvec_stage.cu.j2", name=sname, threads=STAGE_THREADS, params=c_params(STAGE_PARAMS),
                  entry=FEWVEC_ENTRY, **layout)
    geo = LaunchGeometry(block=(STAGE_THREADS, 1, 1), tile_m=1, tile_n=1, dynamic_smem_bytes=0,
                         flat_elements=STAGE_THREADS, programmatic=True)
    return KernelSource(name=sname, language="cuda", text=text, geometry=geo, params=STAGE_PARAMS)


def _module(cfg, name: str, text: str, geo: LaunchGeometry) -> KernelSource:
    """stage, main, reduce: launched in that order, each programmatic (FEWVEC_ENTRY, REDUCE_ENTRY)."""
    geo = replace(geo, programmatic=True)
    stage = _stage_source(cfg, name)
    reduce = reduce_source(name, FEWVEC_REDUCE_PARAMS, "C", "(long long)(i / inner) * ldo + i % inner")
    return KernelSource(name=name, language="cuda", text=stage.text + "\n" + text + "\n" + reduce.text,
                        geometry=geo, params=FEWVEC_PARAMS, entries=(("stage", stage),), reduce=reduce)


def emit_fewvec_cuda(cfg) -> KernelSource:
    """The module of `cfg`: the stage kernel, the few-vector kernel and the split reduction."""
    if isinstance(cfg, FewVecTConfig):
        return _emit_ts(cfg) if cfg.smem_vectors else _emit_t(cfg)
    if isinstance(cfg, FewVecNConfig):
        return _emit_n(cfg)
    raise TypeError(f"no few-vector emitter for {type(cfg).__name__}")
