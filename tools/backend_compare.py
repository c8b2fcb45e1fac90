"""What survives of the plan in the SASS, for either backend, and both side by side.

The plan (codegen/plan.py) names every register of the thread tile and orders the
FFMAs of a k-slice; ptxas allocates the physical registers and schedules.  This
module puts the plan's register map next to the SASS register map that
sass/banks.py reads from the main loop (accumulators = FFMA destinations,
fragments by operand slot), with the register-bank report, and measures how much of
the planned FFMA order survived:

  FFMA order kept (order_kept): the share of the main loop's consecutive FFMA pairs
  that share an operand as the plan's pair at that place does (the A fragment, the B
  fragment, or neither), up to register renaming and to ptxas's choice of operand
  slot.  1.0: the order reached the SASS as planned.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..codegen.config import SgemmConfig
from ..codegen.plan import SgemmPlan, make_plan
from ..sass import banks as reg_banks
from ..sass.disasm import SassFunction


def _span(names: Sequence[str]) -> str:
    return f"{names[0]}..{names[-1]}" if len(names) > 1 else names[0]


def plan_register_map(plan: SgemmPlan) -> Dict[str, List[str]]:
    r = plan.regs
    staging = [x for c in plan.a_copies + plan.b_copies for x in c.regs]
    return {"accumulators": [a for row in r.acc for a in row],
            "A fragments": [x for buf in r.frag_a for x in buf],
            "B fragments": [x for buf in r.frag_b for x in buf],
            "staging": staging}


def render_plan_map(plan: SgemmPlan) -> str:
    r = plan.regs
    parts = [f"accumulators {len(r.acc) * len(r.acc[0])} ({_span([a for row in r.acc for a in row])})",
             f"A fragments {sum(map(len, r.frag_a))} ({' / '.join(_span(b) for b in r.frag_a)})",
             f"B fragments {sum(map(len, r.frag_b))} ({' / '.join(_span(b) for b in r.frag_b)})"]
    staging = plan_register_map(plan)["staging"]
    if staging:
        parts.append(f"staging {len(staging)}")
    return ", ".join(parts)


# ---- FFMA order ------------------------------------------------------------------------
def plan_ffma_pairs(plan: SgemmPlan) -> List[Tuple[str, str]]:
    """(A fragment, B fragment) of each FFMA of one k-tile, in the plan's order."""
    r, cfg = plan.regs, plan.cfg
    nb = r.buffers
    slices = cfg.bk if cfg.stages else 1
    return [(r.frag_a[kk % nb][i], r.frag_b[kk % nb][j]) for kk in range(slices) for i, j in r.ffma_order]


def sass_ffma_pairs(func: SassFunction) -> List[Tuple[int, int]]:
    """(slot a, slot b) source registers of the main loop's FFMAs, in order."""
    out = []
    for ins in func.loop_instructions() or func.instructions:
        if ins.base != "FFMA":
            continue
        reads = reg_banks.source_reads(ins) or ()
        by_slot = {r.slot: r.reg for r in reads}
        out.append((by_slot.get("a", -1), by_slot.get("b", -1)))
    return out


def _outer_product(chunk: Sequence[Tuple[object, object]], tm: int, tn: int):
    """The two sides (row operands, column operands) when the chunk's FFMAs are one
    k-slice's TM x TN outer product - operand registers as the nodes of a complete
    bipartite graph, each FFMA an edge - whichever slot each operand sits in; else None.
    Both orientations when TM == TN (rows and columns are then told apart by nothing)."""
    adj: Dict[object, set] = {}
    for x, y in chunk:
        if x == y:
            return None
        adj.setdefault(x, set()).add(y)
        adj.setdefault(y, set()).add(x)
    color: Dict[object, int] = {}
    for start in adj:
        if start in color:
            continue
        color[start] = 0
        todo = [start]
        while todo:
            u = todo.pop()
            for w in adj[u]:
                if w not in color:
                    color[w] = 1 - color[u]
                    todo.append(w)
                elif color[w] == color[u]:
                    return None
    sides = [{u for u, c in color.items() if c == k} for k in (0, 1)]
    if len({frozenset(p) for p in chunk}) != tm * tn:
        return None
    out = []
    for rows, cols in (sides, sides[::-1]):
        if len(rows) == tm and len(cols) == tn:
            out.append((rows, cols))
    return out or None


def _kinds(seq: Sequence[Tuple[object, object]]) -> List[str]:
    """Per consecutive pair of FFMAs: "r" same row operand, "c" same column operand, "-" neither."""
    return ["r" if r0 == r1 else "c" if c0 == c1 else "-" for (r0, c0), (r1, c1) in zip(seq, seq[1:])]


