"""The store step of the SASS pass: the next tile's shared stores spread among the last slice's FFMAs.

At the end of a k-tile the two-stage loop (codegen/program.py) stores the next tile's staging registers to shared
memory behind `@!has_next bra` and meets the barrier.  ptxas keeps those stores as their own block after the
branch: 12 STS four cycles apart (S04) with nothing between, in wide-64x128-k16's loop (8 STS.32 of A's transposed
copy, 4 STS.128 of B's) and in the 128x256 kernel's on B^T (12 STS.32).  The warp issues one instruction every
four cycles there, then meets the barrier.  Nsight Compute on 8192x128x8192 (wide-64x128-k16, session 35) counted
0.14 warps stalled on "wait" an issued instruction against cuBLAS's 0.01, and 4096^3 in NT 0.09 against NN's 0.07
(docs/data/session35/b_fa60b57).  Where ptxas if-converts the stores itself (TN's three STS.128) it spreads them
among the FFMAs.

Measured against the pass without it (lab/experiments/stores_ab.py, H200, docs/data/session35/c_e56fd8e): B^T's 24
stores in wide-64x128-k16 (NT) ran 1.0-1.4% faster (8192x128x8192 350.6 -> 347.1 us, 1536^3 154.0 -> 151.9); 18
stores (TT 8192x128x8192; tall-128x64-k16 in NN) +0.4% to -0.4%, 12 (NN's wide-64x128-k16 on eight shapes) -0.7% to
+0.8%, 6 (TN) the same: within the runs' noise.  So the step takes a block of MIN_STORES or more.

What it does, in the main loop, where it finds `@P BRA L` over a run of MIN_STORES or more unpredicated STS with L
the instruction right after them, and at least MIN_SPACING FFMAs a store right before the branch:
  1. if-conversion: each store takes the branch's predicate, negated (`@!P STS`), and the branch becomes a NOP
     with the branch's control code (its stall and waits), in the window's last slot, right before the
     instruction it branched to (P is read at issue, the FFMAs between write no predicate, and no instruction
     within PREDICATE_GAP above the window names P; a branch moved would keep its relative target and land
     elsewhere, and a NOP is no landing);
  2. the stores move up into the last SPACING x stores FFMAs before the branch, one before every SPACING FFMAs
     (S01 each: the FFMAs fill the four cycles ptxas stalled; MIN_SPACING where the run is too short), where
     none of the FFMAs a store passes writes a register it reads or waits on a scoreboard it sets, and no branch lands inside that window but at its first
     instruction;
  3. the branch keeps its waits, so the barrier after it still finds the last slice's fragment loads done; the
     first store takes a scoreboard of the branch's or the passed FFMAs' wait masks where an instruction that sets
     it (a variable-latency write) writes a register the stores read and reaches the window without a wait on it
     (their data and addresses come from the global loads, on a scoreboard the first store waits on itself); and
     no instruction within PREDICATE_GAP above the window writes a register they read (fixed latency);
  4. the rewritten cubin's disassembly must print, at every slot, the instruction moved there with the
     predicate given (preload.write_edits).
The stores write the other stage's buffer, which no warp reads before the barrier that follows and which the loads
they pass do not read (the loads before the branch read this stage's buffer): the FFMAs between read registers
only.  The FFMAs keep their order, controls and reuse flags (as preload.py: ptxas keeps an FFMA's
reuse flag across a shared-memory access between two FFMAs).  A loop without the pattern, or where a check fails,
is left as it was, with the reason in the report.
"""
from __future__ import annotations

import re

from dataclasses import dataclass
from typing import List, Set, Tuple

from . import isa
from .disasm import Instruction, SassFunction
from .fields import UnknownForm, locate, registers_of
from .preload import foreign_landing, guarded_blocks, if_converted, passes
from .reorder import Cfg

SPACING = 3  # FFMAs after each store: an STS every four issue slots, as ptxas spaces them
MIN_SPACING = 2  # where too few FFMAs precede the branch for SPACING (B^T's 24 stores of a 64x128 k16 tile)
PREDICATE_GAP = 8  # instructions above the window that must not name the branch's guard
MIN_STORES = 20  # the blocks measured faster spread (24: B^T's on the k16 tiles); 18 and fewer within noise


@dataclass
class StoresReport:
    stores: int = 0  # stores spread (0: left as ptxas wrote them)
    at: int = -1  # offset of the window's first slot
    ffmas: int = 0  # FFMAs they were spread over
    spacing: int = 0  # FFMAs after each store
    why: str = ""  # why not, where not

    def to_dict(self) -> dict:
        return ({"stores_spread": self.stores, "at": f"{self.at:04x}", "over_ffmas": self.ffmas,
                 "spacing": self.spacing} if self.stores
                else {"stores_spread": 0, "why_not": self.why})


