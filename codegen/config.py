"""The SGEMM configuration: a tile, a decomposition and build options, each frozen and validated.

An SgemmConfig is three parts, each a frozen, hashable dataclass validated on creation,
with its own to_dict / from_dict and digest:

- TileConfig (codegen/tile_config.py): what the kernel computes per thread, warp and
  block: tile shape, thread mapping, shared-memory and register plan, operand layouts,
  batch form, the occupancy hint.  Changing it changes the per-block kernel.
- Decomposition: how the problem is split over blocks and kernels: split-K (a reduce
  kernel after the main one), stream-K (a second, work-list launch) and the edge split
  (an edge kernel beside the interior).  Changing it changes the module's kernels and
  their launches, not the tile's arithmetic.
- BuildOptions: what happens to the compiled kernel after ptxas (the SASS register-bank
  pass).  The emitters read one thing of it: with the pass the accumulators start at -0.0
  (see sass_pass below), so the text differs there and only there.

The constraints between parts (split-K or stream-K against the tile's loop, a batch
against any split) are checked where the parts meet, in SgemmConfig.

SgemmConfig keeps the flat spelling of the single dataclass it was: `SgemmConfig(bm=64,
split_k=4)` routes each keyword to its part, `cfg.bm` / `cfg.split_k` read through it,
`cfg.replace(...)` and `dataclasses.replace(cfg, ...)` take flat keywords, and to_dict()
is the flat dict that kernel names, the tuning database and committed JSON were written
with; from_dict() reads it, or the nested {"tile", "decomposition", "build"} form.
Equality and hash are those of the three parts, i.e. of every field, as before.

Every failed check raises ConfigError naming the constraint, the value and a fix.
"""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from operator import attrgetter
from typing import Dict, Tuple

from ..errors import ConfigError  # noqa: F401  (defined with every regtile error; importable from here)
from .config_base import ConfigDict, check_bools, check_fields  # noqa: F401  (check_fields: re-exported)
from .tile_config import FFMA_ORDERS, MAPPINGS, MAX_COPIES_PER_THREAD, RING_STAGES, TileConfig  # noqa: F401  (re-exported)

SPLIT_K_MIN_ACCUMULATORS = 8  # tm * tn of a split-K kernel (SgemmConfig._check_across)
# split_k upper bound: each split writes, and the reduce kernel reads, an M x N fp32
# partial, so workspace traffic grows with split_k while the gain stops once the
# blocks fill the SMs (132 on the H100; 32 splits of 5 blocks already do).
MAX_SPLIT_K = 32
# The edge split's kernel tile (codegen/edges.py edge_config builds its config on it; kept
# here so that describe() names it without importing edges, which builds on presets).
EDGE_TILE = (64, 64)


