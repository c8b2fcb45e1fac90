"""Static shared-memory bank model of an SGEMM plan, in Nsight Compute's units.

Every shared-memory instruction a warp issues per k-tile comes from the plan
(`SgemmPlan.smem_accesses_per_ktile()`), and its per-lane address from the access's
own `offset` function evaluated on `ThreadVars.numeric` for each thread: the same
index function the emitter prints into the kernel.  Nothing here re-derives an
address.

The bank model of one warp instruction (the hardware it assumes) is codegen/smem_access.py; ptxas's merges of the
plan's scalar accesses, which decide the instructions costed, codegen/smem_vectorize.py.  This module costs every
instruction of a k-tile over a problem and names the totals as Nsight Compute does.

How this maps onto Nsight Compute (what the tests check against measured numbers)
* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum = wavefronts, and
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum = wavefronts - ideal:
  NVIDIA forum t/359822 ("bank_conflicts metric vs wavefronts ... LDS.128"): 4
  wavefronts and 0 conflicts for a conflict-free LDS.128, and conflicts equal to the
  excess wavefronts otherwise.
* Seed 001's Nsight tables at M=N=K=4096 (128x128x8 blocks, 8 warps, 512 k-tiles,
  i.e. 4,194,304 warp k-tiles; measured on the seed author's GPU, not an H100):
  - z-order kernel: 268,441,315 load wavefronts for 134,217,728 LDS.128 (2.0 each)
    and 0 conflicts: both fragment loads meet the pair rule (A: lane n == n^2,
    B: lane n == n^1), so a conflict-free LDS.128 counts 2 wavefronts there, not 4.
    33,554,432 store wavefronts = 8 per warp k-tile: four STS.32 of the transposed A
    tile at 1 each plus one STS.128 of B at 4 (quarter-warps, no packing).
  - unpadded transposed A (BK=8, BM=128): 50,331,648 store wavefronts and 16,777,216
    store conflicts = 12 and 4 per warp k-tile: each of the four STS.32 is 2-way
    (lanes 2t and 2t+1 write words 128 apart, one bank).  BM+4 padding removes it.
  - its linear kernel with split 4x4 pieces: 3.0 load wavefronts per LDS.128 (A
    packs to 2, B does not pack but is conflict-free at 4), matching this model.
* 64-bit accesses: half-warps, without any packing rule (none is documented; the
  generator emits no 64-bit shared accesses).

The cp.async ring (config stages 3 / 4, codegen/ptx_ring.py) copies global memory straight into shared memory by
LDGSTS: the kernel issues none of the plan's STS, and Nsight Compute counts the copies' shared writes outside op_st.
Measured (H200, session 37, docs/data/session37/h_3d7a516, TN 512^3 on sq-32x32 as the ring of four stages): op_st 0
wavefronts and 0 conflicts; op_ld 1,052,601 wavefronts against this model's 1,048,576 (4,025 conflicts against 0);
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum - op_ld = 127,343 for 65,536 LDGSTS.128 (about 2 each, where an
STS.128 takes 4).  So for the ring the model keeps the loads, leaves the copies out (`not_modelled` says so) and
predicts op_st 0.

Totals are per problem: every block of the grid ceil(M/BM) x ceil(N/BN) (edge blocks
run the full tile, zero-filled; with config.last_col the grid covers N - 1 columns), every
warp of a block, ceil(K/BK) k-tiles.  Not modelled: the fused last column's accesses
(config.last_col, codegen/ptx_last_col.py: the last tile column's blocks only, threads < BK
storing B's column); their SASS instructions (`column_instructions`) are taken out of the
main loop's mix before the merge is matched, and the report says so.  The
double-buffered kernel (stages=2) stores each tile once too: the first tile before
the loop and the k_tiles-1 others inside it.  stages=0 kernels use no shared memory.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from .mapping import WARP
from .plan import SgemmPlan, SmemAccess
from .program import geometry
from .smem_access import AccessReport, analyze_access, report_number
from .smem_vectorize import Vectorization, vectorize
from .tile_config import RING_STAGES

# Nsight Compute metric names of the totals.
NCU_INST = {"LDS": "smsp__inst_executed_op_shared_ld.sum", "STS": "smsp__inst_executed_op_shared_st.sum"}
NCU_WAVEFRONTS = {"LDS": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                  "STS": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}
NCU_CONFLICTS = {"LDS": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                 "STS": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}


@dataclass(frozen=True)
class SmemReport:
    config_desc: str
    m: int
    n: int
    k: int
    blocks: int
    warps_per_block: int
    k_tiles: int
    accesses: Tuple[AccessReport, ...]
    totals: Dict[str, int] = field(default_factory=dict)
    vectorization: Optional["Vectorization"] = None
    not_modelled: str = ""  # shared-memory instructions of the kernel the model leaves out, and why

    @property
    def warp_ktiles(self) -> int:
        return self.blocks * self.warps_per_block * self.k_tiles

    def per_warp_ktile(self) -> Dict[str, Dict[str, float]]:
        """Instructions, wavefronts, ideal and conflicts one warp issues per k-tile, by op."""
        out = {op: {"instructions": 0, "wavefronts": 0, "ideal": 0, "conflicts": 0} for op in ("LDS", "STS")}
        for a in self.accesses:
            d = out[a.op]
            d["instructions"] += 1
            d["wavefronts"] += a.wavefronts
            d["ideal"] += a.ideal
            d["conflicts"] += a.conflicts
        return {op: {k: report_number(v) for k, v in d.items()} for op, d in out.items()}

    def instructions_per_ktile(self) -> Dict[str, int]:
        """SASS opcode counts per warp and k-tile ('LDS.128': 32, ...), for a check
        against the compiled loop's instruction mix."""
        return dict(sorted(Counter(a.sass for a in self.accesses).items()))

    def to_dict(self) -> dict:
        return {"model": "smem-banks/1", "config": self.config_desc,
                "problem": {"m": self.m, "n": self.n, "k": self.k},
                "blocks": self.blocks, "warps_per_block": self.warps_per_block, "k_tiles": self.k_tiles,
                "per_warp_ktile": self.per_warp_ktile(),
                "instructions_per_ktile": self.instructions_per_ktile(),
                "accesses": [a.to_dict() for a in self.accesses],
                "vectorization": self.vectorization.to_dict() if self.vectorization else None,
                "not_modelled": self.not_modelled,
                "totals": dict(self.totals)}

    def render_text(self) -> str:
        lines = [f"shared-memory banks (static model; Nsight Compute units)  M={self.m} N={self.n} K={self.k}: "
                 f"{self.blocks} blocks x {self.warps_per_block} warps x {self.k_tiles} k-tiles"]
        if not self.accesses:
            lines.append("  no shared-memory accesses (stages=0)")
            return "\n".join(lines)
        if self.vectorization is not None:
            lines += ["  " + t for t in self.vectorization.render_lines()]
        if self.not_modelled:
            lines.append(f"  not modelled: {self.not_modelled}")
        lines.append(f"  {'count':>5}  {'SASS':<8} {'grouping':<25} {'wavefronts':>10} {'ideal':>6} "
                     f"{'conflicts':>9}  example")
        # Accesses that cost the same are one row: a k-tile has BK copies of each fragment load.
        rows: Dict[tuple, List[AccessReport]] = {}
        for a in self.accesses:
            key = (a.op, a.operand, a.sass, a.grouping, a.wavefronts, a.ideal, bool(a.merged_from), a.reload_of != "")
            rows.setdefault(key, []).append(a)
        for (op, operand, sass, grouping, wf, ideal, _, _), accs in rows.items():
            what = accs[0].what
            if accs[0].merged_from:
                what += f" (merged: {len(accs[0].merged_from)} plan accesses)"
            lines.append(f"  {len(accs):>5}  {sass:<8} {grouping:<25} {report_number(wf):>10} {report_number(ideal):>6} "
                         f"{report_number(wf - ideal):>9}  {what}")
        pw = self.per_warp_ktile()
        for op, kind in (("LDS", "ld"), ("STS", "st")):
            lines.append(f"  per warp k-tile {kind}: {pw[op]['instructions']} instructions, "
                         f"{pw[op]['wavefronts']} wavefronts (ideal {pw[op]['ideal']}), "
                         f"{pw[op]['conflicts']} conflicts")
        for op in ("LDS", "STS"):
            lines.append(f"  {NCU_WAVEFRONTS[op]:<58} {self.totals[NCU_WAVEFRONTS[op]]:>15,}")
            lines.append(f"  {NCU_CONFLICTS[op]:<58} {self.totals[NCU_CONFLICTS[op]]:>15,}")
        return "\n".join(lines)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _reload_reports(plan: SgemmPlan, reloads: Mapping[str, int], merged_scalars: Sequence[SmemAccess],
                    final: Sequence[SmemAccess]) -> List[AccessReport]:
    """AccessReports for SASS instructions beyond the merge: re-loads of merged elements
    of the same op and width (the plan's first ones, in order), else of any access of
    that op and width."""
    out = []
    for key, n in reloads.items():
        op, bits = key.split(".")
        width = int(bits) // 32
        pool = [a for a in merged_scalars if a.op == op and a.width == width] or \
               [a for a in final if a.op == op and a.width == width]
        if not pool:
            continue  # nothing of that op and width to repeat: counted, not costed
        for i in range(n):
            a = pool[i % len(pool)]
            rep = analyze_access(plan, a)[0]
            out.append(AccessReport(f"re-load of {a.what}", rep.op, rep.operand, rep.width, rep.grouping,
                                    rep.per_warp, (), a.what))
    return out


