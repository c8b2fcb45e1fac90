"""CUDA C backend for SGEMV: lays a SgemvConfig out through templates/sgemv.cu.j2 (op N)
and a SgemvTConfig through templates/sgemv_t.cu.j2 (op T); both modules end with the
split reduction of templates/sgemv_reduce.cu.j2.

Decided here: which rows each warp serves (row groups), which loads are in flight
together (unroll along a row, or across row groups for short rows), which partial
sum each load feeds, and the shuffle reduction; the template places the lines.
"""
from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import List

from .kernel import PDL_WAIT, XYZW, KernelSource, LaunchGeometry, c_params, pdl_trigger_if
from .sgemv_config import SgemvConfig, SgemvTConfig
from .templates import render

# Every kernel of the family takes these.  incx/incy: BLAS strides in elements (negative:
# the runtime passes the address of logical element 0, the kernel steps backwards); W: the
# workspace of gridDim.y > 1 launches (partial sums, split-major), unused otherwise.
SGEMV_PARAMS = (
    ("M", "int"), ("N", "int"), ("alpha", "float"),
    ("A", "const float*"), ("lda", "int"),
    ("x", "const float*"), ("incx", "int"),
    ("beta", "float"), ("y", "float*"), ("incy", "int"),
    ("W", "float*"),
)
# y[i * incy] = alpha * sum_s W[s * count + i] + beta * y[i * incy], s in order.
REDUCE_PARAMS = (
    ("count", "int"), ("splits", "int"), ("alpha", "float"), ("W", "const float*"),
    ("beta", "float"), ("y", "float*"), ("incy", "int"),
)
REDUCE_THREADS = 256
# Every GEMV kernel's first lines (kernel.PDL_WAIT): it may be scheduled while the kernel before it
# finishes, and where the gain can matter it lets the kernel after it (its reduce, the next call's
# kernel) be scheduled early: a launch gap less (about 0.5-1 us) for the short GEMVs, whose time is
# mostly launch and one DRAM round trip.  Elsewhere it triggers at exit: an early trigger let the
# next call's blocks pile onto the SMs a one-wave grid leaves idle, and on the longest split launch
# (300x1M N, 1200 blocks) cost 3.6%, more than any launch gap.  Measured on the H100 (session 6,
# lab/device_runs/session6_pdl_place.sh and session6_final.sh, docs/sgemv.md), graphs of 20 calls,
# trigger at entry / at exit / PDL off: 2048x6144 T 19.56 / 18.60 / 18.77 us, 300x1M N 430.4 / 415.1 /
# 415.3, 2560x7680 T 28.29 / 27.77 / 28.30; the short ones the other way: 32x4096 T 1.53 / 1.89 /
# 2.03, 768x768 T 3.29 / 3.57 / 3.73, 2048x2048 T 7.84 / 7.99 / 8.27; split launches up to 2^26
# elements gain at entry (1Mx16 T 26.06 / 26.43 / 26.97, 16384x4096 T 88.39 at entry, 89.27 off).
# The reduce's dependent is the next call: it triggers at exit.  Nothing touches global memory
# before the wait.
EARLY_TRIGGER_ELEMENTS = 1 << 22  # M * N, one launch: 2048x2048 and smaller
EARLY_TRIGGER_SPLIT_ELEMENTS = 1 << 26  # M * N, a split launch (gridDim.y > 1): 16384x4096 and smaller
GEMV_ENTRY = pdl_trigger_if(f"(long long)M * N <= (gridDim.y > 1 ? {EARLY_TRIGGER_SPLIT_ELEMENTS}LL : "
                            f"{EARLY_TRIGGER_ELEMENTS}LL)") + PDL_WAIT
REDUCE_ENTRY = PDL_WAIT


# A batched kernel's (sgemv_config.BATCHED_DOC) batch strides in elements, after SGEMV_PARAMS.
GEMV_BATCH_PARAMS = (("stride_a", "long long"), ("stride_x", "long long"), ("stride_y", "long long"))
# ... and its first lines: GEMV_ENTRY's with the whole batch's elements in the trigger's test (one split), then every
# pointer moved to the block's batch entry, so the rest of the kernel (its alignment tests included) sees one GEMV
GEMV_BATCH_ENTRY = pdl_trigger_if(f"(long long)M * N * gridDim.z <= {EARLY_TRIGGER_ELEMENTS}LL") + PDL_WAIT + (
    "A += (long long)blockIdx.z * stride_a;  // this block's batch entry",
    "x += (long long)blockIdx.z * stride_x;",
    "y += (long long)blockIdx.z * stride_y;")


def kernel_params(cfg) -> tuple:
    """A GEMV kernel's parameters: SGEMV_PARAMS, then GEMV_BATCH_PARAMS when batched."""
    return SGEMV_PARAMS + (GEMV_BATCH_PARAMS if cfg.batched else ())


