"""ptxas's vectorization of a plan's shared accesses: the instructions the SASS issues, which codegen/smem_banks.py
costs (codegen/smem_access.py), rather than those the plan prints.

ptxas's vectorization (what the SASS issues, not what the plan prints)
* ptxas merges scalar shared loads into LDS.64 / LDS.128 where it can prove the
  floats consecutive and the vector aligned: the scalar rungs' plans have 64 (smem),
  72 (tile1d) or 128 (tile2d, tile2d-reg) LDS.32 per k-tile, their sm_90 loops 8
  LDS.128 + 32 LDS.32, 16 LDS.128 + 15 LDS.32, 32 LDS.128.  The H100's Nsight
  counts follow the SASS (tile2d: 32 shared-load instructions, 160 wavefronts and 64
  conflicts per warp k-tile, the model's numbers for the merged loads, while the
  plan's 128 LDS.32 would give 384 and 256).
* Model (`vectorize`): accesses of one op and operand chain when, for every thread
  of the block, the next one's float offset is the previous one's plus its width;
  a run of a chain merges into one 64- or 128-bit access when it starts on an 8- or
  16-byte boundary for every thread (and every stage).  A policy per (op, operand) -
  none, 128 only, 64 only, 128 then 64 - gives the instruction counts; `analyze`
  takes the SASS main loop's counts by width (`sass_widths`, e.g.
  sass.disasm.instruction_mix(func.loop_instructions())) and uses the policies that
  reproduce them.  Where no policy does, the closest is used, and SASS instructions
  beyond it are taken as re-loads of merged elements (tile1d: ptxas re-reads 7 of
  the 64 A floats it loaded as LDS.128 with LDS.32), each costing what the scalar
  access it repeats costs; a shortfall is reported and not modelled.  Without
  `sass_widths` the plan's widths are used, and the report says so.
"""
from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .plan import SgemmPlan, SmemAccess, ThreadVars
from .smem_access import analyze_access
from .tile_config import RING_STAGES


POLICIES = ("128+64", "128", "64", "none")  # how one (op, operand) group may be merged
_POLICY_WIDTHS = {"128+64": (4, 2), "128": (4,), "64": (2,), "none": ()}


def sass_counts(widths: Mapping[str, int]) -> Dict[str, int]:
    """The shared-memory entries ('LDS.128': 32, ...) of a SASS instruction mix."""
    return {k: int(v) for k, v in widths.items() if k.split(".")[0] in ("LDS", "STS") and v}


def _counts(accesses: Sequence[SmemAccess]) -> Dict[str, int]:
    return dict(Counter(f"{a.op}.{32 * a.width}" for a in accesses))


def thread_offsets(plan: SgemmPlan, access: SmemAccess) -> Tuple[int, ...]:
    """The access's float offset for every thread of the block."""
    cfg = plan.cfg
    return tuple(int(access.offset(ThreadVars.numeric(cfg, t))) for t in range(cfg.threads))


def merge_chains(plan: SgemmPlan, accesses: Sequence[SmemAccess]) -> List[List[int]]:
    """Chains of scalar accesses (indices into `accesses`), each of one op and operand,
    in which every access reads the float after the previous one for every thread."""
    offs = [thread_offsets(plan, a) if a.width == 1 else None for a in accesses]
    index: Dict[tuple, List[int]] = defaultdict(list)
    for i, (a, o) in enumerate(zip(accesses, offs)):
        if o is not None:
            index[(a.op, a.operand, o)].append(i)
    nxt: Dict[int, int] = {}
    has_prev = set()
    for i, (a, o) in enumerate(zip(accesses, offs)):
        if o is None:
            continue
        for j in index.get((a.op, a.operand, tuple(x + 1 for x in o)), []):
            if j not in has_prev:
                nxt[i] = j
                has_prev.add(j)
                break
    chains = []
    for i in range(len(accesses)):
        if offs[i] is None or i in has_prev or i not in nxt:
            continue
        chain = [i]
        while chain[-1] in nxt:
            chain.append(nxt[chain[-1]])
        chains.append(chain)
    return chains


