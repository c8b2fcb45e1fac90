"""What an emitter hands to the compiler: the kernel text and how to launch it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

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
SPLITK_REDUCE_PARAMS: Tuple[Tuple[str, str], ...] = (
    ("M", "int"), ("N", "int"),
    ("alpha", "float"), ("W", "const float*"),
    ("beta", "float"), ("C", "float*"), ("ldc", "int"),
)


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

    def grid(self, m: int, n: int, batch: int = 1) -> Tuple[int, int, int]:
        if self.stream_k:
            raise ValueError("a stream-K kernel's grids come from its plan (StreamKPlan.whole_tiles and "
                             ".ranges), not from M x N alone")
        if self.flat_elements:
            return (-(-(m * n) // self.flat_elements), 1, 1)
        if self.whole_rows:
            return (-(-m // self.tile_m), 1, 1)
        if self.batched:
            return (-(-n // self.tile_n), -(-m // self.tile_m), batch)
        return (-(-n // self.tile_n), -(-m // self.tile_m), self.splits)

    def describe(self) -> str:
        if self.stream_k:
            return "(blocks of the stream-K work list, 1, 1)"
        if self.flat_elements:
            return f"(ceil(M*N/{self.flat_elements}), 1, 1)"
        if self.whole_rows:
            return f"(ceil(M/{self.tile_m}), 1, 1)"
        if self.batched:
            return f"(ceil(N/{self.tile_n}), ceil(M/{self.tile_m}), batch)"
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
        return d


@dataclass(frozen=True)
class KernelSource:
    name: str  # the kernel's extern "C" symbol
    language: str  # "cuda" or "ptx"
    text: str
    geometry: LaunchGeometry
    params: Tuple[Tuple[str, str], ...]
    # Split-K: the reduction kernel, launched after this one on the same stream.  Its
    # text is also part of this text (one module); here it stands alone as well.
    reduce: Optional["KernelSource"] = None
    # Stream-K: the work-list kernel for the K ranges of the last wave's tiles (same
    # module), launched after this one (the whole tiles).
    ranges: Optional["KernelSource"] = None
    # Edge split (codegen/edges.py): the small-tile kernel for C's ragged edges (same
    # module; a stream-K kernel with its own `ranges`).
    edge: Optional["KernelSource"] = None
    # Run the SASS register-bank pass (runtime/sass_pass.py) on the compiled cubin.
    sass_pass: bool = False
    # Operand layouts (config.trans_a / trans_b): what a caller needs to offset sub-matrices
    # (an edge split's parts: codegen/edges.part_offsets).
    trans_a: bool = False
    trans_b: bool = False

    @property
    def suffix(self) -> str:
        return {"cuda": ".cu", "ptx": ".ptx"}[self.language]
