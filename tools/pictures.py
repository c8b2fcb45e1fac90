"""Pictures of a config's thread mapping and shared-memory banks: text, and PNG.

Everything drawn is computed by the generator's own functions: lane positions by
mapping.thread_origin / tile_row / tile_col, addresses by each plan access's offset
function, wavefronts by codegen.smem_banks (whose docstring states the bank model).
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from ..codegen import mapping as mp
from ..codegen.config import SgemmConfig
from ..codegen.hardware import SMEM_BANKS
from ..codegen.plan import SgemmPlan, SmemAccess
from ..codegen.smem_access import WarpAccess, lane_offsets, warp_access
from ..errors import InputError, RegtileError


class PlotUnavailable(RegtileError):
    """--png asked for, matplotlib not installed."""


# ---- the lanes of one warp over its warp tile -----------------------------------------
def lane_grid(cfg: SgemmConfig, warp: int = 0) -> Tuple[List[List[int]], Tuple[int, int], Tuple[int, int]]:
    """(grid, (row0, col0), (piece_m, piece_n)): grid[r][c] is the lane that owns
    piece (r, c) of warp `warp`'s tile, pieces being the contiguous runs of a thread
    tile (piece_m x piece_n elements)."""
    pm, pn = cfg.piece_m, cfg.piece_n
    wtm, wtn = cfg.warp_tile
    origins = [mp.thread_origin(cfg, warp * mp.WARP + lane) for lane in range(mp.WARP)]
    base_r = min(r for r, _ in origins)
    base_c = min(c for _, c in origins)
    grid = [[-1] * (wtn // pn) for _ in range(wtm // pm)]
    for lane, (r0, c0) in enumerate(origins):
        for i in range(0, cfg.tm, pm):
            for j in range(0, cfg.tn, pn):
                r = mp.tile_row(cfg, r0, i) - base_r
                c = mp.tile_col(cfg, c0, j) - base_c
                grid[r // pm][c // pn] = lane
    return grid, (base_r, base_c), (pm, pn)


def render_lane_map(cfg: SgemmConfig, warp: int = 0) -> str:
    grid, (br, bc), (pm, pn) = lane_grid(cfg, warp)
    wtm, wtn = cfg.warp_tile
    lines = [f"warp {warp}: lanes over its {wtm}x{wtn} warp tile at (row {br}, col {bc}); "
             f"one cell = {pm}x{pn} elements ({cfg.mapping} mapping"
             f"{', thread tile in 4x4 pieces' if cfg.split_tile else ''})"]
    lines.append("   col " + "".join(f"{c * pn:>4}" for c in range(len(grid[0]))))
    for r, row in enumerate(grid):
        lines.append(f"row {r * pm:>3} " + "".join(f"{v:>4}" for v in row))
    return "\n".join(lines)


# ---- the banks one access touches -------------------------------------------------------
def kslice_accesses(plan: SgemmPlan, kslice: int = 0) -> Tuple[SmemAccess, ...]:
    """The tile stores of a k-tile and the fragment loads of one k-slice."""
    if not plan.cfg.stages:
        return ()
    if not 0 <= kslice < plan.cfg.bk:
        raise InputError(f"k-slice {kslice} is outside 0..{plan.cfg.bk - 1}")
    stores = tuple(s for c in plan.a_copies + plan.b_copies for s in c.stores)
    return stores + plan.a_frag_loads[kslice] + plan.b_frag_loads[kslice]


def _cell(n: int) -> str:
    return "." if n == 0 else (str(n) if n < 10 else "+")


def render_access(plan: SgemmPlan, access: SmemAccess, warp: int = 0) -> str:
    """One line per lane group: for each bank, how many distinct 4-byte words the group
    touches there ('.' none, '1' served in one wavefront, '2'+ serialized)."""
    wa: WarpAccess = warp_access(access, lane_offsets(plan, access, warp))
    head = (f"{access.op}.{32 * access.width} {access.what}: {wa.wavefronts} wavefronts "
            f"(ideal {wa.ideal}, {wa.conflicts} conflicts), {wa.grouping}")
    lines = [head]
    for g in wa.groups:
        label = f"lanes {g.lanes[0]:>2}-{g.lanes[-1]:<2}"
        row = "".join(_cell(n) for n in g.words_per_bank)
        lines.append(f"  {label} |{' '.join(row[i:i + 8] for i in range(0, SMEM_BANKS, 8))}| {g.wavefronts}")
        worst = max(g.words_per_bank)
        if worst > 1:  # name the words that serialize in the worst bank, and who asks for them
            b = g.words_per_bank.index(worst)
            who = {}
            for lane in g.lanes:
                for w in wa.words[lane]:
                    if w % SMEM_BANKS == b:
                        who.setdefault(w, []).append(lane)
            detail = "; ".join(f"word {w} <- lanes {_lane_ranges(ls)}" for w, ls in sorted(who.items()))
            lines.append(f"  {'':<11}   bank {b}: {detail}")
    return "\n".join(lines)


def _lane_ranges(lanes: Sequence[int]) -> str:
    out, i = [], 0
    lanes = sorted(lanes)
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        out.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    return ",".join(out)


def render_kslice(plan: SgemmPlan, kslice: int = 0, warp: int = 0) -> str:
    accs = kslice_accesses(plan, kslice)
    if not accs:
        return "no shared-memory accesses (stages=0)"
    ruler = "".join(f"{b:<9}" for b in range(0, SMEM_BANKS, 8))
    lines = [f"banks touched by warp {warp}: the tile stores of a k-tile and the fragment loads of "
             f"k-slice {kslice} (digit = distinct words in that bank)",
             f"  {'bank':<11}   {ruler}"]
    lines += [render_access(plan, a, warp) for a in accs]
    return "\n".join(lines)


# ---- PNG ---------------------------------------------------------------------------------
def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("--png needs matplotlib, which is not installed: "
                              "pip install 'regtile[plot]' (or matplotlib)") from None
    return plt


def write_png(plan: SgemmPlan, path: str, kslice: int = 0, warp: int = 0, title: str = "") -> str:
    """The lane map and, per access of the k-slice, words per bank per lane group."""
    plt = _pyplot()
    cfg = plan.cfg
    accs = kslice_accesses(plan, kslice)
    rows = [(a, warp_access(a, lane_offsets(plan, a, warp))) for a in accs]
    n_group_rows = sum(len(wa.groups) for _, wa in rows)
    fig, (ax_map, ax_banks) = plt.subplots(1, 2, figsize=(16, max(4.0, 0.28 * n_group_rows + 2)),
                                           gridspec_kw={"width_ratios": [1, 1.3]})
    grid, _, (pm, pn) = lane_grid(cfg, warp)
    ax_map.imshow(grid, cmap="tab20", aspect="auto", vmin=0, vmax=mp.WARP - 1, interpolation="nearest")
    for r, row in enumerate(grid):
        for c, lane in enumerate(row):
            ax_map.text(c, r, str(lane), ha="center", va="center", fontsize=7)
    ax_map.set_xticks(range(len(grid[0])))
    ax_map.set_xticklabels([str(c * pn) for c in range(len(grid[0]))], fontsize=7)
    ax_map.set_yticks(range(len(grid)))
    ax_map.set_yticklabels([str(r * pm) for r in range(len(grid))], fontsize=7)
    ax_map.set_title(f"warp {warp}: lane of each {pm}x{pn} piece ({cfg.mapping})")
    ax_map.set_xlabel("warp-tile column")
    ax_map.set_ylabel("warp-tile row")
    matrix, labels = [], []
    for a, wa in rows:
        for g in wa.groups:
            matrix.append(list(g.words_per_bank))
            labels.append(f"{a.op}.{32 * a.width} {a.what[:28]} l{g.lanes[0]}-{g.lanes[-1]}")
    if matrix:
        top = max(2, max(max(r) for r in matrix))
        im = ax_banks.imshow(matrix, cmap=plt.get_cmap("viridis", top + 1), aspect="auto", vmin=-0.5,
                             vmax=top + 0.5, interpolation="nearest")
        ax_banks.set_yticks(range(len(labels)))
        ax_banks.set_yticklabels(labels, fontsize=6)
        ax_banks.set_xticks(range(0, SMEM_BANKS, 4))
        ax_banks.set_xlabel("bank")
        fig.colorbar(im, ax=ax_banks, ticks=range(top + 1), label="distinct words in bank (>1 serializes)")
    ax_banks.set_title(f"banks per lane group, k-slice {kslice}")
    fig.suptitle(title or cfg.describe(), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def render_all(plan: SgemmPlan, kslice: int = 0, warp: int = 0) -> str:
    return render_lane_map(plan.cfg, warp) + "\n\n" + render_kslice(plan, kslice, warp)


__all__ = ["render_lane_map", "render_kslice", "render_access", "render_all", "write_png", "lane_grid",
           "kslice_accesses", "PlotUnavailable"]