def _entry(cfg) -> tuple:
    """A GEMV kernel's first lines: GEMV_ENTRY, none for a cluster kernel, which is launched plainly
    (the lines would do nothing, and the trigger's condition cost it a register).  A kernel with
    them is launched programmatic (_module).  A batched kernel's: GEMV_BATCH_ENTRY."""
    if cfg.batched:  # never a cluster (sgemv_config.BATCHED_DOC)
        return GEMV_BATCH_ENTRY
    return () if cfg.cluster else GEMV_ENTRY

# Op T's column strip (templates/t_columns.cu.j2, in the GEMV's and the few-vector kernels' op T): a block reads a
# float4 a thread where A's rows are 16-byte aligned and each thread's 4 columns lie all inside N or all past it: the
# whole strip inside N, or N a multiple of 4 (a strip wider than the matrix, 60 columns on a 64-column strip, or the
# last strip of 4100 columns; the threads past N start their loads at the row's last float4, VEC_LOAD_COLUMN, and
# store nothing).  Else scalar loads, the columns of a load instruction adjacent.  Block-uniform: one test a block.
# Before session 47 only a whole strip read float4s (WHOLE_STRIP_TEST), so a matrix narrower than its strip read
# scalars throughout: H200, session 47 (lab/experiments/partial_strip_ab.py, docs/data/session47/b_78a0360), against
# the test of before, 1x80x262144 32.3 -> 26.6 us (0.91 -> 1.10x cuBLAS), 1x1000x65536 78.3 -> 64.5, few-vector
# 8x80x500000 135.1 -> 81.8, 6x4544x4544 38.0 -> 27.2 (its last strip, 64 of 128 columns, held every split back).
ALIGNED_ROWS = "lda % 4 == 0 && reinterpret_cast<size_t>(A) % 16 == 0"  # every row of A starts 16-byte aligned
VEC_BLOCK_TEST = "(strip0 + {strip} <= N || N % 4 == 0) && " + ALIGNED_ROWS
VEC_LOAD_COLUMN = "min(first, N - (vec_block ? 4 : 1))"
# A kernel with fewer than PAST_N_MIN_UNROLL rows in flight a thread keeps the test of before: the clamp's extra value
# made ptxas (NVRTC 13.0) spill them, in every form of the clamp tried: unroll 1 (the rules' pick for a few rows, m < 4
# thread rows) on sm_90 at 40 registers (32x2 / 32x4 / 16x4 threads: 8 B; ten GPU tests refused them in run
# b_78a0360), unroll 2 (no rule's) on sm_86 / sm_89 at 47.  With 4 or 8 rows in flight every tile of 64-512 threads
# compiles spill-free on sm_80-90 either way.  A few rows' time is mostly the launch's.  The few-vector kernels'
# shared-memory forms (fewvec_config.SMEM_FORMS, the first spill-free taken) moved by a form on sm_80-89 at 13 and 14
# vectors (one row in flight fewer at 13, one more at 14; sm_90 unchanged): not measured.
PAST_N_MIN_UNROLL = 4
WHOLE_STRIP_TEST = "strip0 + {strip} <= N && " + ALIGNED_ROWS
WHOLE_STRIP_LOAD_COLUMN = "min(first, N - 1)"


def t_columns(cfg) -> dict:
    """The template variables of an op T kernel's column strip (t_columns.cu.j2) for `cfg` (an SgemvTConfig or a
    FewVecTConfig, float4 unless its vec says otherwise): its width, its float4 test and the column a thread's loads
    start at (the comment above)."""
    if getattr(cfg, "vec", 4) != 4:
        return {"strip": cfg.strip, "load_column": WHOLE_STRIP_LOAD_COLUMN, "vec_when": ""}  # scalars: no float4 test
    if cfg.unroll >= PAST_N_MIN_UNROLL:
        test, column = VEC_BLOCK_TEST, VEC_LOAD_COLUMN
        when = "on 16-byte aligned rows, a strip inside N or N a multiple of 4"
    else:
        test, column, when = WHOLE_STRIP_TEST, WHOLE_STRIP_LOAD_COLUMN, "a whole strip inside N on 16-byte aligned rows"
    return {"strip": cfg.strip, "vec_block_test": test.format(strip=cfg.strip), "load_column": column, "vec_when": when}


# From this many splits on, the reduce kernel gives a warp to an output (REDUCE_THREADS // 32
# outputs a block); below it a block holds REDUCE_COLS adjacent outputs and REDUCE_THREADS //
# REDUCE_COLS thread rows share each output's splits.  Measured on the H100 against a thread an
# output (docs/sgemv.md, 7550ec7 against a15749d): 7x50000 op N, 12 splits, 4.83 -> 4.49 us;
# but 300x50000 op T, 50000 outputs x 4 splits, 25.47 -> 26.53 us (1563 blocks, half their
# thread rows idle): a thread an output is the better choice once the outputs fill the SMs.
REDUCE_WARP_SPLITS = 32
REDUCE_COLS = 32


