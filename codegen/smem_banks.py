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

Totals are per problem: every block of the grid ceil(M/BM) x ceil(N/BN) (edge blocks
run the full tile, zero-filled), every warp of a block, ceil(K/BK) k-tiles.  The
double-buffered kernel (stages=2) stores each tile once too: the first tile before
the loop and the k_tiles-1 others inside it.  stages=0 kernels use no shared memory.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from .hardware import SMEM_BANK_BYTES, SMEM_BANKS, SMEM_LANE_GROUPS
from .mapping import WARP
from .plan import SgemmPlan, SmemAccess, ThreadVars

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
        raise ValueError(f"a warp has {WARP} lanes, got {len(offsets)} offsets")
    width_bytes = access.width * FLOAT_BYTES
    if width_bytes not in SMEM_LANE_GROUPS:
        raise ValueError(f"{access.what}: {width_bytes}-byte shared accesses are not modelled")
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
        return {"what": self.what, "op": self.op, "sass": self.sass, "operand": self.operand,
                "width": self.width, "grouping": self.grouping, "wavefronts": _num(self.wavefronts),
                "ideal": _num(self.ideal), "conflicts": _num(self.conflicts)}


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
                "totals": dict(self.totals)}

    def render_text(self) -> str:
        lines = [f"shared-memory banks (static model; Nsight Compute units)  M={self.m} N={self.n} K={self.k}: "
                 f"{self.blocks} blocks x {self.warps_per_block} warps x {self.k_tiles} k-tiles"]
        if not self.accesses:
            lines.append("  no shared-memory accesses (stages=0)")
            return "\n".join(lines)
        lines.append(f"  {'count':>5}  {'SASS':<8} {'grouping':<25} {'wavefronts':>10} {'ideal':>6} "
                     f"{'conflicts':>9}  example")
        # Accesses that cost the same are one row: a k-tile has BK copies of each fragment load.
        rows: Dict[tuple, List[AccessReport]] = {}
        for a in self.accesses:
            key = (a.op, a.operand, a.sass, a.grouping, a.wavefronts, a.ideal)
            rows.setdefault(key, []).append(a)
        for (op, operand, sass, grouping, wf, ideal), accs in rows.items():
            lines.append(f"  {len(accs):>5}  {sass:<8} {grouping:<25} {_num(wf):>10} {_num(ideal):>6} "
                         f"{_num(wf - ideal):>9}  {accs[0].what}")
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


def analyze(plan: SgemmPlan, m: int, n: int, k: int) -> SmemReport:
    """Per-access costs of one k-tile and their totals over an M x N x K problem."""
    cfg = plan.cfg
    if min(m, n, k) < 1:
        raise ValueError(f"problem sizes must be >= 1, got M={m} N={n} K={k}")
    blocks = _ceil_div(m, cfg.bm) * _ceil_div(n, cfg.bn)
    warps = cfg.threads // WARP
    k_tiles = _ceil_div(k, cfg.bk)
    accesses = tuple(analyze_access(plan, a)[0] for a in plan.smem_accesses_per_ktile())
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
    return SmemReport(cfg.describe(), m, n, k, blocks, warps, k_tiles, accesses, totals)
