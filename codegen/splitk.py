"""Split-K: more blocks for shapes whose M x N tiles leave SMs idle.

With split_k = S > 1 the SGEMM becomes two kernels in one module, launched in order on
one stream:

1. the partial kernel: the config's kernel with a grid of S blocks along z.  Block z
   takes a contiguous range of the ceil(K/BK) k-tiles (below), runs the unchanged main
   loop over it, and stores its accumulators to the workspace W[z] (M x N fp32,
   row-major, ld N) - never alpha, beta or C.  Every split writes its whole partial,
   zeros when its range is empty (K < S*BK), so the reduction reads no stale data;
2. the reduce kernel: C = alpha * (W[0] + W[1] + ... + W[S-1]) + beta * C, summed in
   one fixed order for every element (G warps each sum every G-th partial, then the G
   sums in warp order: the same bits on every run; below), C not read when beta == 0
   (BLAS semantics, as the one-pass epilogue).

K ranges (`k_begin`): the T = ceil(K/BK) k-tiles are dealt out as evenly as possible,
q, r = divmod(T, S), split z taking tiles [z*q + min(z, r), (z+1)*q + min(z+1, r)):
the first r splits get q+1 tiles, the others q.  Each range starts at a multiple of BK,
and only the last non-empty one can end at K short of a full tile.  The same function
gives the numbers (tests) and the kernel's C expression (evaluated on `Sym`s).

Workspace: S * M * N * 4 bytes (a batch's: that for each entry), allocated by the runtime (runtime/sgemm_launch.py).
A batch (config.batched) splits each entry: blockIdx.z = entry x S + split, A and B moved to the entry by their batch
strides, W[blockIdx.z] its partial; the reduce sums entry z's W[z x S ..] into C + z x stride_c.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from .expr import IntLike, Sym, c_expr
from .kernel import (PDL_ENTRY, PDL_TRIGGER, PDL_WAIT, SPLITK_REDUCE_BATCH_PARAMS, SPLITK_REDUCE_PARAMS, XYZW,
                     KernelSource, LaunchGeometry, c_params)
from .templates import render

# The reduce kernel: a block sums REDUCE_ELEMENTS consecutive elements of C (row-major M x N)
# over the S splits.  Its 32 lanes split the elements (4 a lane: a float4 when N % 4 == 0, else
# elements lane, lane + 32, lane + 64, lane + 96: a load instruction of a warp reads 128
# consecutive bytes either way), and its G = min(S, REDUCE_GROUPS) warps split the partials: warp g
# sums splits g, g + G, g + 2G, ... in order, then warp 0 adds the G sums in warp order from
# shared memory.  The order is fixed, so every run gives the same bits.  (One thread an element
# walking all S partials left 65x33 at 32 splits to 3 blocks of 128 dependent-free but
# serialised loads a thread: 5.8 us on the H100, 16.5 us at 64 splits, where cuBLAS's reduce
# took 3.7 us; lab/experiments/tiny_longk_kernels.)
REDUCE_VEC = len(XYZW)  # elements a lane: one float4, or 4 floats 32 apart
REDUCE_ELEMENTS = 32 * REDUCE_VEC
REDUCE_GROUPS = 8


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
# Whether the partial kernel is itself a programmatic dependent of the kernel before it (the previous
# call's reduce, most often): it then waits first and lets its own reduce be scheduled right after
# (kernel.PDL_ENTRY; session 39's A/B: 8.9% faster back to back, docs/shapes.md); else it is launched
# plainly and triggers at its entry.
PARTIAL_PROGRAMMATIC = True


def partial_pdl() -> List[str]:
    """The partial kernel's first lines: its wait where it is launched programmatic, then the trigger that lets
    the reduce kernel, launched next, be scheduled (kernel.PDL_WAIT)."""
    return list(PDL_ENTRY if PARTIAL_PROGRAMMATIC else PDL_TRIGGER)


def partial_prologue(bk: int, split_k: int, batched: bool = False) -> List[str]:
    """The first lines of the partial kernel: this split's K range, with K rebound to
    its length, so the main loop and its bounds checks are the one-pass kernel's; the
    global copies start at k_begin
    (emit_cuda._copy_setup).  A and B stay the parameters: a shifted copy of them
    would be one more 64-bit value live through the loop (spills under the 128-register
    cap of min_blocks=2)."""
    K, z, t = Sym("K_total"), Sym("split"), Sym("k_tiles_total")
    entry = [f"// a batch split over K: blockIdx.z = entry x {split_k} + split (W[blockIdx.z]: the entry's partials"
             f" in split order)",
             f"const int split = blockIdx.z % {split_k};",
             f"A += (long long)(blockIdx.z / {split_k}) * stride_a;",
             f"B += (long long)(blockIdx.z / {split_k}) * stride_b;"] if batched else ["const int split = blockIdx.z;"]
    return [
        f"// split-K: split {'blockIdx.z % ' + str(split_k) if batched else 'blockIdx.z'} of {split_k} takes "
        f"k-tiles [k_begin/{bk}, k_end/{bk}) of the ceil(K/{bk})",
        *entry,
        f"const int k_tiles_total = (K_total + {bk} - 1) / {bk};",
        f"const int k_begin = {c_expr(k_begin(K, bk, split_k, z, t))};",
        f"const int k_end = {c_expr(k_begin(K, bk, split_k, z + 1, t))};",
        "// K below is this split's length, k counts from k_begin; 0 for an empty split: its partial is zeros",
        "const int K = k_end - k_begin;",
    ]


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
def reduce_name(split_k: int, batched: bool = False) -> str:
    return f"regtile_splitk_reduce_{split_k}{'_batched' if batched else ''}"


def reduce_groups(split_k: int) -> int:
    """Warps of a reduce block: each sums every G-th partial."""
    return min(split_k, REDUCE_GROUPS)


def reduce_geometry(split_k: int) -> LaunchGeometry:
    """The reduce's grid: blocks of REDUCE_ELEMENTS along x (a batch's entries along z: the launch's)."""
    return LaunchGeometry(block=(32 * reduce_groups(split_k), 1, 1), tile_m=1, tile_n=REDUCE_ELEMENTS,
                          dynamic_smem_bytes=0, flat_elements=REDUCE_ELEMENTS, programmatic=True)