def reduce_outputs_per_block(splits: int) -> int:
    return REDUCE_THREADS // 32 if splits >= REDUCE_WARP_SPLITS else REDUCE_COLS

def blas_store(out: str, s: str, i: str) -> str:
    """The value stored to out[i]: alpha * s + beta * out[i]; beta == 0 ignores out (BLAS: it
    may hold NaN).  The GEMV's y, the few-vector kernels' C."""
    return f"alpha * {s} + (beta != 0.f ? beta * {out}[{i}] : 0.f)"


def split_store(active: str, out: str, at: str, value: str, w_at: str) -> List[str]:
    """A GEMV output's store: with one split (gridDim.y == 1) out[at] itself (blas_store), else the
    split's partial sum to the workspace W[w_at], summed later by the reduce.  The GEMV's y, the
    few-vector kernels' C."""
    return [f"if ({active}) {{",
            f"    if (gridDim.y == 1) {out}[{at}] = " + blas_store(out, value, at) + ";",
            f"    else W[{w_at}] = {value};",
            "}"]


def name_digest(cfg) -> str:
    """The digest ending a GEMV or few-vector kernel's name: the config's kind and to_dict (which
    leaves the fields added later out at their defaults, OPT_IN: older names stay)."""
    return hashlib.sha1(repr((type(cfg).__name__, sorted(cfg.to_dict().items()))).encode()).hexdigest()[:10]


def header(title: str, computes: str, cfg, grid: str) -> List[str]:
    """A main kernel's description (a comment at the top of its text): its title (kind and
    name), what it computes, its config and its launch."""
    lines = [f"regtile {title}", computes, f"config: {cfg.describe()}",
             f"launch: block ({cfg.threads}, 1, 1), grid {grid}"]
    if getattr(cfg, "batched", False):
        lines.append("batched: gridDim.z = the batch, blockIdx.z its entry, A, x and y stride_a, stride_x and "
                     "stride_y floats apart; gridDim.y must be 1")
    return lines


ROWS_COMPUTE = "y = alpha * A @ x + beta * y; A (M x N) row-major with leading dimension lda."
COLUMNS_COMPUTE = "y = alpha * A^T x + beta * y; A (M x N) row-major with leading dimension lda."


def kernel_name(cfg) -> str:
    if isinstance(cfg, SgemvTConfig):
        return f"regtile_sgemv_t{cfg.threads_x}x{cfg.threads_y}_v{cfg.vec}_{name_digest(cfg)}"
    return f"regtile_sgemv_r{cfg.rows_per_warp}_v{cfg.vec}_{name_digest(cfg)}"


def _store(cfg, sum_expr: str, index: str, active: str) -> List[str]:
    """gridDim.y == 1: y itself; else the split's partial sum to W (to the block's shared clu
    in a cluster launch: op N only, op T's stores come from _cluster)."""
    if isinstance(cfg, SgemvConfig) and cfg.cluster:
        return [f"if ({active}) clu[({index}) - blockIdx.x * {cfg.rows_per_block}] = {sum_expr};"]
    count = "M" if isinstance(cfg, SgemvConfig) else "N"
    return split_store(active, "y", f"(long long)({index}) * incy", sum_expr,
                       f"(size_t)blockIdx.y * {count} + ({index})")


def finish_layout(outputs: int, threads: int):
    """(P, R): the last block's threads as P output columns x R split rows (R = threads // P;
    more outputs than threads take ceil(outputs / P) rounds)."""
    p = min(outputs, threads)
    return p, threads // p