def order_kept(plan: SgemmPlan, func: SassFunction) -> Optional[float]:
    """Share of the main loop's consecutive FFMA pairs (within a k-slice) that share an
    operand as the plan's pair at the same place does: both the row operand (A
    fragment), both the column operand (B fragment), or neither.  The loop's FFMAs are
    cut into k-slices at the offset where the most chunks are a whole TM x TN outer
    product, and each slice's operands are told rows from columns by that outer
    product's bipartite graph, so neither register renaming nor ptxas's choice of
    operand slot matters; a slice that is not a whole outer product (interleaved with
    its neighbour) scores 0.  None when the loop does not hold BK slices' FFMAs."""
    cfg = plan.cfg
    tm, tn = cfg.tm, cfg.tn
    per = tm * tn
    got = sass_ffma_pairs(func)
    slices = cfg.bk if cfg.stages else 1
    if len(got) != per * slices:
        return None
    if per == 1:
        return 1.0
    want = _kinds(plan.regs.ffma_order)
    best = 0
    for offset in range(per):
        seq = got[offset:] + got[:offset]
        hits = 0
        for s in range(slices):
            chunk = seq[s * per:(s + 1) * per]
            sides = _outer_product(chunk, tm, tn)
            if sides is None:
                continue
            hits += max(sum(g == w for g, w in zip(_kinds([(x, y) if x in rows else (y, x) for x, y in chunk]), want))
                        for rows, _ in sides)
        best = max(best, hits)
    return best / ((per - 1) * slices)


# ---- one build, and two side by side -------------------------------------------------
@dataclass
class PlanVsSass:
    backend: str
    arch: str
    plan: SgemmPlan
    banks: reg_banks.RegBankReport
    order_kept: Optional[float]
    registers: int
    spill_bytes: int
    loop_mix: Dict[str, int]
    kernel: str
    compiler: str

    def to_dict(self) -> dict:
        b = self.banks
        return {
            "backend": self.backend, "kernel": self.kernel, "compiler": self.compiler, "arch": self.arch,
            "registers": self.registers, "spill_bytes": self.spill_bytes, "main_loop": self.loop_mix,
            "plan_register_map": plan_register_map(self.plan),
            "plan_ffma_order": self.plan.cfg.ffma_order,
            "ffma_order_kept": None if self.order_kept is None else round(self.order_kept, 4),
            "sass_register_map": {role: regs for role, regs in b.register_map.items()},
            "conflicted_ffma": b.conflicts, "ffma": len(b.ffmas),
            "conflict_share": round(b.conflict_share, 4),
            "reuse_hit_share": round(b.reuse_hits / b.reads, 4) if b.reads else 0.0,
            "bank_bound_cycles_per_ffma": round(b.bank_bound, 4),
        }

    def render_text(self) -> str:
        kept = "n/a" if self.order_kept is None else f"{100 * self.order_kept:.1f}%"
        return "\n".join([
            f"plan vs SASS ({self.backend} backend, {self.arch})",
            f"  plan   {render_plan_map(self.plan)}",
            f"  plan   FFMA order {self.plan.cfg.ffma_order}; kept in the SASS loop: {kept} of consecutive FFMA "
            f"pairs share operands as planned",
            "  SASS   " + _sass_map_line(self.banks),
        ])


def _sass_map_line(b: reg_banks.RegBankReport) -> str:
    return ", ".join(f"{role} {len(regs)}" for role, regs in b.register_map.items() if regs)


def plan_vs_sass(built) -> PlanVsSass:
    cfg = built.config
    if not isinstance(cfg, SgemmConfig):
        raise TypeError("plan vs SASS is an SGEMM report")
    plan = make_plan(cfg)
    res = built.artifact.resources
    return PlanVsSass(built.backend, built.artifact.arch, plan, reg_banks.analyze(built.sass, built.artifact.arch),
                      order_kept(plan, built.sass), res.registers, res.spill_store_bytes + res.spill_load_bytes,
                      built.loop_mix(), built.source.name, built.artifact.compiler)


def _banks_cell(regs: List[int], model) -> str:
    if not regs:
        return "-"
    from collections import Counter
    c = Counter(model.bank(r) for r in regs)
    return f"{len(regs)} (" + ", ".join(f"b{k} {v}" for k, v in sorted(c.items())) + ")"


