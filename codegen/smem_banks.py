"""Static shared-memory bank model of an SGEMM plan, in Nsight Compute's units.

Every shared-memory instruction a warp issues per k-tile comes from the plan
(`SgemmPlan.smem_accesses_per_ktile()`), and its per-lane address from the access's
own `offset` function evaluated on `ThreadVars.numeric` for each thread: the same
index function the emitter prints into the kernel.  Nothing here re-derives an
address.

The hardware model (constants from hardware.py; sm_80..sm_90 alike)
---------------------------------------------------------------------
* 32 banks of 4 bytes; a 4-byte word w lives in bank w % 32.
* A warp instruction is served in *wavefronts*.  The lanes are split into groups
  that are served one after another: 32-bit accesses one group of 32 lanes, 64-bit
  two half-warps, 128-bit four quarter-warps (8 lanes x 16 B = 128 B, the data path
  of one wavefront).
* 128-bit *loads* that repeat addresses in lane pairs pack two lanes into one return
  slot: when lane n reads the same address as lane n^1 for every lane, or the same as
  lane n^2 for every lane, the warp is served as two half-warps (2 groups, not 4).
  (NVIDIA forum, "Unexpected shared memory bank conflict", t/77228 post 2, for
  cc 7.x: "LDS.128 requires 4 requests per instruction ... If the guidelines are met
  the requests/instruction should reduce from 4 to 2"; maxas issue #8, Scott Gray:
  "128 bit vector loads ... require at a minimum 2 transactions".)  Stores never
  pack: lanes writing one word still write it once, in their own group.
* Within a group, lanes that touch the same word share it (broadcast for loads, one
  write for stores); distinct words in one bank serialize.  A group costs
  max(1, max over banks of distinct words in the bank) wavefronts.
* wavefronts(instruction) = sum over groups; ideal = number of groups (what the same
  instruction costs with no two distinct words of a group in one bank);
  bank conflicts = wavefronts - ideal.

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

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import ConfigError, InputError
from .hardware import SMEM_BANK_BYTES, SMEM_BANKS, SMEM_LANE_GROUPS
from .mapping import WARP
from .plan import SgemmPlan, SmemAccess, ThreadVars
from .program import geometry
from .tile_config import RING_STAGES

FLOAT_BYTES = 4
WORDS_PER_FLOAT = FLOAT_BYTES // SMEM_BANK_BYTES  # 1: a float is one bank word

# Nsight Compute metric names of the totals.
NCU_INST = {"LDS": "smsp__inst_executed_op_shared_ld.sum", "STS": "smsp__inst_executed_op_shared_st.sum"}
NCU_WAVEFRONTS = {"LDS": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                  "STS": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}
NCU_CONFLICTS = {"LDS": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                 "STS": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}


@dataclass(frozen=True)
class Group:
    """One group of lanes served together, and what it costs."""
    lanes: Tuple[int, ...]
    words_per_bank: Tuple[int, ...]  # distinct words the group touches in each bank
    lanes_per_bank: Tuple[Tuple[int, ...], ...]  # lanes touching each bank

    @property
    def wavefronts(self) -> int:
        return max(1, max(self.words_per_bank))


@dataclass(frozen=True)
class WarpAccess:
    """One warp instruction: its lanes' word addresses and the groups that serve it."""
    words: Tuple[Tuple[int, ...], ...]  # words[lane]: the 4-byte words the lane touches
    groups: Tuple[Group, ...]
    grouping: str  # "warp", "half-warps", "quarter-warps", "half-warps (pair packing)"

    @property
    def wavefronts(self) -> int:
        return sum(g.wavefronts for g in self.groups)

    @property
    def ideal(self) -> int:
        return len(self.groups)

    @property
    def conflicts(self) -> int:
        return self.wavefronts - self.ideal


def _pairs_repeat(first_words: Sequence[int], step: int) -> bool:
    return all(first_words[n] == first_words[n ^ step] for n in range(len(first_words)))