def _finish(cfg, name: str, count: str, outputs: int):
    """fused_reduce (sgemv_config.FUSED_REDUCE_DOC): (the device function, the kernel's last
    lines).  After the partials are stored, each block fences and counts; the last block of
    the block column calls {name}_finish, which sums the partials of its outputs
    [blockIdx.x * outputs, + outputs): thread (c, r) sums splits r, r + R, ... of output c
    (fixed order), the R sums meet in shared memory in a fixed tree.  A __noinline__ function: inline,
    ptxas gave the whole kernel 8-13 more registers (t32x8 u4: 72 against 64, a block an SM
    fewer).  Partials are read with __ldcg (L2): another block on this SM may have brought the
    same lines into L1 before the last split wrote them."""
    if not cfg.fused_reduce:
        return [], []
    P, R = finish_layout(outputs, cfg.threads)
    fn = [f"__device__ __noinline__ void {name}_finish(const float* __restrict__ W, int count, float alpha, "
          "float beta, float* __restrict__ y, int incy)",
          "{",
          f"    __shared__ float part[{R}][{P}];",
          f"    const int fc = threadIdx.x % {P}, fr = threadIdx.x / {P};"]
    for b in range(0, outputs, P):
        inside = f"fr < {R}" + (f" && {b} + fc < {outputs}" if b + P > outputs else "")
        fn += ["    {",
               f"        const int i = blockIdx.x * {outputs} + {b} + fc;",
               f"        const bool mine = {inside} && i < count;",
               "        float s = 0.f;",
               "        if (mine) {",
               "#pragma unroll 4",
               f"            for (int k = fr; k < (int)gridDim.y; k += {R}) s += __ldcg(W + (size_t)k * count + i);",
               "        }"]
        if R > 1 and R & (R - 1) == 0 and P * R == cfg.threads:
            # a fixed tree over the R rows (log2 R barriers): summed one after another by row 0,
            # 7x50000 op N (R = 128) spent about 127 dependent shared-memory loads there
            fn += ["        part[fr][fc] = s;",
                   "        __syncthreads();",
                   f"        for (int h = {R // 2}; h > 0; h >>= 1) {{",
                   "            if (fr < h) part[fr][fc] += part[fr + h][fc];",
                   "            __syncthreads();",
                   "        }",
                   "        if (mine && fr == 0) {",
                   "            s = part[0][fc];"]
        elif R > 1:
            fn += [f"        if (fr < {R}) part[fr][fc] = s;",
                   "        __syncthreads();",
                   "        if (mine && fr == 0) {",
                   f"            for (int k = 1; k < {R}; ++k) s += part[k][fc];"]
        else:
            fn += ["        if (mine) {"]
        fn += ["            const long long at = (long long)i * incy;",
               "            y[at] = " + blas_store("y", "s", "at") + ";",
               "        }"]
        if R > 1 and b + P < outputs:
            fn.append("        __syncthreads();  // part is reused by the next round")
        fn.append("    }")
    fn.append("}")
    # The barrier orders the block's partial stores before thread 0's fence, which is cumulative
    # (as cooperative groups' grid sync does it); thread 0's second fence orders the counter
    # before the reads of the other splits' partials, the barrier passes that on.
    call = ["if (gridDim.y > 1) {  // one launch: the last split of this block column sums them all",
            "    __shared__ bool last;",
            "    __syncthreads();",
            "    if (threadIdx.x == 0) {",
            "        __threadfence();  // this block's partials reach L2 before its count",
            f"        unsigned* const done = reinterpret_cast<unsigned*>(W + (size_t)gridDim.y * {count}) + blockIdx.x;",
            "        last = atomicAdd(done, 1u) == gridDim.y - 1u;",
            "        if (last) {",
            "            *done = 0u;  // every other split has counted: ready for the next launch",
            "            __threadfence();",
            "        }",
            "    }",
            "    __syncthreads();",
            f"    if (last) {name}_finish(W, {count}, alpha, beta, y, incy);",
            "}"]
    return fn, call