def render_side_by_side(reports: Sequence[PlanVsSass]) -> str:
    """One column per backend, same config and arch."""
    rows: List[Tuple[str, List[str]]] = []
    rows.append(("kernel", [r.kernel for r in reports]))
    rows.append(("compiler", [r.compiler for r in reports]))
    rows.append(("registers / spill bytes", [f"{r.registers} / {r.spill_bytes}" for r in reports]))
    for key in sorted({k for r in reports for k in r.loop_mix}):
        rows.append((f"main loop {key}", [str(r.loop_mix.get(key, 0)) for r in reports]))
    rows.append((f"FFMA order kept ({reports[0].plan.cfg.ffma_order})",
                 ["n/a" if r.order_kept is None else f"{100 * r.order_kept:.1f}%" for r in reports]))
    rows.append(("conflicted FFMA", [f"{r.banks.conflicts} of {len(r.banks.ffmas)} "
                                     f"({100 * r.banks.conflict_share:.1f}%)" for r in reports]))
    rows.append(("reuse-cache hits", [f"{r.banks.reuse_hits} of {r.banks.reads} "
                                      f"({100 * r.banks.reuse_hits / max(1, r.banks.reads):.1f}%)" for r in reports]))
    rows.append(("register-file reads per bank", [str(list(r.banks.bank_read_totals())) for r in reports]))
    rows.append(("bank-read bound, cycles/FFMA", [f"{r.banks.bank_bound:.3f}" for r in reports]))
    rows.append(("per-instruction estimate", [f"{r.banks.per_instruction_cycles:.3f}" for r in reports]))
    for role in ("accumulators", "A fragments (slot a)", "B fragments (slot b)", "ambiguous"):
        rows.append((f"SASS {role}", [_banks_cell(r.banks.register_map.get(role, []), r.banks.model)
                                      for r in reports]))
    w = max(len(x) for label, cells in rows for x in [label] + cells) + 2
    r0 = reports[0]
    lines = [f"backends side by side ({r0.arch}; register banks: {r0.banks.model.banks} banks, conflict at "
             f"{r0.banks.model.conflict_reads}+ non-cached reads in one bank, {r0.banks.scope})",
             f"  plan: {render_plan_map(r0.plan)}",
             "  " + " " * w + "".join(f"{r.backend:<{w}}" for r in reports)]
    for label, cells in rows:
        lines.append(f"  {label:<{w}}" + "".join(f"{c:<{w}}" for c in cells).rstrip())
    return "\n".join(lines)


# ---- FFMA orders ranked by the register-bank model --------------------------------------
def rank_ffma_orders(label: str, cfg: SgemmConfig, arch: str, backend: str) -> List[PlanVsSass]:
    """The config built with each FFMA order (tile_config.FFMA_ORDERS), best first: spill-free,
    then the lowest bank-read bound (the model that matched the H100's timings,
    docs/register-banks.md), then the fewest conflicted FFMAs.  ptxas allocates the
    physical registers, so a source order cannot pin banks; this is the bank-aware
    choice available to either backend: let ptxas allocate each order, keep the best."""
    from .artifacts import build
    reports = [plan_vs_sass(build(label, c, arch, backend=backend)) for c in ffma_order_variants(cfg)[0]]
    return sorted(reports, key=lambda r: (r.spill_bytes > 0, round(r.banks.bank_bound, 4), r.banks.conflict_share))


def ffma_order_variants(cfg: SgemmConfig):
    """([config with each FFMA order validation accepts], {order: why refused}): orders
    that keep more fragments live can exceed the register cap where zigzag fits
    (codegen/config.py, register_estimate)."""
    from ..codegen.config import FFMA_ORDERS, ConfigError
    ok, refused = [], {}
    for o in FFMA_ORDERS:
        try:
            ok.append(cfg.replace(ffma_order=o))
        except ConfigError as e:
            refused[o] = str(e)
    return ok, refused


def render_ranking(reports: Sequence[PlanVsSass]) -> str:
    r0 = reports[0]
    lines = [f"FFMA orders ranked ({r0.backend} backend, {r0.arch}; best first: spill-free, bank-read bound, "
             f"conflicted FFMAs)",
             f"  {'order':<10}{'registers':>10}{'spill B':>9}{'conflicted':>12}{'bound':>8}{'reuse':>8}{'kept':>8}"]
    for r in reports:
        kept = "n/a" if r.order_kept is None else f"{100 * r.order_kept:.0f}%"
        lines.append(f"  {r.plan.cfg.ffma_order:<10}{r.registers:>10}{r.spill_bytes:>9}"
                     f"{100 * r.banks.conflict_share:>11.1f}%{r.banks.bank_bound:>8.3f}"
                     f"{100 * r.banks.reuse_hits / max(1, r.banks.reads):>7.1f}%{kept:>8}")
    return "\n".join(lines)