def column_instructions(cfg) -> Dict[str, int]:
    """The fused last column's shared-memory instructions a k-tile (config.last_col): a load of As and
    one of B's column for each of a thread's BK / groups k-slices, and the store of B's column."""
    if not cfg.last_col:
        return {}
    return {"LDS.32": 2 * cfg.last_col_slices, "STS.32": 1}


def analyze(plan: SgemmPlan, m: int, n: int, k: int, sass_widths: Optional[Mapping[str, int]] = None) -> SmemReport:
    """Per-access costs of one k-tile and their totals over an M x N x K problem.

    sass_widths: the main loop's instruction mix (counts by width: {'LDS.128': 32,
    'STS.32': 8, ...}; other entries are ignored), from the kernel's SASS.  With it,
    the plan's accesses are merged as ptxas merged them (`vectorize`); without it the
    plan's own widths are analysed."""
    cfg = plan.cfg
    if min(m, n, k) < 1:
        raise InputError(f"problem sizes must be >= 1, got M={m} N={n} K={k}")
    column = column_instructions(cfg)
    blocks = _ceil_div(m, cfg.bm) * _ceil_div(max(1, geometry(cfg).columns(n)), cfg.bn)
    warps = cfg.threads // WARP
    k_tiles = _ceil_div(k, cfg.bk)
    if column and sass_widths is not None:
        sass_widths = {key: max(0, v - column.get(key, 0)) for key, v in sass_widths.items()}
    final, parts, vec = vectorize(plan, sass_widths)
    if not plan.smem_accesses_per_ktile():
        vec = None
    reports = []
    for a, p in zip(final, parts):
        rep = analyze_access(plan, a)[0]
        reports.append(AccessReport(rep.what, rep.op, rep.operand, rep.width, rep.grouping, rep.per_warp,
                                    tuple(x.what for x in p)))
    if vec is not None and vec.reloads:
        merged_scalars = [x for p in parts for x in p]
        reports += _reload_reports(plan, vec.reloads, merged_scalars, final)
    accesses = tuple(reports)
    totals: Dict[str, int] = {}
    for op in ("LDS", "STS"):
        mine = [a for a in accesses if a.op == op]
        # per_warp sums over the block's warps: times blocks and k-tiles gives the grid.
        wf = sum(w for a in mine for w, _ in a.per_warp)
        ideal = sum(i for a in mine for _, i in a.per_warp)
        totals[NCU_INST[op]] = len(mine) * warps * blocks * k_tiles
        totals[NCU_WAVEFRONTS[op]] = wf * blocks * k_tiles
        totals[NCU_CONFLICTS[op]] = (wf - ideal) * blocks * k_tiles
        totals[f"model.ideal_wavefronts_{'ld' if op == 'LDS' else 'st'}"] = ideal * blocks * k_tiles
    skipped = [] if not column else [
        "the fused last column (config.last_col): " + ", ".join(f"{v} {key}" for key, v in column.items())
        + " a k-tile in the last tile column's blocks"]
    if cfg.stages in RING_STAGES:
        copies = sum(a.op == "STS" for a in plan.smem_accesses_per_ktile())
        skipped.append(f"the cp.async ring's {copies} copies a thread and k-tile (LDGSTS: Nsight Compute counts their "
                       f"shared writes outside op_st, which the ring leaves at 0)")
    skipped = "; ".join(skipped)
    return SmemReport(cfg.describe(), m, n, k, blocks, warps, k_tiles, accesses, totals, vec, skipped)