@dataclass(frozen=True)
class Decomposition(ConfigDict):
    """How one GEMM is split over blocks and kernels beyond the plain tile grid.  Each field
    adds kernels or launches to the module (a reduce kernel, a work-list launch, an edge
    kernel); none changes what a block computes of its tile."""
    # Split-K (codegen/splitk.py): blockIdx.z picks one of split_k contiguous K ranges;
    # each writes its partial tile to a workspace [split_k, M, N] and a second kernel
    # sums them in split order (deterministic): C = alpha * sum + beta * C.  For shapes
    # whose ceil(M/BM) * ceil(N/BN) blocks leave SMs idle.  1 = one pass, as before.
    split_k: int = 1
    # Stream-K (codegen/streamk.py, PTX backend): the whole waves of tiles as usual, then
    # the tiles of a partial last wave (at most 90% full) dealt out as even K ranges over
    # every SM, each split tile summed in K order by its first piece (deterministic).
    stream_k: bool = False
    # Edge split (codegen/edges.py, PTX backend): where C's ragged edges leave the BM x BN
    # grid padding tiles, this kernel takes the tile-aligned interior and a small-tile
    # stream-K kernel in the same module the bottom and right strips.
    edge_split: bool = False

    WHAT = "decomposition"
    # all left out of to_dict at their defaults: one-pass configs keep the dict, hence the
    # kernel name, cache entries and tuning-DB digests they had before split-K existed
    OPT_IN = ("split_k", "stream_k", "edge_split")

    def __post_init__(self):
        s = self.split_k
        if not isinstance(s, int) or isinstance(s, bool) or s < 1:
            raise ConfigError(f"split_k={s!r}: must be an integer >= 1 (1 = one pass over K, no reduction)")
        if s > MAX_SPLIT_K:
            raise ConfigError(f"split_k={s}: at most {MAX_SPLIT_K} K ranges; each split adds an M x N partial to the "
                              f"workspace and to the reduction; use a smaller block tile to get more blocks")
        check_bools(self, ("stream_k", "edge_split"))
        if self.stream_k and s > 1:
            raise ConfigError(f"stream_k=True with split_k={s}: two ways of splitting K; stream-K already "
                              f"splits the tiles that need it - use split_k=1")

    @property
    def splits(self) -> bool:
        """Any split at all (a plain grid of tiles when False)."""
        return self.split_k > 1 or self.stream_k or self.edge_split

    def describe_parts(self) -> list:
        parts = []
        if self.split_k > 1:
            parts.append(f"split-K {self.split_k} (K ranges over blockIdx.z, partials summed by a reduce kernel)")
        if self.stream_k:
            parts.append("stream-K (the last partial wave's tiles in even K ranges over every SM)")
        if self.edge_split:
            bm, bn = EDGE_TILE
            parts.append(f"edge split (ragged edges by a {bm}x{bn} stream-K kernel)")
        return parts


@dataclass(frozen=True)
class BuildOptions(ConfigDict):
    """What is done to the kernel after ptxas.  (The backend and the target arch are the
    arguments of emit() and compile(), chosen per call, and stay out of the config.)"""
    # The SASS register-bank pass (regtile.sass.bank_pass, sm_90, run by runtime/sass_stage.py):
    # after ptxas, registers are renamed inside the cubin so that the main loop's FFMAs read at
    # most one uncached register per bank.  The emitters help it: accumulators start at -0.0
    # (x + -0.0 == x for every x, +0.0 included), which ptxas materialises one register at a
    # time, where +0.0 becomes CS2R pairs that would pin accumulators in place.
    sass_pass: bool = False

    WHAT = "build options"
    OPT_IN = ("sass_pass",)  # left out at False: configs without the pass keep their names and digests

    def __post_init__(self):
        check_bools(self, ("sass_pass",))

    def describe_parts(self) -> list:
        return ["SASS register-bank pass"] if self.sass_pass else []


# part name -> its class, in SgemmConfig's field order
PARTS: Dict[str, type] = {"tile": TileConfig, "decomposition": Decomposition, "build": BuildOptions}
# flat field -> the part holding it
HOME: Dict[str, str] = {f.name: part for part, cls in PARTS.items() for f in dataclasses.fields(cls)}
# The flat fields in the order of the single dataclass SgemmConfig was (repr, to_dict keys).
FLAT_FIELDS: Tuple[str, ...] = (
    "bm", "bn", "bk", "tm", "tn", "warps", "mapping", "split_tile", "stages", "a_transposed", "pad_a", "pad_b",
    "vec", "frag_regs", "reg_prefetch", "min_blocks", "ffma_order", "split_k", "sass_pass", "stream_k",
    "edge_split", "edge_vector_path", "edge_clamp", "trans_a", "trans_b", "batched", "unaligned_rows",
    "unaligned_vectors", "last_col", "c_staged", "max_registers", "hoist_head", "lean_copies")
assert set(FLAT_FIELDS) == set(HOME), "every part field has a place in the flat spelling"