def _cluster(cfg, name: str):
    """cluster > 0 (sgemv_config.CLUSTER_DOC): (the helper functions, the kernel's declaration
    lines, its partial stores, its last lines).  Inline PTX rather than cooperative_groups: no
    header to find under NVRTC, and the text says which instructions run (barrier.cluster,
    mapa, %cluster_ctarank)."""
    C = cfg.cluster
    T = isinstance(cfg, SgemvTConfig)
    # P outputs a block: a strip's columns (op T), the block's rows (op N); output j of the
    # block is y[first_out + j], j < P, first_out + j < bound
    P, first_out, bound = (cfg.strip, "strip0", "N") if T else (cfg.rows_per_block, f"blockIdx.x * {cfg.rows_per_block}", "M")
    per = -(-P // C)
    fn = ["#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900",
          "#error \"thread-block clusters (SgemvTConfig.cluster) need sm_90\"",
          "#endif",
          f"static __device__ __forceinline__ void {name}_cluster_sync()",
          "{",
          "    // every thread of every block of the cluster: shared-memory stores before are",
          "    // visible to the peers' loads after (release / acquire at cluster scope)",
          '    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");',
          '    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");',
          "}",
          f"static __device__ __forceinline__ const float* {name}_peer(const float* p, unsigned rank)",
          "{",
          "    // the same shared-memory variable in block `rank` of the cluster, as a generic address",
          "    unsigned long long q;",
          '    asm("mapa.u64 %0, %1, %2;" : "=l"(q) : "l"(reinterpret_cast<unsigned long long>(p)), "r"(rank));',
          "    return reinterpret_cast<const float*>(q);",
          "}"]
    decl = [f"__shared__ float clu[{P}];  // this split's partial sums of the block's outputs, read by the cluster"]
    stores = [[f"clu[first - strip0 + {c} * step_c] = t[{c}];"] for c in range(cfg.vec)] if T else []
    loads = [f"const float v{k} = *{name}_peer(clu + j, {k}u);" for k in range(C)]
    tail = ["{  // the cluster's splits meet: rank r sums its share of the block's outputs, ranks in order",
            f"    {name}_cluster_sync();",
            "    unsigned rank;",
            '    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));',
            f"    for (int j = rank * {per} + threadIdx.x; j < min((int)(rank + 1) * {per}, {P}); j += {cfg.threads}) {{",
            f"        if ({first_out} + j < {bound}) {{"]
    tail += ["            " + ln for ln in loads]
    tail += ["            const float s = " + " + ".join(f"v{k}" for k in range(C)) + ";",
             f"            const long long at = (long long)({first_out} + j) * incy;",
             "            y[at] = " + blas_store("y", "s", "at") + ";",
             "        }",
             "    }",
             f"    {name}_cluster_sync();  // no block leaves while a peer may still read its clu",
             "}"]
    return fn, decl, stores, tail


def _sums(cfg: SgemvConfig, g: int) -> List[str]:
    return [f"s{g}_{u}" for u in range(cfg.unroll)]


def _group_setup(cfg: SgemvConfig) -> List[str]:
    lines = []
    for g in range(cfg.row_groups):
        lines += [f"const int row{g} = base + {g * cfg.rows_per_warp};",
                  f"const bool active{g} = row{g} < M;  // inactive lanes still take part in the shuffles",
                  f"const float* const a{g} = A + (size_t)(active{g} ? row{g} : 0) * lda + c0;",
                  "float " + ", ".join(f"{s} = 0.f" for s in _sums(cfg, g)) + ";"]
    return lines


def _short_rows(cfg: SgemvConfig) -> List[str]:
    """Rows of at most one float4 a lane: every group's load first, then the FMAs."""
    G = cfg.row_groups
    lines = ["const bool mine = sub < nv;",
             "const float4 vx = mine ? __ldg(reinterpret_cast<const float4*>(xs) + sub) : make_float4(0.f, 0.f, 0.f, 0.f);"]
    lines += [f"const float4 va{g} = (mine && active{g}) ? __ldcs(reinterpret_cast<const float4*>(a{g}) + sub) "
              f": make_float4(0.f, 0.f, 0.f, 0.f);" for g in range(G)]
    for g in range(G):
        lines += [f"s{g}_0 = fmaf(va{g}.{c}, vx.{c}, s{g}_0);" for c in XYZW]
    return lines


def _vector_body(cfg: SgemvConfig, g: int) -> List[str]:
    """One step of the float4 loop of group g: `unroll` loads of A and x in flight,
    then the FMAs, each load feeding its own partial sum."""
    L, U = cfg.row_lanes, cfg.unroll
    lines = [f"const float4 va{u} = __ldcs(a4 + i + {u * L}); const float4 vx{u} = __ldg(x4 + i + {u * L});"
             for u in range(U)]
    for u in range(U):
        lines += [f"s{g}_{u} = fmaf(va{u}.{c}, vx{u}.{c}, s{g}_{u});" for c in XYZW]
    return lines


def _shared_body(cfg: SgemvConfig) -> List[str]:
    """One step of the joint float4 loop (share_x): `unroll` loads of x, and of A for every
    row group, in flight; each x load feeds all groups' FMAs."""
    L, U, G = cfg.row_lanes, cfg.unroll, cfg.row_groups
    lines = [f"const float4 vx{u} = __ldg(x4 + i + {u * L});" for u in range(U)]
    lines += [f"const float4 va{g}_{u} = __ldcs(a4_{g} + i + {u * L});" for g in range(G) for u in range(U)]
    for g in range(G):
        for u in range(U):
            lines += [f"s{g}_{u} = fmaf(va{g}_{u}.{c}, vx{u}.{c}, s{g}_{u});" for c in XYZW]
    return lines


def _shared_tail(cfg: SgemvConfig) -> List[str]:
    lines = ["const float4 vx = __ldg(x4 + i);"]
    lines += [f"const float4 va{g} = __ldcs(a4_{g} + i);" for g in range(cfg.row_groups)]
    for g in range(cfg.row_groups):
        lines += [f"s{g}_0 = fmaf(va{g}.{c}, vx.{c}, s{g}_0);" for c in XYZW]
    return lines


def _scalar_in_flight(cfg: SgemvConfig) -> bool:
    return cfg.vec == 1 or cfg.ragged_rows


def _scalar_body(cfg: SgemvConfig, g: int) -> List[str]:
    """The scalar loop (unaligned rows, strided x, the tail of a float4 row).  For configs
    whose hot path it is (vec 1, ragged_rows): `unroll` predicated loads, all in flight however
    short the row, x through one 64-bit pointer a step.  Otherwise one load a step: the
    predicated form costs 18 registers on sm_90 (56 against 38), which the float4 loop's
    occupancy would pay for on every shape."""
    L, U = cfg.row_lanes, cfg.unroll
    if not _scalar_in_flight(cfg):
        return [f"s{g}_0 = fmaf(__ldcs(a{g} + j), __ldg(xs + (long long)j * incx), s{g}_0);"]
    lines = ["const float* const xj = xs + (long long)j * incx;",
             f"const long long xstep = (long long){L} * incx;"]
    lines += [f"const bool in{u} = j + {u * L} < len;" for u in range(U)]
    lines += [f"const float va{u} = in{u} ? __ldcs(a{g} + j + {u * L}) : 0.f; "
              f"const float vx{u} = in{u} ? __ldg(xj + {u} * xstep) : 0.f;" for u in range(U)]
    return lines + [f"s{g}_{u} = fmaf(va{u}, vx{u}, s{g}_{u});" for u in range(U)]


def _reduction(cfg: SgemvConfig, g: int) -> List[str]:
    """Sum over the lanes of one row: xor shuffles with offsets below lanes_per_row
    stay inside each row's aligned group of lanes."""
    lines = [f"float sum = {' + '.join(_sums(cfg, g))};"]
    off = cfg.lanes_per_row // 2
    while off >= 1:
        lines.append(f"sum += __shfl_xor_sync(0xffffffffu, sum, {off});")
        off //= 2
    S = cfg.warps_per_row
    if S > 1:
        # the row's warps meet in shared memory; the first of them stores y
        lines += ["__shared__ float partial[%d];" % cfg.warps_per_block,
                  "if (lane == 0) partial[warp] = sum;",
                  "__syncthreads();",
                  f"if (warp % {S} == 0) {{",
                  "    sum = " + " + ".join(f"partial[warp + {w}]" for w in range(S)) + ";"]
        lines += ["    " + ln for ln in _store(cfg, "sum", f"row{g}", f"active{g} && lane == 0")]
        return lines + ["}"]
    return lines + _store(cfg, "sum", f"row{g}", f"active{g} && sub == 0")


def reduce_source(name: str, params=REDUCE_PARAMS, out: str = "y", at: str = "(long long)i * incy") -> KernelSource:
    """The split reduction `name`_reduce: output i (of `count`) sums its splits' partials in
    order and goes to out[at] (the GEMV's y at stride incy; the few-vector kernels' C)."""
    rname = f"{name}_reduce"
    text = render("sgemv_reduce.cu.j2", name=rname, threads=REDUCE_THREADS, warp_splits=REDUCE_WARP_SPLITS, entry=REDUCE_ENTRY,
                  groups=REDUCE_THREADS // 32, cols=REDUCE_COLS, params=c_params(params), out=out, at=at)
    geo = LaunchGeometry(block=(REDUCE_THREADS, 1, 1), tile_m=1, tile_n=1, dynamic_smem_bytes=0,
                         flat_elements=REDUCE_THREADS, programmatic=True)  # REDUCE_ENTRY
    return KernelSource(name=rname, language="cuda", text=text, geometry=geo, params=params)


def _module(cfg, name: str, text: str, geo: LaunchGeometry) -> KernelSource:
    """A GEMV kernel's module: its text, then the split reduction's (the `reduce` entry)."""
    reduce = reduce_source(name)
    geo = replace(geo, programmatic=bool(_entry(cfg)))  # the kernel begins with a PDL wait (_entry)
    return KernelSource(name=name, language="cuda", text=text + "\n" + reduce.text, geometry=geo,
                        params=kernel_params(cfg), reduce=reduce)


def emit_sgemv_cuda(cfg) -> KernelSource:
    """The module of `cfg`: its GEMV kernel and, as `reduce`, the split reduction."""
    if isinstance(cfg, SgemvTConfig):
        return _emit_t_staged(cfg) if cfg.stage_rows else _emit_t(cfg)
    if cfg.stage_cols:
        return _emit_staged(cfg)
    name = kernel_name(cfg)
    L, U, S = cfg.row_lanes, cfg.unroll, cfg.warps_per_row
    finish = _finish(cfg, name, "M", cfg.rows_per_block)
    decl, attrs = [], ""
    if cfg.cluster:
        fn, decl, _, tail = _cluster(cfg, name)
        finish, attrs = (fn, tail), f" __cluster_dims__(1, {cfg.cluster}, 1)"
    groups = [dict(g=g, vector_body=_vector_body(cfg, g), scalar_body=_scalar_body(cfg, g),
                   reduction=_reduction(cfg, g)) for g in range(cfg.row_groups)]
    text = render(
        "sgemv.cu.j2",
        name=name, entry=_entry(cfg),
        header=header(f"SGEMV kernel {name}", ROWS_COMPUTE, cfg, f"(ceil(M/{cfg.rows_per_block}), 1, 1)"),
        threads=cfg.threads,
        params=c_params(kernel_params(cfg)),
        base=(f"(blockIdx.x * {cfg.warps_per_block} + warp) * {cfg.row_groups * cfg.rows_per_warp} "
              f"+ lane / {cfg.lanes_per_row}") if S == 1 else
             f"(blockIdx.x * {cfg.warps_per_block // S} + warp / {S}) * {cfg.row_groups}",
        sub=f"lane % {cfg.lanes_per_row}" if S == 1 else f"(warp % {S}) * 32 + lane",
        rows_per_warp=cfg.rows_per_warp, row_groups=cfg.row_groups, lanes=L, unroll=U, vec=cfg.vec,
        step_vec=U * L, last_vec=(U - 1) * L, scalar_step=U * L if _scalar_in_flight(cfg) else L,
        group_setup=decl + _group_setup(cfg), attrs=attrs,
        short_rows=_short_rows(cfg) if cfg.vec == 4 else [],
        groups=groups,
        shared_x=cfg.share_x, shared_body=_shared_body(cfg) if cfg.share_x else [],
        shared_tail=_shared_tail(cfg) if cfg.share_x else [],
        finish_fn=finish[0], finish=finish[1],
    )
    return _rows_module(cfg, name, text)


def _rows_module(cfg: SgemvConfig, name: str, text: str) -> KernelSource:
    """An op N kernel's module: its text and the split reduction's (split-K over columns), a block
    a group of whole rows (gridDim.x over M, which can pass gridDim.y's 65535)."""
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=cfg.rows_per_block, tile_n=0, dynamic_smem_bytes=0,
                         cluster=cfg.cluster, whole_rows=True)
    return _module(cfg, name, text, geo)


def _t_sums(cfg: SgemvTConfig) -> List[str]:
    return [f"s{u}" for u in range(cfg.unroll)]


def _t_step(cfg: SgemvTConfig, vector: bool, tail: bool = False) -> List[str]:
    """One step of the row sweep: `unroll` rows' loads (A along the row, x broadcast) in
    flight, then the FMAs, each row feeding its own partial sums.

    tail: the rows left after the unrolled loop (fewer than `unroll` a thread: i, i + threads_y,
    ... < r1) in one predicated step, all loads in flight.  Before, a loop took them one row a
    thread at a time, a round trip each: 16384x128 op T with 132 splits (125 rows a split, one
    step of 64 and 61 left: about 8 serial rows a thread) ran 9.42 us against 6.88 with 128
    splits (two whole steps), commit 0bf45f3."""
    TY, U = cfg.threads_y, cfg.unroll
    lines = []
    for u in range(U):
        row = f"(i + {u * TY})"
        if tail:
            lines.append(f"const bool p{u} = {row} < r1;")
        x = f"__ldg(x + (long long){row} * incx)"
        lines.append(f"const float xv{u} = p{u} ? {x} : 0.f;" if tail else f"const float xv{u} = {x};")
        if vector:
            a = f"__ldcs(reinterpret_cast<const float4*>(a + (size_t){row} * lda))"
            lines.append(f"const float4 av{u} = p{u} ? {a} : make_float4(0.f, 0.f, 0.f, 0.f);" if tail
                         else f"const float4 av{u} = {a};")
        else:
            lines += [f"const float av{u}_{c} = {f'(p{u} && c{c})' if tail else f'c{c}'} ? "
                      f"__ldcs(a + (size_t){row} * lda + {c} * step_c) : 0.f;" for c in range(cfg.vec)]
    for u in range(U):
        for c in range(cfg.vec):
            comp = f"av{u}.{XYZW[c]}" if vector else f"av{u}_{c}"
            lines.append(f"s{u}[{c}] = fmaf({comp}, xv{u}, s{u}[{c}]);")
    return lines


def _emit_t(cfg: SgemvTConfig) -> KernelSource:
    name = kernel_name(cfg)
    finish = _finish(cfg, name, "N", cfg.strip)
    V = cfg.vec
    stores = [_store(cfg, f"t[{c}]", f"first + {c} * step_c", f"c{c}") for c in range(V)]
    decl, attrs = [], ""
    if cfg.cluster:
        fn, decl, stores, tail = _cluster(cfg, name)
        finish = (fn, tail)
        attrs = f" __cluster_dims__(1, {cfg.cluster}, 1)"
    text = render(
        "sgemv_t.cu.j2",
        name=name, entry=_entry(cfg),
        header=header(f"SGEMV-T kernel {name}", COLUMNS_COMPUTE, cfg, f"(ceil(N/{cfg.strip}), row splits, 1)"
                      + (f", clusters of (1, {cfg.cluster}, 1): gridDim.y must be {cfg.cluster}" if cfg.cluster else "")),
        threads=cfg.threads, attrs=attrs, decl=decl, tx=cfg.threads_x, ty=cfg.threads_y, vec=V, unroll=cfg.unroll,
        warp_reduce=cfg.warp_reduce, warps=cfg.threads // 32,
        step=cfg.unroll * cfg.threads_y, last=(cfg.unroll - 1) * cfg.threads_y,
        params=c_params(kernel_params(cfg)),
        sums=_t_sums(cfg), sum_c=" + ".join(f"{s}[c]" for s in _t_sums(cfg)),
        vector_body=_t_step(cfg, True) if V == 4 else [],
        scalar_body=_t_step(cfg, False),
        vector_tail=_t_step(cfg, True, tail=True) if V == 4 and cfg.unroll > 1 else [],
        scalar_tail=_t_step(cfg, False, tail=True) if cfg.unroll > 1 else [],
        **t_columns(cfg),
        stores=stores,
        finish_fn=finish[0], finish=finish[1],
    )
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=1 << 30, tile_n=cfg.strip, dynamic_smem_bytes=0,
                         cluster=cfg.cluster)
    return _module(cfg, name, text, geo)


