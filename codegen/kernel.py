"""What an emitter hands to the compiler: the kernel text and how to launch it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

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


@dataclass(frozen=True)
class LaunchGeometry:
    """Block shape, dynamic shared memory, and the output tile one block covers.

    SGEMM: blocks along x cover N (tile_n columns), along y cover M (tile_m rows).
    SGEMV (whole_rows): blocks along x cover M (tile_m rows), the whole of N each,
    since M can pass gridDim.y's limit of 65535 blocks."""
    block: Tuple[int, int, int]
    tile_m: int
    tile_n: int
    dynamic_smem_bytes: int
    whole_rows: bool = False

    def grid(self, m: int, n: int) -> Tuple[int, int, int]:
        if self.whole_rows:
            return (-(-m // self.tile_m), 1, 1)
        return (-(-n // self.tile_n), -(-m // self.tile_m), 1)

    def describe(self) -> str:
        if self.whole_rows:
            return f"(ceil(M/{self.tile_m}), 1, 1)"
        return f"(ceil(N/{self.tile_n}), ceil(M/{self.tile_m}), 1)"

    def to_dict(self) -> dict:
        return {"block": list(self.block), "tile_m": self.tile_m, "tile_n": self.tile_n,
                "dynamic_smem_bytes": self.dynamic_smem_bytes, "grid": self.describe()}


@dataclass(frozen=True)
class KernelSource:
    name: str  # the kernel's extern "C" symbol
    language: str  # "cuda" or "ptx"
    text: str
    geometry: LaunchGeometry
    params: Tuple[Tuple[str, str], ...]

    @property
    def suffix(self) -> str:
        return {"cuda": ".cu", "ptx": ".ptx"}[self.language]