def _aligned(plan: SgemmPlan, offsets: Sequence[int], floats: int) -> bool:
    """Every thread's vector starts on a floats*4-byte boundary, in every stage."""
    cfg = plan.cfg
    if cfg.stages > 1 and cfg.smem_floats_per_stage % floats:
        return False
    return all(o % floats == 0 for o in offsets)


def _split(plan: SgemmPlan, chain: Sequence[int], offs: Sequence[Tuple[int, ...]], widths: Sequence[int]
           ) -> List[Tuple[int, ...]]:
    """Pieces of a chain: runs that merge (aligned, the widths in order of preference)
    and single accesses."""
    pieces, k = [], 0
    while k < len(chain):
        for w in widths:
            if k + w <= len(chain) and _aligned(plan, offs[chain[k]], w):
                pieces.append(tuple(chain[k:k + w]))
                k += w
                break
        else:
            pieces.append((chain[k],))
            k += 1
    return pieces


@dataclass(frozen=True)
class Vectorization:
    """How the analysed instruction list was obtained from the plan's accesses."""
    source: str  # "sass" (following ptxas's vectorization seen in the SASS) or "plan"
    plan_counts: Dict[str, int]
    model_counts: Dict[str, int]  # after the merge (and re-loads)
    sass_counts: Optional[Dict[str, int]] = None
    policies: Dict[str, str] = field(default_factory=dict)  # "LDS A" -> policy
    merges: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()  # (SASS opcode, plan accesses merged)
    reloads: Dict[str, int] = field(default_factory=dict)  # SASS instructions taken as re-loads
    shortfall: Dict[str, int] = field(default_factory=dict)  # plan-merged instructions the SASS lacks
    ambiguous: bool = False  # another policy choice also matched, with other costs

    @property
    def exact(self) -> bool:
        return self.sass_counts is not None and not self.reloads and not self.shortfall

    def to_dict(self) -> dict:
        return {"source": self.source, "plan_counts": dict(self.plan_counts),
                "model_counts": dict(self.model_counts), "sass_counts": self.sass_counts,
                "policies": dict(self.policies),
                "merged": [{"sass": op, "plan_accesses": list(parts)} for op, parts in self.merges],
                "reloads": dict(self.reloads), "shortfall": dict(self.shortfall), "ambiguous": self.ambiguous}

    def render_lines(self) -> List[str]:
        fmt = lambda c: ", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "none"  # noqa: E731
        if self.source != "sass":
            return [f"vectorization: the plan's widths ({fmt(self.plan_counts)}); no SASS given, "
                    f"ptxas may merge scalar accesses (pass sass_widths)"]
        out = [f"vectorization: following ptxas's vectorization seen in the SASS (main loop {fmt(self.sass_counts)}; "
               f"plan {fmt(self.plan_counts)})"]
        by_op = Counter(op for op, _ in self.merges)
        parts = Counter(op for op, ps in self.merges for _ in ps)
        if self.merges:
            out.append("  merged: " + ", ".join(f"{parts[op]} plan accesses into {n} {op}" for op, n in by_op.items())
                       + " (" + ", ".join(f"{k}: {v}" for k, v in self.policies.items() if v != "none") + ")")
        if self.reloads:
            out.append("  SASS has more than the merge: " + ", ".join(f"{v} {k}" for k, v in self.reloads.items())
                       + ", taken as re-loads of merged elements (each costing the access it repeats; assumed)")
        if self.shortfall:
            out.append("  SASS has fewer than the closest merge: " +
                       ", ".join(f"{v} {k}" for k, v in self.shortfall.items()) + " (not modelled: kept)")
        if self.ambiguous:
            out.append("  (another merge gives the same counts at another cost: the first policy in "
                       f"{POLICIES} order is used)")
        return out


def shared_instructions(plan: SgemmPlan) -> Tuple[SmemAccess, ...]:
    """The plan's shared-memory accesses of one k-tile that the kernel issues as LDS / STS: all of them, but for the
    cp.async ring's copies (stages 3 / 4: LDGSTS, not modelled; module notes)."""
    accesses = plan.smem_accesses_per_ktile()
    if plan.cfg.stages in RING_STAGES:
        return tuple(a for a in accesses if a.op != "STS")
    return accesses