def _staged_copy(unroll: int, stride: int) -> list:
    """A staging copy step: `unroll` predicated float4 loads in flight per thread, `stride`
    float4s apart (the copying threads), then their shared-memory stores: the whole copy in
    ceil(nv / (stride * unroll)) round trips, no one-load tail loop."""
    copy = [f"const bool in{u} = k + {stride * u} < nv;" for u in range(unroll)]
    copy += [f"const float4 v{u} = in{u} ? __ldcs(src4 + k + {stride * u}) : make_float4(0.f, 0.f, 0.f, 0.f);"
             for u in range(unroll)]
    copy += [f"if (in{u}) dst4[k + {stride * u}] = v{u};" for u in range(unroll)]
    return copy


def _emit_staged(cfg: SgemvConfig) -> KernelSource:
    """Many short rows (SgemvConfig.stage_cols): a warp copies its 32 contiguous rows to shared
    memory with `unroll` float4 loads a lane in flight, then lane l sums row r0 + l from there,
    x from the block's shared copy; `unroll` partial sums a lane."""
    name = kernel_name(cfg)
    U, W = cfg.unroll, cfg.warps_per_block
    sums = [f"s{u}" for u in range(U)]
    # predicated: the whole copy in ceil(nv / (32 * unroll)) round trips, no one-load tail loop
    copy = _staged_copy(U, 32)
    staged = [f"s{u} = fmaf(a[c + {u}], xsh[c + {u}], s{u});" for u in range(U)]
    direct = [f"const float a{u} = __ldcs(a + c + {u}); const float x{u} = __ldg(x + (long long)(c + {u}) * incx);"
              for u in range(U)]
    direct += [f"s{u} = fmaf(a{u}, x{u}, s{u});" for u in range(U)]
    text = render(
        "sgemv_staged.cu.j2",
        name=name, entry=_entry(cfg),
        header=header(f"SGEMV kernel {name} (rows staged in shared memory)", ROWS_COMPUTE, cfg,
                      f"(ceil(M/{cfg.rows_per_block}), 1, 1)"),
        threads=cfg.threads, warps=W, stage=cfg.stage_cols, unroll=U, step=32 * U,
        params=c_params(kernel_params(cfg)), sums=sums, copy_body=copy, staged_body=staged, direct_body=direct,
        store=_store(cfg, "sum", "row", "row < M"),
    )
    return _rows_module(cfg, name, text)


