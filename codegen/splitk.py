"""Split-K: more blocks for shapes whose M x N tiles leave SMs idle.

With split_k = S > 1 the SGEMM becomes two kernels in one module, launched in order on
one stream:

1. the partial kernel: the config's kernel with a grid of S blocks along z.  Block z
   takes a contiguous range of the ceil(K/BK) k-tiles (below), runs the unchanged main
   loop over it, and stores its accumulators to the workspace W[z] (M x N fp32,
   row-major, ld N) - never alpha, beta or C.  Every split writes its whole partial,
   zeros when its range is empty (K < S*BK), so the reduction reads no stale data;
2. the reduce kernel: C = alpha * (W[0] + W[1] + ... + W[S-1]) + beta * C, summed in
   that order for every element (deterministic: the same bits on every run), C not
   read when beta == 0 (BLAS semantics, as the one-pass epilogue).

K ranges (`k_begin`): the T = ceil(K/BK) k-tiles are dealt out as evenly as possible,
q, r = divmod(T, S), split z taking tiles [z*q + min(z, r), (z+1)*q + min(z+1, r)):
the first r splits get q+1 tiles, the others q.  Each range starts at a multiple of BK,
and only the last non-empty one can end at K short of a full tile.  The same function
gives the numbers (tests) and the kernel's C expression (evaluated on `Sym`s).

Workspace: S * M * N * 4 bytes, allocated by the runtime (runtime/sgemm_launch.py).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from .expr import IntLike, Sym, c_expr
from .kernel import PDL_TRIGGER, PDL_WAIT, SPLITK_REDUCE_PARAMS, KernelSource, LaunchGeometry, c_params
from .templates import render

# The reduce kernel: one thread per REDUCE_VEC consecutive elements (a float4 of a row
# of C when N % 4 == 0), REDUCE_THREADS threads a block.
REDUCE_THREADS = 256
REDUCE_VEC = 4
_XYZW = "xyzw"


# ---- K ranges ---------------------------------------------------------------------
def imin(a: IntLike, b: IntLike) -> IntLike:
    """min for ints, or the C `min(a, b)` for symbols."""
    if isinstance(a, Sym) or isinstance(b, Sym):
        return Sym(f"min({c_expr(a)}, {c_expr(b)})")
    return min(a, b)


def k_tiles(K: int, bk: int) -> int:
    return -(-K // bk)


def k_begin(K: IntLike, bk: int, split_k: int, z: IntLike, tiles: IntLike) -> IntLike:
    """First k of split z (of split_k) over `tiles` = ceil(K/BK) k-tiles; split z ends
    where split z+1 begins (k_begin of z = split_k is K)."""
    q, r = tiles // split_k, tiles % split_k
    return imin(K, (z * q + imin(z, r)) * bk)


def k_range(K: int, bk: int, split_k: int, z: int) -> Tuple[int, int]:
    """[begin, end) of split z as numbers."""
    t = k_tiles(K, bk)
    return k_begin(K, bk, split_k, z, t), k_begin(K, bk, split_k, z + 1, t)


def workspace_floats(split_k: int, m: int, n: int) -> int:
    return split_k * m * n if split_k > 1 else 0


# ---- the partial kernel (the program's k_range "split"; emit_cuda.py spells it) ------
def partial_prologue(bk: int, split_k: int) -> List[str]:
    """The first lines of the partial kernel: this split's K range, with K rebound to
    its length, so the main loop and its bounds checks are the one-pass kernel's; the
    global copies start at k_begin
    (emit_cuda._copy_setup).  A and B stay the parameters: a shifted copy of them
    would be one more 64-bit value live through the loop (spills under the 128-register
    cap of min_blocks=2)."""
    K, z, t = Sym("K_total"), Sym("split"), Sym("k_tiles_total")
    return [
        f"// split-K: split blockIdx.z of {split_k} takes k-tiles [k_begin/{bk}, k_end/{bk}) of the ceil(K/{bk})",
        "const int split = blockIdx.z;",
        f"const int k_tiles_total = (K_total + {bk} - 1) / {bk};",
        f"const int k_begin = {c_expr(k_begin(K, bk, split_k, z, t))};",
        f"const int k_end = {c_expr(k_begin(K, bk, split_k, z + 1, t))};",
        "// K below is this split's length, k counts from k_begin; 0 for an empty split: its partial is zeros",
        "const int K = k_end - k_begin;",
    ] + list(PDL_TRIGGER)  # the reduce kernel, launched next, may be scheduled (kernel.PDL_WAIT)


def partial_store_setup(vec_store: bool) -> List[str]:
    """Before the partial kernel's stores: its tile of the workspace.  Made here, after
    the main loop, not at the top: a pointer made before the loop stays live through it
    (measured: spills of the min_blocks=2 presets under their 128-register cap)."""
    lines = ["// this split's partial tile: W[split], M x N, row-major, ld N",
             "float* const Wz = W + (size_t)blockIdx.z * M * N;"]
    if vec_store:
        lines.append("const bool c_vec_ok = (N % 4 == 0) && (reinterpret_cast<size_t>(Wz) % 16 == 0);")
    return lines


# ---- the reduce kernel ----------------------------------------------------------------
def reduce_name(split_k: int) -> str:
    return f"regtile_splitk_reduce_{split_k}"


def reduce_geometry() -> LaunchGeometry:
    return LaunchGeometry(block=(REDUCE_THREADS, 1, 1), tile_m=1, tile_n=REDUCE_THREADS * REDUCE_VEC,
                          dynamic_smem_bytes=0, flat_elements=REDUCE_THREADS * REDUCE_VEC, programmatic=True)


def _vector_sum(split_k: int) -> List[str]:
    """float4 of W[0], then W[1] .. W[S-1] added in order (streaming loads: each
    partial is read once)."""
    lines = ["float4 s = __ldcs(reinterpret_cast<const float4*>(W + e));  // W[0]"]
    for z in range(1, split_k):
        adds = " ".join(f"s.{c} += p.{c};" for c in _XYZW)
        lines.append(f"{{ const float4 p = __ldcs(reinterpret_cast<const float4*>(W + {z} * mn + e)); {adds} }}"
                     f"  // W[{z}]")
    return lines


def _scalar_sum(split_k: int) -> str:
    """The same sum, one float: ((W[0] + W[1]) + W[2]) + ..., the vector path's order."""
    terms = ["W[f]"] + [f"W[{z} * mn + f]" for z in range(1, split_k)]
    return " + ".join(terms)