def flat_fields() -> Tuple[dataclasses.Field, ...]:
    """The dataclass fields of the three parts in FLAT_FIELDS order (for CLI flags, strategies)."""
    by_name = {f.name: f for cls in PARTS.values() for f in dataclasses.fields(cls)}
    return tuple(by_name[name] for name in FLAT_FIELDS)


@dataclass(frozen=True, init=False, repr=False)
class SgemmConfig:
    """One SGEMM kernel's configuration: its tile, its decomposition and its build options
    (module docstring).  Built from parts, flat keywords (each routed to its part), or both:
    a flat keyword then changes the given part."""
    tile: TileConfig
    decomposition: Decomposition
    build: BuildOptions

    def __init__(self, tile: TileConfig = None, decomposition: Decomposition = None, build: BuildOptions = None,
                 **flat):
        unknown = sorted(set(flat) - set(HOME))
        if unknown:
            raise ConfigError(f"unknown config field(s) {unknown}; known fields: {sorted(HOME)} "
                              f"(or the parts tile=, decomposition=, build=)")
        given = {"tile": tile, "decomposition": decomposition, "build": build}
        for name, cls in PARTS.items():
            part, changes = given[name], {k: v for k, v in flat.items() if HOME[k] == name}
            if part is None:
                part = cls(**changes)
            elif not isinstance(part, cls):
                raise ConfigError(f"{name}={part!r}: must be a {cls.__name__}")
            elif changes:
                part = dataclasses.replace(part, **changes)
            object.__setattr__(self, name, part)
        self._check_across()
        # the hash of every field, computed once: the cached call path hashes a given config per call
        object.__setattr__(self, "_hash", hash((self.tile, self.decomposition, self.build)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        # rebuilt from its parts (pickle, copy): the cached hash is per process (string hashing)
        return (type(self), (self.tile, self.decomposition, self.build))

    def _check_across(self):
        """The constraints between the tile and the decomposition."""
        t, d = self.tile, self.decomposition
        if d.stream_k and t.stages == 0:
            raise ConfigError("stream_k=True needs a shared-memory loop (stages 1 or 2); stages=0 reads operands "
                              "straight from global memory and has no per-item prologue to restart")
        if d.split_k > 1 and t.stages < 2 and t.ffma_order != "zigzag":
            # sampled: such kernels spilled at 40-128 registers, far under their caps (ptxas
            # trading a few spills for an occupancy step); with zigzag, none beyond the tile's rules
            raise ConfigError(f"split_k={d.split_k}: a split-K kernel without the double-buffered loop (stages="
                              f"{t.stages}) needs ffma_order='zigzag' (got {t.ffma_order!r}); ptxas spills its "
                              f"K-range state otherwise")
        if d.split_k > 1 and t.tm * t.tn < SPLIT_K_MIN_ACCUMULATORS:
            # sampled (session 6, 106 accepted configs of 16-64 x 16-64 tiles, 1x1 to 4x2 thread tiles):
            # 4 spilled 4-12 bytes at 31-64 registers (a predicate register through local memory in the
            # K-range prologue; tests/codegen/test_properties.py found the first); none of the 14 with 8+
            raise ConfigError(f"split_k={d.split_k}: a split-K kernel needs a thread tile of at least "
                              f"{SPLIT_K_MIN_ACCUMULATORS} accumulators (tm * tn = {t.tm} * {t.tn} = {t.tm * t.tn}); "
                              f"ptxas spills the K-range state of smaller ones, which are too small to pay for "
                              f"the split anyway: raise tm or tn, or use split_k=1")
        if t.stages in RING_STAGES and (d.split_k > 1 or self.build.sass_pass):
            raise ConfigError(f"stages={t.stages} (the cp.async ring) is built by the PTX backend without split-K "
                              f"(split_k={d.split_k}: CUDA C) and without the SASS pass (sass_pass="
                              f"{self.build.sass_pass}: its table has no LDGSTS / DEPBAR forms)")
        if t.last_col and (d.split_k > 1 or d.edge_split):
            raise ConfigError(f"last_col: the last column is summed by the blocks of the last tile column, which "
                              f"split-K's workspace and the edge split's strips do not have (split_k={d.split_k}, "
                              f"edge_split={d.edge_split}): use split_k=1 and edge_split=False, or last_col=False")
        if t.batched and (d.stream_k or d.edge_split):
            raise ConfigError("batched=True with stream_k or edge_split: not supported yet (blockIdx.z is the batch "
                              "index, and the stream-K work lists and the edge parts are per matrix); use "
                              "stream_k=False and edge_split=False for batches (split_k > 1 takes a batch: blockIdx.z "
                              "= entry x split_k + split)")

    def replace(self, **changes) -> "SgemmConfig":
        """A copy with flat fields and/or whole parts (tile=, decomposition=, build=) changed."""
        return type(self)(**{**{name: getattr(self, name) for name in PARTS}, **changes})

    # ---- the tile's derived quantities, read through ---------------------------------
    def register_estimate(self) -> int:
        return self.tile.register_estimate()

    def register_cap(self, blocks: int = 0) -> int:
        return self.tile.register_cap(blocks)

    # ---- serialisation, digests, description -----------------------------------------
    def to_dict(self, nested: bool = False) -> dict:
        """The flat dict (kernel names, the tuning database and committed JSON use it: opt-in
        fields at their defaults left out), or with nested=True one dict per part."""
        if nested:
            return {name: getattr(self, name).to_dict() for name in PARTS}
        d = {}
        for name in PARTS:
            d.update(getattr(self, name).to_dict())
        return {k: d[k] for k in FLAT_FIELDS if k in d}

    @classmethod
    def from_dict(cls, d: dict) -> "SgemmConfig":
        """Reads the flat dict or the nested one ({"tile": {...}, "decomposition": {...}, "build": {...}})."""
        parts = {name: PARTS[name].from_dict(d[name]) for name in PARTS if name in d}
        flat = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items() if k not in PARTS}
        return cls(**parts, **flat)  # an unknown flat key is refused there, by name

    @property
    def digest(self) -> str:
        """One digest of the whole config (the three parts' digests combined)."""
        return hashlib.sha256(" ".join(getattr(self, name).digest for name in PARTS).encode()).hexdigest()[:16]

    @property
    def kernel_digest(self) -> str:
        """The digest of what the emitted kernels compute: tile and decomposition (build
        options act after ptxas; the pass's -0.0 accumulator start is its one trace in the text)."""
        return hashlib.sha256(f"{self.tile.digest} {self.decomposition.digest}".encode()).hexdigest()[:16]

    def describe(self) -> str:
        return ", ".join(self.tile.describe_parts() + self.build.describe_parts()
                         + self.decomposition.describe_parts() + self.tile.describe_layout())

    def __repr__(self) -> str:
        # the flat repr of the single dataclass it was (logs, and seeds derived from it, unchanged)
        return f"SgemmConfig({', '.join(f'{k}={getattr(self, k)!r}' for k in FLAT_FIELDS)})"


def _read_through(part: str, name: str) -> property:
    return property(attrgetter(f"{part}.{name}"), doc=f"{part}.{name}")


# Flat read access: cfg.bm is cfg.tile.bm, cfg.split_k is cfg.decomposition.split_k, ...
for _name, _part in HOME.items():
    setattr(SgemmConfig, _name, _read_through(_part, _name))
# ... and the tile's derived quantities (threads, warp_tile, smem_bytes, layout, ...).
for _name in ("threads", "lanes_m", "lanes_n", "warp_tile", "piece_m", "piece_n", "as_shape", "bs_shape",
              "smem_floats_per_stage", "smem_bytes", "a_loads_per_thread", "b_loads_per_thread", "layout",
              "last_col_groups", "last_col_slices", "float4_epilogue", "c_stage_pad", "c_stage_floats"):
    setattr(SgemmConfig, _name, _read_through("tile", _name))
del _name, _part