def vectorize(plan: SgemmPlan, sass_widths: Optional[Mapping[str, int]] = None
              ) -> Tuple[List[SmemAccess], List[Tuple[SmemAccess, ...]], Vectorization]:
    """The shared-memory instructions of one k-tile as the SASS issues them: the plan's
    accesses with ptxas's merges applied (see the module notes).  Returns the
    instruction list, the plan accesses merged into each (empty: not merged), and
    the record."""
    accesses = list(shared_instructions(plan))
    plan_counts = _counts(accesses)
    if sass_widths is None:
        return accesses, [() for _ in accesses], Vectorization("plan", plan_counts, plan_counts)
    want = sass_counts(sass_widths)
    chains = merge_chains(plan, accesses)
    offs = {i: thread_offsets(plan, accesses[i]) for c in chains for i in c}
    groups = sorted({(accesses[c[0]].op, accesses[c[0]].operand) for c in chains})
    # pieces per (group, policy), and the counts each choice gives
    pieces = {(g, pol): [p for c in chains if (accesses[c[0]].op, accesses[c[0]].operand) == g
                         for p in _split(plan, c, offs, _POLICY_WIDTHS[pol])]
              for g in groups for pol in POLICIES}

    def build(choice: Dict[tuple, str]):
        merged_at: Dict[int, Tuple[int, ...]] = {}
        for g, pol in choice.items():
            for p in pieces[(g, pol)]:
                if len(p) > 1:
                    merged_at[p[0]] = p
        dropped = {i for p in merged_at.values() for i in p[1:]}
        out, parts = [], []
        for i, a in enumerate(accesses):
            if i in dropped:
                continue
            if i in merged_at:
                p = merged_at[i]
                out.append(SmemAccess(a.op, a.operand, len(p), _merged_what([accesses[j] for j in p]), a.offset,
                                      tuple(r for j in p for r in accesses[j].regs)))
                parts.append(tuple(accesses[j] for j in p))
            else:
                out.append(a)
                parts.append(())
        return out, parts

    def distance(counts):
        keys = set(counts) | set(want)
        return sum(abs(counts.get(k, 0) - want.get(k, 0)) for k in keys)

    candidates = []
    for combo in itertools.product(POLICIES, repeat=len(groups)):
        choice = dict(zip(groups, combo))
        out, parts = build(choice)
        candidates.append((distance(_counts(out)), choice, out, parts))
    best_d = min(c[0] for c in candidates)
    tied = [c for c in candidates if c[0] == best_d]
    _, choice, out, parts = tied[0]
    costs = {tuple(sorted(_counts(c[2]).items())) + (_cost_key(plan, c[2]),) for c in tied}
    counts = _counts(out)
    diff = {k: want.get(k, 0) - counts.get(k, 0) for k in sorted(set(counts) | set(want))}
    reloads = {k: v for k, v in diff.items() if v > 0}
    shortfall = {k: -v for k, v in diff.items() if v < 0}
    model_counts = dict(counts)
    for k, v in reloads.items():
        model_counts[k] = model_counts.get(k, 0) + v
    merges = tuple((f"{a.op}.{32 * a.width}", tuple(x.what for x in p)) for a, p in zip(out, parts) if p)
    rec = Vectorization("sass", plan_counts, model_counts, want,
                        {f"{op} {operand}": pol for (op, operand), pol in choice.items()}, merges, reloads,
                        shortfall, len(costs) > 1)
    return out, parts, rec


def _merged_what(parts: Sequence[SmemAccess]) -> str:
    if len(parts) == 1:
        return parts[0].what
    return f"{parts[0].what} .. {parts[-1].what}"


def _cost_key(plan: SgemmPlan, accesses: Sequence[SmemAccess]) -> int:
    return sum(analyze_access(plan, a)[0].wavefronts for a in accesses)
