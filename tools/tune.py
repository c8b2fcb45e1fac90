"""The autotuner's search: candidate configs, pruning, parallel compilation.

Order of work, cheapest first: validation refuses a config (no compile); ptxas
reports spills (compiled in parallel processes, never timed); the survivors are
timed on the GPU by the caller's timing function, in the order given here, up to a
budget.  Results go to runtime/tuning_db.py, one file per config and device.
"""
from __future__ import annotations

import itertools
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

from ..codegen.config import ConfigError, SgemmConfig
from ..codegen.presets import get_preset

# Block and thread tiles worth trying (bm, bn, tm, tn); each with every warp layout
# the z-order mapping accepts.  Larger tiles first: on the H100 they win at large
# sizes (docs/ladder.md), smaller ones fill the SMs on small and skinny shapes.
TILES: Tuple[Tuple[int, int, int, int], ...] = (
    (256, 128, 16, 8), (128, 256, 8, 16), (128, 128, 8, 8), (128, 128, 8, 16), (128, 128, 16, 8),
    (128, 64, 8, 8), (64, 128, 8, 8), (64, 64, 8, 8), (64, 64, 4, 8), (64, 64, 8, 4), (64, 32, 4, 4),
    (32, 64, 4, 4),
)
BKS = (8, 16)
MIN_BLOCKS = (1, 2)
# FFMA source orders: the register-bank analysis ranks them per config after the compile
# (docs/perf-log.md: fewer flagged FFMAs, faster kernel); see prune_by_banks.
FFMA_ORDERS = ("zigzag", "swirl")
# Split-K (codegen/splitk.py), tried only where a config's grid leaves most SMs idle:
# ceil(M/BM) * ceil(N/BN) blocks at most half the SMs (with one block per SM, split 2
# then at least doubles the busy SMs; above half, a second split mostly adds a partly
# filled wave plus the reduction's traffic), and only where that traffic is small next
# to the GEMM: per element of C the splits write S partials, the reduce kernel reads
# them and writes C, (2S + 1) * 4 bytes at the copy bandwidth (2.94 TB/s on the H100),
# against 2K FLOP at what the kernels reach (~47 TFLOP/s, docs/tuning.md); a split is
# tried when that models at most SPLIT_MAX_TRAFFIC_SHARE of the GEMM's time, i.e. K >=
# about 1600 for S=2, 2900 for S=4, 5400 for S=8.  So the square shapes of the sweep keep
# their space: from 2048^2 up no tile leaves half the SMs idle, and 1024^3 (32 blocks of
# 256x128) has K too short for any split.
SPLIT_KS = (2, 4, 8)
SPLIT_MAX_TRAFFIC_SHARE = 0.10
_GEMM_TFLOPS, _COPY_TBPS = 47.0, 2.94


def split_traffic_share(split_k: int, k: int) -> float:
    """Modeled time of the split-K traffic over the GEMM's time (per element of C)."""
    return ((2 * split_k + 1) * 4 / (_COPY_TBPS * 1e12)) / (2 * k / (_GEMM_TFLOPS * 1e12))


