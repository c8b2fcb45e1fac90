"""The shared-memory bank model of one warp instruction, in Nsight Compute's units: the groups of lanes that
serve it and the wavefronts each costs (codegen/smem_banks.py applies it to a plan over a problem;
codegen/smem_vectorize.py merges the plan's accesses as ptxas does first).

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
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from ..errors import ConfigError, InputError
from .hardware import SMEM_BANK_BYTES, SMEM_BANKS, SMEM_LANE_GROUPS
from .mapping import WARP
from .plan import SgemmPlan, SmemAccess, ThreadVars

FLOAT_BYTES = 4
WORDS_PER_FLOAT = FLOAT_BYTES // SMEM_BANK_BYTES  # 1: a float is one bank word


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
             "width": self.width, "grouping": self.grouping, "wavefronts": report_number(self.wavefronts),
             "ideal": report_number(self.ideal), "conflicts": report_number(self.conflicts)}
        if self.merged_from:
            d["merged_from"] = list(self.merged_from)
        if self.reload_of:
            d["reload_of"] = self.reload_of
        return d


def report_number(x: float):
    """An integer where the float is one, else rounded to 4 places (the reports' numbers)."""
    return int(x) if float(x).is_integer() else round(x, 4)


def analyze_access(plan: SgemmPlan, access: SmemAccess) -> Tuple[AccessReport, Tuple[WarpAccess, ...]]:
    """One access over every warp of a block."""
    warps = plan.cfg.threads // WARP
    per = tuple(warp_access(access, lane_offsets(plan, access, w)) for w in range(warps))
    groupings = sorted({p.grouping for p in per})
    rep = AccessReport(access.what, access.op, access.operand, access.width, " / ".join(groupings),
                       tuple((p.wavefronts, p.ideal) for p in per))
    return rep, per
