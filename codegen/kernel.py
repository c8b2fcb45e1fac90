"""What an emitter hands to the compiler: the kernel text and how to launch it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

# The largest value of a kernel's "int" parameter (M, N, K, the leading dimensions): the one
# limit of the operand parser (runtime/arrays.py) and of the CLI's sizes (tools/options.py).
INT_MAX = 2**31 - 1

# The SGEMM kernel's parameters, in order.  Both backends emit exactly this
# signature, and the runtime packs its arguments from it.
SGEMM_PARAMS: Tuple[Tuple[str, str], ...] = (
    ("M", "int"), ("N", "int"), ("K", "int"),
    ("alpha", "float"),
    ("A", "const float*"), ("lda", "int"),
    ("B", "const float*"), ("ldb", "int"),
    ("beta", "float"),
    ("C", "float*"), ("ldc", "int"),
)

# Strided batch (config.batched): three more parameters right after ldc, in floats; the
# batch index is blockIdx.z (gridDim.z the batch count); a stride of 0 broadcasts.
BATCH_PARAMS: Tuple[Tuple[str, str], ...] = (
    ("stride_a", "long long"), ("stride_b", "long long"), ("stride_c", "long long"),
)


def with_batch(params: Tuple[Tuple[str, str], ...], batched: bool) -> Tuple[Tuple[str, str], ...]:
    """`params` with BATCH_PARAMS after ldc when batched (the SGEMM and stream-K lists)."""
    if not batched:
        return params
    at = [name for name, _ in params].index("ldc") + 1
    return params[:at] + BATCH_PARAMS + params[at:]


# Split-K (codegen/splitk.py), CUDA C backend.  The partial kernel: blockIdx.z = split
# s takes its K range of A and B and writes its partial tile to the workspace W[s]
# (M x N, row-major, ld N).  The reduce kernel: C = alpha * sum_s W[s] + beta * C.
SPLITK_PARAMS: Tuple[Tuple[str, str], ...] = (
    ("M", "int"), ("N", "int"), ("K_total", "int"),
    ("A", "const float*"), ("lda", "int"),
    ("B", "const float*"), ("ldb", "int"),
    ("W", "float*"),
)
# Stream-K (codegen/streamk.py), PTX backend: the ranges kernel takes the SGEMM's
# parameters, then the work list (items, per-block starts and the partial slots' flags,
# int32) and the partial-tile slots.
STREAMK_PARAMS: Tuple[Tuple[str, str], ...] = SGEMM_PARAMS + (
    ("items", "const int*"), ("starts", "const int*"), ("flags", "int*"), ("partials", "float*"),
)
# A batch split over K (config.batched with split_k > 1): blockIdx.z = entry x split_k + split; the partial kernel
# takes A's and B's batch strides after its own parameters, the reduce C's (W[z]: entry's partials in split order).
SPLITK_BATCH_PARAMS: Tuple[Tuple[str, str], ...] = (("stride_a", "long long"), ("stride_b", "long long"))
SPLITK_REDUCE_BATCH_PARAMS: Tuple[Tuple[str, str], ...] = (("stride_c", "long long"),)
SPLITK_REDUCE_PARAMS: Tuple[Tuple[str, str], ...] = (
    ("M", "int"), ("N", "int"),
    ("alpha", "float"), ("W", "const float*"),
    ("beta", "float"), ("C", "float*"), ("ldc", "int"),
)



XYZW = "xyzw"  # a float4's components, in order (every CUDA C emitter)


# Programmatic dependent launch (sm_90, "PDL").  A kernel that runs right after another on the
# same stream and reads what that one wrote, or overwrites what it reads (a split's reduce after
# its partials; a few-vector GEMV after its staging; a split's partial kernel after the previous
# call's reduce, which reads the workspace it writes) has `programmatic` in its geometry and begins
# with PDL_WAIT; the
# runtime launches it with the programmatic-stream-serialization attribute (runtime/driver.py).
# Its blocks are then scheduled once every block of the kernel before has passed PDL_TRIGGER
# (where that kernel places it, or as its blocks exit: pdl_trigger_if, emit_sgemv.GEMV_ENTRY),
# and PDL_WAIT holds them until that kernel has finished and its writes are visible: the launch
# gap between the two leaves the critical path.  Nothing may touch global memory before
# PDL_WAIT but l2_prefetch (below).  Without the attribute, and below sm_90, where both lines
# compile to nothing, the launches are plain stream-ordered ones.  (The PTX SGEMM kernels' lines:
# emit_ptx.pdl_entry.)
_SM90 = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900"
PDL_WAIT = (_SM90, 'asm volatile("griddepcontrol.wait;" ::: "memory");  // the kernel before it: finished, '
            "writes visible", "#endif")
PDL_TRIGGER = (_SM90, 'asm volatile("griddepcontrol.launch_dependents;");  // the next kernel may be scheduled '
               "(it waits for this one)", "#endif")
# A programmatic kernel that lets the next one in at its entry does it right after its own wait: before the wait, a
# call's blocks, scheduled while the call before still runs, would let the call after them be scheduled too, and
# calls pile up in the block slots; after it, one call ahead at most (session 39, H200: the PTX one-pass kernel 2.1%
# faster back to back and 5.2% in CUDA graphs, the few-vector kernels 0.5% / 0.2%; docs/shapes.md).  The short GEMVs
# keep their trigger before the wait (emit_sgemv.GEMV_ENTRY: the pile-up pays there); the fused split-K kernels have
# none (emit_fusedk.ENTRY: the next call's blocks, early, slowed the running call's beside them).  The PTX kernels'
# lines: emit_ptx.pdl_entry (PDL_TRIGGER_AFTER_WAIT).
PDL_ENTRY = PDL_WAIT + PDL_TRIGGER


def l2_prefetch(address: str) -> str:
    """The one access allowed before PDL_WAIT: asking L2 for the line at `address`
    (prefetch.global.L2, a hint - nothing enters the SM, and L2 is where every write of the kernel
    before lands, so what the kernel loads after the wait is current).  Device code: a caller
    emitting it for the host emulation (tests/host_cuda.py compiles the text as C++) wraps it in
    `#if defined(__CUDA_ARCH__)`.  The few-vector kernels' prefetch_steps (emit_fewvec._main_entry)."""
    return f'asm volatile("prefetch.global.L2 [%0];" :: "l"({address}));'