def _warp_layouts(bm: int, bn: int, tm: int, tn: int) -> List[Tuple[int, int]]:
    threads = (bm // tm) * (bn // tn)
    if threads % 32:
        return []
    w = threads // 32
    return [(wm, w // wm) for wm in range(1, w + 1) if w % wm == 0]


def blocks_of(cfg: SgemmConfig, m: int, n: int) -> int:
    """Blocks of the grid over M x N, splits included."""
    return -(-m // cfg.bm) * -(-n // cfg.bn) * cfg.split_k


def search_order(configs: Sequence[SgemmConfig], m: int, n: int, sms: int = 132) -> List[SgemmConfig]:
    """Configs whose grid fills the GPU (at least one block per SM, split-K blocks
    counted) first, largest block tile first among them; then the rest, most blocks
    first.  A budget then times the likely winners for this shape (big tiles for big
    problems, small tiles for small or skinny ones).  Among the filling configs, split-K
    ones that split more than filling needs (half the splits would fill too) and tiles
    that are mostly outside the matrix (less than 3/4 of the tile area inside M x N, e.g.
    128x256 tiles on N = 128) come after the others: more reduction traffic or idle
    FFMAs for no more busy SMs."""
    def key(cfg: SgemmConfig):
        blocks = blocks_of(cfg, m, n)
        fills = blocks >= sms
        if not fills:
            return (2, -blocks)
        over_split = cfg.split_k > 1 and blocks // 2 >= sms
        inside = (m * n) / (-(-m // cfg.bm) * cfg.bm * -(-n // cfg.bn) * cfg.bn)
        return (1 if over_split or inside < 0.75 else 0, -(cfg.bm * cfg.bn))
    return sorted(configs, key=key)  # stable: ties keep the TILES order (and split_k ascending)


def split_k_options(cfg: SgemmConfig, m: int, n: int, k: int, sms: int = 132) -> Tuple[int, ...]:
    """split_k values to try for `cfg` at M x N x K: 1, and those of SPLIT_KS whose
    traffic stays within SPLIT_MAX_TRAFFIC_SHARE where the grid has at most sms/2 blocks."""
    blocks = -(-m // cfg.bm) * -(-n // cfg.bn)
    if 2 * blocks > sms:
        return (1,)
    return (1,) + tuple(s for s in SPLIT_KS if split_traffic_share(s, k) <= SPLIT_MAX_TRAFFIC_SHARE)


def stream_k_options(cfg: SgemmConfig, m: int, n: int, k: int, sms: int = 132) -> Tuple[bool, ...]:
    """stream_k values to try for `cfg` at M x N x K: False, and True where its plan on
    sms x min_blocks block slots (the occupancy the config asks ptxas for) deals a partial
    last wave out in K ranges (codegen/streamk.py)."""
    from ..codegen.streamk import plan_stream_k
    plan = plan_stream_k(m, n, k, cfg.bm, cfg.bn, cfg.bk, sms * cfg.min_blocks)
    return (False, True) if plan.ranges else (False,)


def edge_split_options(cfg: SgemmConfig, m: int, n: int) -> Tuple[bool, ...]:
    """edge_split values to try for `cfg` at M x N: False, and True where codegen/edges.py
    splits M x N between this config's tiles and the edge kernel's."""
    from ..codegen.edges import edge_config, plan_edges
    edge = edge_config()
    return (False, True) if plan_edges(m, n, cfg.bm, cfg.bn, edge.bm, edge.bn).split else (False,)


def candidate_configs(m: Optional[int] = None, n: Optional[int] = None, k: Optional[int] = None,
                      sms: int = 132, split_k: bool = True, stream_k: bool = False) -> List[SgemmConfig]:
    """Every z-order, double-buffered, float4 config of the space that validation
    accepts, in TILES order (deduplicated).  Given a shape, each config is followed by
    its split-K variants where split_k_options offers them (split_k: the CUDA C backend
    alone emits them), or by its stream-K variant where stream_k_options does and its edge-split
    variants where edge_split_options does (stream_k: the PTX backend's)."""
    out = _base_configs()
    if m is None or n is None or k is None:
        return out
    if split_k:
        out = [c.replace(split_k=s) for c in out for s in split_k_options(c, m, n, k, sms)]
    if stream_k:
        out = [c.replace(stream_k=s) for c in out for s in stream_k_options(c, m, n, k, sms)]
        out = [c.replace(edge_split=e) for c in out for e in edge_split_options(c, m, n)]
    return out


def _base_configs() -> List[SgemmConfig]:
    base = get_preset("zorder").config
    out, seen = [], set()
    for (bm, bn, tm, tn), bk, mb, order in itertools.product(TILES, BKS, MIN_BLOCKS, FFMA_ORDERS):
        for warps in _warp_layouts(bm, bn, tm, tn):
            try:
                cfg = base.replace(bm=bm, bn=bn, tm=tm, tn=tn, bk=bk, warps=warps, min_blocks=mb,
                                   ffma_order=order)
            except ConfigError:
                continue
            if cfg not in seen:
                seen.add(cfg)
                out.append(cfg)
    return out


@dataclass(frozen=True)
class Compiled:
    config: SgemmConfig
    registers: int
    spill_free: bool
    error: Optional[str] = None
    conflict_share: Optional[float] = None  # sm_90 register-bank model, main loop


def _compile_one(args) -> Compiled:
    cfg_dict, arch, backend = args
    from ..runtime.compiler import compile_config, spilled_bytes
    cfg = SgemmConfig.from_dict(cfg_dict)
    try:
        art = compile_config(cfg, arch, backend=backend, allow_spills=True)  # a spill prunes, below
        res = art.resources
        share = None
        spill_free = spilled_bytes(art) == 0  # every kernel of the module: split-K's reduction too
        if spill_free:
            from ..sass import banks as reg_banks
            from ..sass.disasm import function_of
            share = reg_banks.analyze(function_of(art.cubin, art.name)[1], arch).to_dict()["conflict_share"]
        return Compiled(cfg, res.registers, spill_free, conflict_share=share)
    except Exception as e:  # a compile failure prunes the config; the reason is kept
        return Compiled(cfg, 0, False, f"{type(e).__name__}: {str(e).splitlines()[0]}")


def compile_all(configs: Sequence[SgemmConfig], arch: str, jobs: Optional[int] = None,
                progress: Optional[Callable[[int, int, Compiled], None]] = None,
                backend: str = "cuda") -> List[Compiled]:
    """Compile in parallel processes (each fills the shared disk cache), keeping order."""
    jobs = jobs or max(1, min(len(configs), os.cpu_count() or 1))
    work = [(c.to_dict(), arch, backend) for c in configs]
    results: List[Compiled] = []
    if jobs == 1:
        it: Iterable[Compiled] = map(_compile_one, work)
        for i, r in enumerate(it):
            results.append(r)
            if progress:
                progress(i + 1, len(work), r)
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for i, r in enumerate(pool.map(_compile_one, work)):
            results.append(r)
            if progress:
                progress(i + 1, len(work), r)
    return results


def prune_by_banks(compiled: Sequence[Compiled]) -> List[Compiled]:
    """Of configs that differ only in FFMA order, keep the one the register-bank
    analysis flags least (measured to predict the faster one: docs/perf-log.md)."""
    best = {}
    for c in compiled:
        if not c.spill_free:
            continue
        key = c.config.replace(ffma_order="zigzag")
        if key not in best or (c.conflict_share or 0) < (best[key].conflict_share or 0):
            best[key] = c
    keep = set(id(c) for c in best.values())
    return [c for c in compiled if id(c) in keep]


def command_line(cfg: SgemmConfig) -> str:
    """The `regtile` flags that rebuild exactly this config."""
    parts = []
    for key, value in cfg.to_dict().items():
        flag = "--" + key.replace("_", "-")
        if key == "warps":
            value = f"{value[0]}x{value[1]}"
        elif isinstance(value, bool):
            value = "true" if value else "false"
        parts.append(f"{flag} {value}")
    return " ".join(parts)
