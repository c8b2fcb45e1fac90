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


def _warp_layouts(bm: int, bn: int, tm: int, tn: int) -> List[Tuple[int, int]]:
    threads = (bm // tm) * (bn // tn)
    if threads % 32:
        return []
    w = threads // 32
    return [(wm, w // wm) for wm in range(1, w + 1) if w % wm == 0]


def search_order(configs: Sequence[SgemmConfig], m: int, n: int, sms: int = 132) -> List[SgemmConfig]:
    """Configs whose grid fills the GPU (at least one block per SM) first, largest
    block tile first among them; then the rest, most blocks first.  A budget then
    times the likely winners for this shape (big tiles for big problems, small
    tiles for small or skinny ones)."""
    def key(cfg: SgemmConfig):
        blocks = -(-m // cfg.bm) * -(-n // cfg.bn)
        fills = blocks >= sms
        return (0 if fills else 1, -(cfg.bm * cfg.bn) if fills else -blocks)
    return sorted(configs, key=key)  # stable: ties keep the TILES order


def candidate_configs() -> List[SgemmConfig]:
    """Every z-order, double-buffered, float4 config of the space that validation
    accepts, in TILES order (deduplicated)."""
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
    from ..runtime.compiler import compile_config
    cfg = SgemmConfig.from_dict(cfg_dict)
    try:
        art = compile_config(cfg, arch, backend=backend)
        res = art.resources
        share = None
        if res.spill_free:
            from ..runtime import reg_banks
            from ..runtime.sass import function_of
            share = reg_banks.analyze(function_of(art.cubin, art.name)[1], arch).to_dict()["conflict_share"]
        return Compiled(cfg, res.registers, res.spill_free, conflict_share=share)
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