def pdl_trigger_if(condition: str) -> Tuple[str, ...]:
    """PDL_TRIGGER where the C `condition` holds (uniform across the grid); elsewhere the kernel's
    dependents are scheduled as its blocks exit, as without the line."""
    return (_SM90, f'if ({condition}) asm volatile("griddepcontrol.launch_dependents;");  // else: at exit',
            "#endif")


def c_params(params: Tuple[Tuple[str, str], ...]) -> str:
    """A kernel's CUDA C parameter list from its (name, C type) pairs: pointers __restrict__ (no
    two operands alias), as every CUDA C template declares them."""
    return ", ".join(f"{ctype} {'__restrict__ ' if '*' in ctype else ''}{pname}" for pname, ctype in params)


@dataclass(frozen=True)
class LaunchGeometry:
    """Block shape, dynamic shared memory, and the output tile one block covers.

    SGEMM: blocks along x cover N (tile_n columns), along y cover M (tile_m rows).
    SGEMV (whole_rows): blocks along x cover M (tile_m rows), the whole of N each,
    since M can pass gridDim.y's limit of 65535 blocks.
    Split-K: `splits` blocks along z, one K range each.  Split-K reduction
    (flat_elements > 0): a 1-D grid over the M*N elements, flat_elements a block."""
    block: Tuple[int, int, int]
    tile_m: int
    tile_n: int
    dynamic_smem_bytes: int
    whole_rows: bool = False
    splits: int = 1
    flat_elements: int = 0
    # Stream-K: the grid comes from the work list (codegen/streamk.py), not from M x N;
    # tile_k (BK) is the unit of its K ranges.
    stream_k: bool = False
    tile_k: int = 0
    # Strided batch: blocks along z are the batch (grid(m, n, batch)).
    batched: bool = False
    # A thread-block cluster compiled into the kernel (__cluster_dims__(1, cluster, 1), the
    # SGEMV splits meeting in distributed shared memory): gridDim.y must be `cluster`.
    cluster: int = 0
    # Launched as a programmatic dependent of the kernel before it (PDL_WAIT above).
    programmatic: bool = False
    # SGEMM with C's last column fused into the last tile column (config.last_col): the kernel's N
    # (and its grid's, and a stream-K plan's) is C's columns less one; stream-K's partial slots
    # hold tile_m more floats (codegen/ptx_last_col.py).
    last_col: bool = False

    def columns(self, n: int) -> int:
        """The kernel's N for a C of n columns: n, or n - 1 where it fuses C's last column (last_col)."""
        return n - 1 if self.last_col else n

    def grid(self, m: int, n: int, batch: int = 1) -> Tuple[int, int, int]:
        if self.stream_k:
            raise ValueError("a stream-K kernel's grids come from its plan (StreamKPlan.whole_tiles and "
                             ".ranges), not from M x N alone")
        if self.flat_elements:
            return (-(-(m * n) // self.flat_elements), 1, 1)
        if self.whole_rows:
            return (-(-m // self.tile_m), 1, 1)
        if self.batched:
            return (-(-n // self.tile_n), -(-m // self.tile_m), batch * self.splits)
        return (-(-n // self.tile_n), -(-m // self.tile_m), self.splits)

    def describe(self) -> str:
        if self.stream_k:
            return "(blocks of the stream-K work list, 1, 1)"
        if self.flat_elements:
            return f"(ceil(M*N/{self.flat_elements}), 1, 1)"
        if self.whole_rows:
            return f"(ceil(M/{self.tile_m}), 1, 1)"
        if self.batched:
            return f"(ceil(N/{self.tile_n}), ceil(M/{self.tile_m}), batch{f' x {self.splits}' if self.splits > 1 else ''})"
        return f"(ceil(N/{self.tile_n}), ceil(M/{self.tile_m}), {self.splits})"

    def to_dict(self) -> dict:
        d = {"block": list(self.block), "tile_m": self.tile_m, "tile_n": self.tile_n,
             "dynamic_smem_bytes": self.dynamic_smem_bytes, "grid": self.describe()}
        if self.splits > 1:
            d["splits"] = self.splits
        if self.flat_elements:
            d["flat_elements"] = self.flat_elements
        if self.stream_k:
            d["stream_k"] = True
        if self.batched:
            d["batched"] = True
        if self.cluster:
            d["cluster"] = self.cluster
        if self.programmatic:
            d["programmatic"] = True
        return d


# The roles of a module's entries beside its main kernel, and how a listing names them.
ENTRY_ROLES = {
    "reduce": "split-K reduction",  # split-K (codegen/splitk.py), GEMV's K split: launched after main
    "ranges": "stream-K ranges",  # stream-K (codegen/streamk.py): the work list, after the whole tiles
    "edge": "edge strips",  # edge split (codegen/edges.py): C's ragged edges; its own entries hold its ranges
    "stage": "vector staging",  # few-vector GEMV (codegen/emit_fewvec.py): launched before main
}


@dataclass(frozen=True, init=False)
class KernelSource:
    """One module: the main kernel (name, text of the whole module, geometry, parameters) and
    its other kernels as named entries, in text order: `entries` holds (role, KernelSource)
    pairs, roles from ENTRY_ROLES.  `reduce=`, `ranges=` and `edge=` name one entry each, as
    keywords of the constructor and as properties (None where the module has no such entry)."""
    name: str  # the main kernel's extern "C" symbol
    language: str  # "cuda" or "ptx"
    text: str  # the whole module: the main kernel's text and every entry's
    geometry: LaunchGeometry
    params: Tuple[Tuple[str, str], ...]
    entries: Tuple[Tuple[str, "KernelSource"], ...]
    # Run the SASS register-bank pass (sass/bank_pass.py, applied by runtime/sass_stage.py) on the compiled cubin.
    sass_pass: bool
    # Operand layouts (config.trans_a / trans_b): what a caller needs to offset sub-matrices
    # (an edge split's parts: codegen/edges.part_offsets).
    trans_a: bool
    trans_b: bool

    def __init__(self, name: str, language: str, text: str, geometry: LaunchGeometry,
                 params: Tuple[Tuple[str, str], ...], entries: Tuple[Tuple[str, "KernelSource"], ...] = (),
                 sass_pass: bool = False, trans_a: bool = False, trans_b: bool = False, *,
                 reduce: Optional["KernelSource"] = None, ranges: Optional["KernelSource"] = None,
                 edge: Optional["KernelSource"] = None):
        named = tuple((role, src) for role, src in (("reduce", reduce), ("ranges", ranges), ("edge", edge))
                      if src is not None)
        entries = tuple(entries) + named
        for role, _ in entries:
            if role not in ENTRY_ROLES:
                raise ValueError(f"entry role {role!r}: one of {tuple(ENTRY_ROLES)}")
        if len({role for role, _ in entries}) != len(entries):
            raise ValueError(f"entries name a role twice: {[role for role, _ in entries]}")
        for field, value in (("name", name), ("language", language), ("text", text), ("geometry", geometry),
                             ("params", tuple(params)), ("entries", entries), ("sass_pass", sass_pass),
                             ("trans_a", trans_a), ("trans_b", trans_b)):
            object.__setattr__(self, field, value)

    def entry(self, role: str) -> Optional["KernelSource"]:
        """The module's entry of `role` (ENTRY_ROLES), None where it has none."""
        return dict(self.entries).get(role)

    def kernels(self, prefix: str = "") -> Tuple[Tuple[str, "KernelSource"], ...]:
        """Every kernel of the module by role path, in text order: ("main", self), then each
        entry and the entries of those ("edge/ranges": an edge split's work-list kernel)."""
        out: Tuple[Tuple[str, "KernelSource"], ...] = ((prefix or "main", self),)
        for role, src in self.entries:
            out += src.kernels(f"{prefix}/{role}" if prefix else role)
        return out

    @property
    def reduce(self) -> Optional["KernelSource"]:
        return self.entry("reduce")

    @property
    def ranges(self) -> Optional["KernelSource"]:
        return self.entry("ranges")

    @property
    def edge(self) -> Optional["KernelSource"]:
        return self.entry("edge")

    @property
    def suffix(self) -> str:
        return {"cuda": ".cu", "ptx": ".ptx"}[self.language]
