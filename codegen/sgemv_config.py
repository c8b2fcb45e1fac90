"""The SGEMV configuration (seed 003): y = alpha * A @ x + beta * y, A row-major M x N.

A warp serves `rows_per_warp` rows at once: 32 / rows_per_warp lanes per row
(seed 003: one row per warp for N = 32 and N >= 128, two rows per warp for
N = 16).  Each lane walks its row in `vec`-wide loads, `unroll` of them in
flight before the first FMA; the lanes of a row reduce with warp shuffles.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .config import ConfigError, check_fields

WARP = 32


@dataclass(frozen=True)
class SgemvConfig:
    rows_per_warp: int = 1
    vec: int = 4
    warps_per_block: int = 4
    unroll: int = 4  # vector loads a lane issues per loop step (independent partial sums)
    # Row groups a warp serves one after another; for short rows (one float4 a lane)
    # their loads all go out before the first FMA, so a warp keeps `row_groups`
    # loads in flight instead of one.
    row_groups: int = 1
    # Warps sharing one row (rows_per_warp must be 1): for few long rows, where one
    # warp a row leaves the SMs' warp slots half empty; partial sums meet in shared memory.
    warps_per_row: int = 1

    def __post_init__(self):
        for name in ("rows_per_warp", "vec", "warps_per_block", "unroll", "row_groups", "warps_per_row"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ConfigError(f"{name}={v!r}: must be a positive integer")
        if self.rows_per_warp not in (1, 2, 4, 8, 16, 32):
            raise ConfigError(f"rows_per_warp={self.rows_per_warp}: must divide the 32 lanes of a warp "
                              f"(1, 2, 4, 8, 16 or 32)")
        if self.vec not in (1, 4):
            raise ConfigError(f"vec={self.vec}: vector width must be 1 or 4 floats")
        if self.warps_per_block > 32:
            raise ConfigError(f"warps_per_block={self.warps_per_block}: a block holds at most 32 warps")
        if self.unroll > 16:
            raise ConfigError(f"unroll={self.unroll}: at most 16 loads in flight per lane (registers)")
        if self.warps_per_row > 1 and (self.rows_per_warp != 1 or self.row_groups != 1
                                       or self.warps_per_block % self.warps_per_row):
            raise ConfigError(f"warps_per_row={self.warps_per_row}: needs rows_per_warp=1, row_groups=1 and "
                              f"warps_per_block a multiple of it (got {self.rows_per_warp}, {self.row_groups}, "
                              f"{self.warps_per_block})")
        if self.row_groups > 16:
            raise ConfigError(f"row_groups={self.row_groups}: at most 16 row groups per warp (registers)")

    @property
    def lanes_per_row(self) -> int:
        return WARP // self.rows_per_warp

    @property
    def row_lanes(self) -> int:
        """Lanes that share one row, across its warps."""
        return self.lanes_per_row * self.warps_per_row

    @property
    def threads(self) -> int:
        return WARP * self.warps_per_block

    @property
    def rows_per_block(self) -> int:
        return self.warps_per_block // self.warps_per_row * self.rows_per_warp * self.row_groups

    def replace(self, **changes) -> "SgemvConfig":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "SgemvConfig":
        check_fields(cls, d, "sgemv config")
        return cls(**d)

    def describe(self) -> str:
        return (f"sgemv: {self.rows_per_warp} row(s) per warp ({self.lanes_per_row} lanes a row), vec {self.vec}, "
                f"{self.row_groups} row group(s) a warp, "
                + (f"{self.warps_per_row} warps a row, " if self.warps_per_row > 1 else "")
                + f"{self.warps_per_block} warps per block "
                f"({self.rows_per_block} rows), unroll {self.unroll}")


def config_for_width(n: int) -> SgemvConfig:
    """The seed's shape rule, generalised: enough lanes per row that each lane has
    at least one vector, at most 32; float4 when rows are at least 4 wide."""
    if n < 1:
        raise ConfigError(f"N={n}: must be >= 1")
    vec = 4 if n >= 4 else 1
    lanes = 1
    while lanes < 32 and lanes * vec < n:
        lanes *= 2
    # Measured on the H100 (docs/sgemv.md, sweep of 2026-11-22): 4 float4 loads in flight
    # per lane saturate long rows; short rows (one float4 a lane) gain from several row
    # groups in flight instead: 2 for N <= 64, 4 for N = 128.
    unroll = max(1, min(4, n // (lanes * vec)))
    short = lanes * vec >= n and n % vec == 0
    groups = (4 if lanes == 32 else 2) if short else 1
    return SgemvConfig(rows_per_warp=WARP // lanes, vec=vec, warps_per_block=4, unroll=unroll, row_groups=groups)


# Warps the H100 keeps resident: 132 SMs x 64.  With fewer rows than about twice that,
# one warp a row leaves warp slots empty; measured (docs/sgemv.md): 4096x16384 at 0.98x
# cuBLAS with one warp a row, 1.02x with four.
TARGET_WARPS = 16384


def config_for_shape(m: int, n: int) -> SgemvConfig:
    """config_for_width, plus several warps a row when long rows are too few to fill
    the GPU's warp slots on their own."""
    if m < 1:
        raise ConfigError(f"M={m}: must be >= 1")
    cfg = config_for_width(n)
    if cfg.rows_per_warp != 1 or cfg.row_groups != 1:
        return cfg
    split = 1
    while split < 4 and m * split < TARGET_WARPS and n >= 128 * (2 * split) * cfg.unroll:
        split *= 2
    if split == 1:
        return cfg
    return cfg.replace(warps_per_row=split, warps_per_block=max(cfg.warps_per_block, split))