def _group_sum(split_k: int, load) -> List[str]:
    """Warp g's sum of splits g, g + G, ... (in order) of its lane's elements: `load(z)` is the
    statement that adds split z's values, for a `z` in C.  A trip past the last split, where G does
    not divide S, is skipped by its guard."""
    groups = reduce_groups(split_k)
    trips = -(-split_k // groups)
    guard = "if (z < {s}) ".format(s=split_k) if split_k % groups else ""
    return [f"// warp g: splits g, g + {groups}, ... ({trips} at most)",
            "#pragma unroll",
            f"for (int j = 0; j < {trips}; ++j) {{",
            f"    const int z = g + j * {groups};",
            f"    {guard}{load}",
            "}"]


def emit_reduce(split_k: int, batched: bool = False) -> KernelSource:
    """The reduce kernel; `batched`: one entry of a batch a blockIdx.z, its partials W[z x split_k ..] and its C
    stride_c floats after the entry before (SPLITK_REDUCE_BATCH_PARAMS)."""
    name = reduce_name(split_k, batched)
    params = SPLITK_REDUCE_PARAMS + (SPLITK_REDUCE_BATCH_PARAMS if batched else ())
    geo = reduce_geometry(split_k)
    groups = reduce_groups(split_k)
    adds = " ".join(f"s.{c} += p.{c};" for c in XYZW)
    ctx = dict(
        name=name,
        header=[f"regtile split-K reduction {name}",
                f"C = alpha * (W[0] + ... + W[{split_k - 1}]) + beta * C, in a fixed order (deterministic); "
                f"C not read when beta == 0.",
                f"W: {split_k} partial M x N tiles, row-major, ld N (written by the split-K SGEMM kernel).",
                f"launch: block ({32 * groups}, 1, 1), grid {geo.describe()}: {REDUCE_ELEMENTS} consecutive "
                f"elements a block, {REDUCE_VEC} a lane (a float4 when N % 4 == 0 and C's rows are 16-byte "
                f"aligned); warp g of {groups} sums splits g, g + {groups}, ..., warp 0 adds the {groups} sums"],
        threads=32 * groups,
        groups=groups,
        elements=REDUCE_ELEMENTS,
        entry=list(PDL_WAIT) + ([f"// a batch: entry blockIdx.z, its {split_k} partials and its C",
                                  f"W += (size_t)blockIdx.z * {split_k} * M * N;",
                                  "C += (long long)blockIdx.z * stride_c;"] if batched else []),
        params=c_params(params),
        vector_sum=_group_sum(split_k, "{ const float4 p = __ldcs(reinterpret_cast<const float4*>(W + z * mn + e)); "
                                       + adds + " }"),
        scalar_sum=_group_sum(split_k, "{ const float* const w = W + z * mn + e; "
                                       + " ".join(f"if (e + {32 * u} < mn) s.{c} += __ldcs(w + {32 * u});"
                                                  for u, c in enumerate(XYZW)) + " }"),
        xyzw=XYZW,
    )
    text = render("splitk_reduce.cu.j2", **ctx)
    return KernelSource(name=name, language="cuda", text=text, geometry=geo, params=params)


def header_lines(bk: int, split_k: int, reduce: Optional[KernelSource], batched: bool = False) -> List[str]:
    """What the partial kernel's header comment says about the split."""
    red = reduce.name if reduce is not None else reduce_name(split_k, batched)
    params, z, w, c = (("W, stride_a, stride_b", f"entry x {split_k} + split z (A and B moved to the entry)",
                        "W[blockIdx.z]", f"C_entry = alpha * sum_z W[entry x {split_k} + z] + beta * C_entry")
                       if batched else ("W", "split z", "W[z]", "C = alpha * sum_z W[z] + beta * C"))
    return ["",
            f"split-K {split_k}{', batched' if batched else ''}: params (M, N, K_total, A, lda, B, ldb, {params}); "
            f"blockIdx.z = {z} takes k-tiles "
            f"[z*q + min(z, r), (z+1)*q + min(z+1, r)), q, r = divmod(ceil(K/{bk}), {split_k}),",
            f"and writes its partial tile to {w} (M x N, ld N; zeros for an empty range); then {red} "
            f"(below, launched next on the same stream) computes {c}."]