def _inherited(func: SassFunction, first: Instruction, waits: int, read) -> Set[int]:
    """The scoreboards of `waits` (the branch's and the passed FFMAs' wait masks) that a variable-latency write of a
    register in `read` sets and that some path from that write to the window's `first` slot does not wait on before
    it: the waits the stores relied on the branch or those FFMAs for (step 3)."""
    cfg = Cfg(func.instructions, func.labels)
    at = next(k for k, x in enumerate(func.instructions) if x.offset == first.offset)
    out: Set[int] = set()
    for d, x in enumerate(func.instructions):
        sb = isa.write_scoreboard(x.hi)
        if sb == isa.NO_SCOREBOARD or not waits >> sb & 1 or sb in out or not cfg.writes[d] & read:
            continue
        stack, seen = list(cfg.succ[d]), set()
        while stack:
            j = stack.pop()
            if j == at:
                out.add(sb)
                break
            if j in seen or isa.wait_mask(func.instructions[j].hi) >> sb & 1:
                continue
            seen.add(j)
            stack.extend(cfg.succ[j])
    return out


def plan(func: SassFunction) -> Tuple[List[Tuple[int, Instruction, int, int, str]], StoresReport]:
    """([(slot offset, instruction moved there, lo, hi, predicate text)], report) for `func`'s main loop."""
    loop = func.loop_instructions()
    landing = func.branch_sources()
    for i, br, guard, stores, _ in guarded_blocks(func, loop, "STS"):
        if len(stores) < MIN_STORES:
            return [], StoresReport(why=f"{len(stores)} stores behind the branch (spread from {MIN_STORES})")
        f = i
        while f > 0 and loop[f - 1].base == "FFMA" and not loop[f - 1].predicate:
            f -= 1
        spacing = next((sp for sp in (SPACING, MIN_SPACING) if i - f >= sp * len(stores)), 0)
        if not spacing:
            return [], StoresReport(why=f"{i - f} FFMAs before the branch over {len(stores)} stores (needs "
                                        f"{MIN_SPACING * len(stores)})")
        need = spacing * len(stores)
        ffmas = loop[i - need:i]
        # the stores read the guard and their registers at their issue, up to `need` slots before the branch did:
        # nothing that may write them (fixed latency: an ISETP, an address add) may sit within PREDICATE_GAP above
        try:
            read = set().union(*(registers_of(locate(st), False) for st in stores))
            near = [x for x in loop[max(0, i - need - PREDICATE_GAP):i - need]
                    if re.search(rf"\bP{guard[0]}\b", x.text) or registers_of(locate(x), True) & read]
        except UnknownForm as e:
            return [], StoresReport(why=f"an instruction near the window has unknown register fields: {e}")
        if near:
            return [], StoresReport(why=f"/*{near[-1].offset:04x}*/ {near[-1].text} writes what the stores read, "
                                        f"or names their guard, just above the window")
        foreign = foreign_landing(landing, ffmas[1:] + [br] + stores, br)
        if foreign is not None:
            return [], StoresReport(why=f"a branch lands at /*{foreign:04x}*/")
        nop = next((x for x in func.instructions if x.base == "NOP" and not x.predicate), None)
        if nop is None:
            return [], StoresReport(why="no NOP in the function to copy for the branch's slot")
        for n, st in enumerate(stores):
            for x in ffmas[spacing * n:]:
                if not passes(st, x):
                    return [], StoresReport(why=f"/*{st.offset:04x}*/ {st.text} cannot pass /*{x.offset:04x}*/ {x.text}")
        order: List[Instruction] = []
        for n, st in enumerate(stores):
            order.append(st)
            order.extend(ffmas[spacing * n:spacing * (n + 1)])
        order.append(br)
        slots = [x.offset for x in ffmas] + [br.offset] + [x.offset for x in stores]
        waits = isa.wait_mask(br.hi)
        for x in ffmas:
            waits |= isa.wait_mask(x.hi)
        try:
            inherited = _inherited(func, ffmas[0], waits, read)
        except UnknownForm as e:
            return [], StoresReport(why=f"an instruction of the function has unknown register fields: {e}")
        edits = []
        for slot, ins in zip(slots, order):
            if ins is br:  # the NOP's encoding with the branch's control code
                edits.append((slot, nop, nop.lo, (nop.hi & isa.BODY_MASK_HI) | (br.hi & ~isa.BODY_MASK_HI), ""))
            elif ins.base == "STS":
                hi = isa.with_stall(ins.hi, 1)
                if ins is stores[0]:
                    for sb in sorted(inherited):
                        hi = isa.with_wait(hi, sb)
                edits.append(if_converted(slot, ins, guard, hi))
            else:
                edits.append((slot, ins, ins.lo, ins.hi, ins.predicate))
        return edits, StoresReport(stores=len(stores), at=slots[0], ffmas=need, spacing=spacing)
    return [], StoresReport(why="no guarded block of shared stores after a run of FFMAs in the main loop")