def emit_reduce(split_k: int) -> KernelSource:
    name = reduce_name(split_k)
    geo = reduce_geometry()
    ctx = dict(
        name=name,
        header=[f"regtile split-K reduction {name}",
                f"C = alpha * (W[0] + ... + W[{split_k - 1}]) + beta * C, summed in split order (deterministic); "
                f"C not read when beta == 0.",
                f"W: {split_k} partial M x N tiles, row-major, ld N (written by the split-K SGEMM kernel).",
                f"launch: block ({REDUCE_THREADS}, 1, 1), grid {geo.describe()}; {REDUCE_VEC} consecutive elements "
                f"a thread, float4 when N % 4 == 0 and C's rows are 16-byte aligned"],
        threads=REDUCE_THREADS,
        entry=PDL_WAIT,  # launched right after the partial kernel (kernel.PDL_WAIT)
        vec=REDUCE_VEC,
        params=c_params(SPLITK_REDUCE_PARAMS),
        vector_sum=_vector_sum(split_k),
        vector_out=", ".join(f"alpha * s.{c} + beta * o.{c}" for c in _XYZW),
        scalar_sum=_scalar_sum(split_k),
    )
    text = render("splitk_reduce.cu.j2", **ctx)
    return KernelSource(name=name, language="cuda", text=text, geometry=geo, params=SPLITK_REDUCE_PARAMS)


def header_lines(bk: int, split_k: int, reduce: Optional[KernelSource]) -> List[str]:
    """What the partial kernel's header comment says about the split."""
    red = reduce.name if reduce is not None else reduce_name(split_k)
    return ["",
            f"split-K {split_k}: params (M, N, K_total, A, lda, B, ldb, W); blockIdx.z = split z takes k-tiles "
            f"[z*q + min(z, r), (z+1)*q + min(z+1, r)), q, r = divmod(ceil(K/{bk}), {split_k}),",
            f"and writes its partial tile to W[z] (M x N, ld N; zeros for an empty range); then {red} "
            f"(below, launched next on the same stream) computes C = alpha * sum_z W[z] + beta * C."]