def _emit_t_staged(cfg: SgemvTConfig) -> KernelSource:
    """Op T on short unaligned rows (SgemvTConfig.stage_rows): the block copies a tile of rows,
    contiguous in memory, with `unroll` float4 loads a thread in flight (predicated: no one-load
    tail loop), then sums its columns from shared memory."""
    name = kernel_name(cfg)
    U, T, TX = cfg.unroll, cfg.threads, cfg.threads_x
    copy = _staged_copy(U, T)
    text = render(
        "sgemv_t_staged.cu.j2",
        name=name, entry=_entry(cfg),
        header=header(f"SGEMV-T kernel {name} (rows staged in shared memory)", COLUMNS_COMPUTE, cfg,
                      f"(ceil(N/{cfg.strip}), row splits, 1)"),
        threads=T, tx=TX, ty=cfg.threads_y, vec=cfg.vec, rows=cfg.stage_rows, strip=cfg.strip,
        copy_step=T * U, copy_body=copy, params=c_params(kernel_params(cfg)),
        stores=[_store(cfg, f"t[{c}]", f"strip0 + tx + {c * TX}", f"c{c}") for c in range(cfg.vec)],
    )
    geo = LaunchGeometry(block=(T, 1, 1), tile_m=1 << 30, tile_n=cfg.strip, dynamic_smem_bytes=0)
    return _module(cfg, name, text, geo)