def warp_access(access: SmemAccess, offsets: Sequence[int]) -> WarpAccess:
    """Apply the model to one instruction given each lane's float offset."""
    if len(offsets) != WARP:
        raise InputError(f"a warp has {WARP} lanes, got {len(offsets)} offsets")
    width_bytes = access.width * FLOAT_BYTES
    if width_bytes not in SMEM_LANE_GROUPS:
        raise ConfigError(f"{access.what}: {width_bytes}-byte shared accesses are not modelled")
    words_per_lane = access.width * WORDS_PER_FLOAT
    words = tuple(tuple(int(o) * WORDS_PER_FLOAT + e for e in range(words_per_lane)) for o in offsets)
    n_groups = SMEM_LANE_GROUPS[width_bytes]
    grouping = {1: "warp", 2: "half-warps", 4: "quarter-warps"}[n_groups]
    if access.op == "LDS" and n_groups == 4:
        firsts = [w[0] for w in words]
        if _pairs_repeat(firsts, 1) or _pairs_repeat(firsts, 2):
            n_groups, grouping = 2, "half-warps (pair packing)"
    size = WARP // n_groups
    groups = []
    for g in range(n_groups):
        lanes = tuple(range(g * size, (g + 1) * size))
        bank_words: Dict[int, set] = defaultdict(set)
        bank_lanes: Dict[int, set] = defaultdict(set)
        for lane in lanes:
            for w in words[lane]:
                bank_words[w % SMEM_BANKS].add(w)
                bank_lanes[w % SMEM_BANKS].add(lane)
        groups.append(Group(lanes, tuple(len(bank_words[b]) for b in range(SMEM_BANKS)),
                            tuple(tuple(sorted(bank_lanes[b])) for b in range(SMEM_BANKS))))
    return WarpAccess(words, tuple(groups), grouping)


def lane_offsets(plan: SgemmPlan, access: SmemAccess, warp: int) -> List[int]:
    """The float offset each lane of warp `warp` gives to `access` (the plan's own
    index function, evaluated on numbers)."""
    cfg = plan.cfg
    return [int(access.offset(ThreadVars.numeric(cfg, warp * WARP + lane))) for lane in range(WARP)]


@dataclass(frozen=True)
class AccessReport:
    """One access of the per-k-tile list, over every warp of a block."""
    what: str
    op: str
    operand: str
    width: int
    grouping: str
    per_warp: Tuple[Tuple[int, int], ...]  # (wavefronts, ideal) for warp 0, 1, ...
    merged_from: Tuple[str, ...] = ()  # the plan accesses ptxas merged into this one
    reload_of: str = ""  # set on a SASS re-load of a merged element: the access it repeats

    @property
    def sass(self) -> str:
        return f"{self.op}.{32 * self.width}"

    @property
    def wavefronts(self) -> float:
        """Per warp instruction (mean over the block's warps; they agree for every
        layout the generator emits, since warps differ by a constant offset)."""
        return sum(w for w, _ in self.per_warp) / len(self.per_warp)

    @property
    def ideal(self) -> float:
        return sum(i for _, i in self.per_warp) / len(self.per_warp)

    @property
    def conflicts(self) -> float:
        return self.wavefronts - self.ideal

    def to_dict(self) -> dict:
        d = {"what": self.what, "op": self.op, "sass": self.sass, "operand": self.operand,
             "width": self.width, "grouping": self.grouping, "wavefronts": _num(self.wavefronts),
             "ideal": _num(self.ideal), "conflicts": _num(self.conflicts)}
        if self.merged_from:
            d["merged_from"] = list(self.merged_from)
        if self.reload_of:
            d["reload_of"] = self.reload_of
        return d


def _num(x: float):
    return int(x) if float(x).is_integer() else round(x, 4)


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
        return {op: {k: _num(v) for k, v in d.items()} for op, d in out.items()}

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
            lines.append(f"  {len(accs):>5}  {sass:<8} {grouping:<25} {_num(wf):>10} {_num(ideal):>6} "
                         f"{_num(wf - ideal):>9}  {what}")
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


def analyze_access(plan: SgemmPlan, access: SmemAccess) -> Tuple[AccessReport, Tuple[WarpAccess, ...]]:
    """One access over every warp of a block."""
    warps = plan.cfg.threads // WARP
    per = tuple(warp_access(access, lane_offsets(plan, access, w)) for w in range(warps))
    groupings = sorted({p.grouping for p in per})
    rep = AccessReport(access.what, access.op, access.operand, access.width, " / ".join(groupings),
                       tuple((p.wavefronts, p.ideal) for p in per))
    return rep, per


# ---- ptxas's vectorization of shared accesses ------------------------------------------------
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
        copies = len(plan.smem_accesses_per_ktile()) - len(shared_instructions(plan))
        skipped.append(f"the cp.async ring's {copies} copies a thread and k-tile (LDGSTS: Nsight Compute counts their "
                       f"shared writes outside op_st, which the ring leaves at 0)")
    skipped = "; ".join(skipped)
    return SmemReport(cfg.describe(), m, n, k, blocks, warps, k_tiles, accesses, totals, vec, skipped)
