"""The tile-end step of the SASS pass: the last slice's bunched fragment loads, and the next tile's shared stores
after them, spread among the FFMAs before them.

At the end of a k-tile the two-stage loop (codegen/program.py) loads the last slice's fragments, then stores the
next tile's registers to shared memory behind `@!has_next bra` and meets the barrier.  ptxas leaves the last of
those loads as a block of its own right before the branch: 6-12 LDS.128 four cycles apart (S04) with nothing
between, while the loads above it sit one every four issue slots among the FFMAs; the stores after the branch are
another such block (6-9 STS at S04).  Those blocks and the loop's head are where the stall samples of
wide-128x256 put the "wait" that is left (docs/shapes.md, sessions 19 and 20).

What it does, in the main loop, where it finds `@P BRA L` over a run of STS with a run of two or more unpredicated
LDS right before it (the bunch):
  1. the window: the bunch and the FFMAs and unpredicated LDS above it, up to SPACING FFMAs a load and two loads'
     more (or the first other instruction, or a branch landing);
  2. the stores (`plan(stores=True)`): the STS the branch skips and the FFMAs from L to the next other instruction
     join the region, where the stores can be if-converted (each takes the branch's guard negated, the branch
     never branches, `@!PT BRA`, its control code and waits kept at its slot): no other branch lands among them,
     they share one read scoreboard and only the first waits (on the global loads' data scoreboard d), they
     address the other stage of the two-stage buffer than the window's loads (another uniform register), and
     every path from a store to an instruction that overwrites a register it reads passes a wait on d - so the
     stores can release their reads on d instead, a scoreboard the branch does not wait on;
  3. a list schedule of the region into the same slots, filled from its end: the FFMAs keep their order, the
     branch its slot, the loads stay above it; a memory instruction goes as late as `spacing` FFMAs after it
     allow, loads first, where it passes (preload.passes) every FFMA it moves over - none reads or writes its
     destination, writes a register it reads, or waits on a scoreboard it sets; two loads swap only where that
     holds both ways and both set a write scoreboard, the stores keep their order, a load and a store swap where
     it holds both ways;
  4. controls: the FFMAs keep theirs (reuse flags included); a memory instruction's stall makes the four cycles
     ptxas keeps between two of them where fewer FFMAs follow it; two dependent FFMAs never come closer than they
     were or than FIXED_LATENCY cycles, nor an FFMA and its reader past the region;
  5. of the schedules with spacing 3, 2 and 1, with and without the stores, the one whose region issues in the
     fewest cycles (the stall counts' sum), if fewer than ptxas's;
  6. the rewritten cubin's disassembly must print, at every slot, the instruction moved there (bank_pass writes
     this step's and the preload step's edits together: preload.write_edits).
A loop without the pattern, or where a check fails, is left as it was, with the reason in the report.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from . import isa
from .disasm import Instruction, SassFunction
from .fields import locate, registers_of
from .preload import _guard, passes
from .reorder import Cfg

SPACING = 3  # FFMAs between two loads: an LDS.128 every four issue slots, as ptxas spaces them
LOAD_GAP = 4  # cycles ptxas keeps between two LDS of a warp
FIXED_LATENCY = 6  # cycles: a dependent FFMA is never moved closer than this (the FFMA's latency is 4), or than it was
MAX_WINDOW = 128


@dataclass
class TileEndReport:
    loads: int = 0  # loads of the bunch spread (0: left as ptxas wrote them)
    at: int = -1  # offset of the window's first slot
    window: int = 0  # instructions in the window
    cycles: Tuple[int, int] = (0, 0)  # the window's issue cycles (its stall counts' sum), ptxas's and the step's
    stores: int = 0  # shared stores if-converted and moved among the FFMAs above the branch
    why: str = ""  # why not, where not (with loads spread: why the stores were left)

    def to_dict(self) -> dict:
        if not self.loads:
            return {"bunch_spread": 0, "why_not": self.why}
        return {"bunch_spread": self.loads, "at": f"{self.at:04x}", "window": self.window, "cycles": list(self.cycles),
                "stores_moved": self.stores, **({"stores_left": self.why} if self.why else {})}


def _bunch(loop: Sequence[Instruction], i: int) -> int:
    """Index of the first LDS of the unpredicated run that ends right before loop[i]."""
    j = i
    while j > 0 and loop[j - 1].base == "LDS" and not loop[j - 1].predicate:
        j -= 1
    return j


def _window_start(loop: Sequence[Instruction], first: int, bunch: int, landings) -> int:
    """Walk up from the bunch over FFMAs and unpredicated LDS until SPACING FFMAs a load and two loads' more (room
    for the loads the FFMAs above block); a branch may land only at the window's first instruction."""
    start, loads, ffmas = first, bunch, 0
    if loop[first].offset in landings:
        return first
    while start > 0 and ffmas < SPACING * (loads + 2) and first + bunch - start < MAX_WINDOW:
        ins = loop[start - 1]
        if ins.base == "FFMA":
            ffmas += 1
        elif ins.base == "LDS" and not ins.predicate:
            loads += 1
        else:
            break
        start -= 1
        if ins.offset in landings:
            break
    return start


def _swappable(a: Instruction, b: Instruction) -> bool:
    """May two memory instructions of the window pass each other?  Where preload.passes holds both ways, and, for
    two loads, where both set a write scoreboard (a load without one counts on the memory pipe's order: a later
    load's wait covers it).  A load and a store touch different stages of the two-stage buffer (`plan` checks that
    they address it through different uniform registers)."""
    if a.base == b.base == "STS":
        return False  # the stores keep their order: the first carries the wait for the global loads' data
    if a.base == b.base == "LDS" and isa.NO_SCOREBOARD in (isa.write_scoreboard(a.hi), isa.write_scoreboard(b.hi)):
        return False
    return passes(a, b) and passes(b, a)


def schedule(window: Sequence[Instruction], spacing: int = SPACING, below: int = 0) -> List[Instruction]:
    """The window's instructions in their new order (module docstring, step 2), filled from the window's end: a
    memory instruction (LDS, STS) as late as `spacing` FFMAs after it allow, so that those ptxas spaced stay about
    where they were and the bunch spreads upwards as far as the FFMAs let it pass.  The FFMAs keep their order.
    `below`: the last `below` places lie below the never-taken branch (stores step), where no load may go."""
    mems = [x for x in window if x.base in ("LDS", "STS")]
    ffmas = [x for x in window if x.base == "FFMA"]
    pos = {x.offset: n for n, x in enumerate(window)}
    # from the end: a memory instruction may be placed once every FFMA below it that it cannot pass is placed
    # (once the next FFMA to place is above all of them); an FFMA once every memory instruction below it that
    # cannot pass it is placed
    lowest_blocker = [min((f for f, x in enumerate(ffmas) if pos[x.offset] > pos[m.offset] and not passes(m, x)),
                          default=len(ffmas)) for m in mems]
    after_it = [{j for j, other in enumerate(mems) if pos[other.offset] > pos[m.offset] and not _swappable(m, other)}
                for m in mems]
    blocking = [{n for n, m in enumerate(mems) if pos[m.offset] > pos[x.offset] and not passes(m, x)}
                for x in ffmas]
    out: List[Instruction] = []
    left = set(range(len(mems)))
    fi = len(ffmas) - 1  # the next FFMA to place, from the end
    since = 0  # FFMAs placed below the last memory instruction placed
    while left or fi >= 0:
        ready = [n for n in left if fi < lowest_blocker[n] and not after_it[n] & left
                 and (mems[n].base != "LDS" or len(out) >= below)]
        ffma_ready = fi >= 0 and not blocking[fi] & left
        if ready and (since >= spacing or not ffma_ready):
            if not ffma_ready and fi >= 0:  # the next FFMA waits for these: place one of them, no other
                ready = [n for n in ready if n in blocking[fi]] or ready
            # a load first (the FFMAs above it may block it; a store passes them), else the latest, as ptxas had it
            n = max(ready, key=lambda n: (mems[n].base == "LDS", pos[mems[n].offset]))
            out.append(mems[n])
            left.discard(n)
            since = 0
        elif fi >= 0:  # an FFMA that is not ready waits for a memory instruction below it, and that one is ready
            out.append(ffmas[fi])
            fi, since = fi - 1, since + 1
        else:
            raise ValueError("no memory instruction is ready and no FFMA is left")  # plan catches it: left as it was
    return out[::-1]


def _controls(order: Sequence[Instruction]) -> List[int]:
    """The high words of `order`: FFMAs (and the branch) as they were; a memory instruction's stall made up to
    LOAD_GAP cycles before the next one where fewer FFMAs follow it."""
    his = [x.hi for x in order]
    for n, x in enumerate(order):
        if x.base not in ("LDS", "STS"):
            continue
        nxt = next((m for m in range(n + 1, len(order)) if order[m].base in ("LDS", "STS")), None)
        between = sum(isa.stall(his[m]) for m in range(n + 1, nxt)) if nxt is not None else LOAD_GAP
        his[n] = isa.with_stall(x.hi, max(1, LOAD_GAP - between))
    return his


def _closer_ffmas(before: Sequence[Instruction], after: Sequence[Instruction], his_after: Sequence[int],
                  exit_stall: int, tail: Sequence[Instruction] = ()) -> Optional[str]:
    """Why not, where an FFMA's reader in the window, or past its end, now issues sooner after it than both it did
    and FIXED_LATENCY.  Past the end: the instructions of `tail` (straight on from the window) where given, else
    any reader, `exit_stall` cycles on (the branch's stall)."""
    def cycles(order, his):
        at, t = {}, 0
        for x, hi in zip(order, his):
            at[x.offset] = t
            t += isa.stall(hi)
        return at, t
    t0, end0 = cycles(before, [x.hi for x in before])
    t1, end1 = cycles(after, his_after)
    tail_at, t = [], 0
    for y in tail:
        tail_at.append((y, t))
        t += isa.stall(y.hi)
    for x in before:
        if x.base != "FFMA":
            continue
        written = registers_of(locate(x), True)
        for y in before:
            if t0[y.offset] > t0[x.offset] and registers_of(locate(y), False) & written:
                new, old = t1[y.offset] - t1[x.offset], t0[y.offset] - t0[x.offset]
                if new < min(old, FIXED_LATENCY):
                    return f"/*{y.offset:04x}*/ would issue {new} cycles after /*{x.offset:04x}*/, which it reads"
        ends = ([(c, y) for y, c in tail_at if registers_of(locate(y), False) & written] if tail
                else [(exit_stall, None)])
        for c, y in ends:
            new, old = end1 - t1[x.offset] + c, end0 - t0[x.offset] + c
            if new < min(old, FIXED_LATENCY):
                return f"/*{x.offset:04x}*/ would be {new} cycles from " + (
                    f"/*{y.offset:04x}*/, which reads it" if y is not None else "the window's end")
    return None


def _uniform_base(ins: Instruction) -> Optional[str]:
    """The uniform register in a shared-memory address ("[R179+UR12+0x210]" -> "UR12")."""
    m = re.search(r"\[[^\]]*\b(UR\d+)\b", ins.text)
    return m.group(1) if m else None


def _stores(func: SassFunction, loop: Sequence[Instruction], i: int, window: Sequence[Instruction],
            sources: Dict[int, List[int]]):
    """(the stores with their new controls, the FFMAs after them, why not): the shared stores the branch at
    loop[i] skips, to be if-converted and moved above it (module docstring, the stores)."""
    br, j = loop[i], i + 1
    stores = []
    while j < len(loop) and loop[j].base == "STS":
        stores.append(loop[j])
        j += 1
    if j >= len(loop) or func.labels.get(br.branch_target()) != loop[j].offset:
        return None, None, "the branch does not land right after the stores"
    if sources.get(loop[j].offset, []) != [br.offset] or any(x.offset in sources for x in stores):
        return None, None, "another branch lands among the stores"
    after = []
    while j < len(loop) and loop[j].base == "FFMA":
        after.append(loop[j])
        j += 1
    first = stores[0]
    waits = isa.wait_mask(first.hi)
    reads = {isa.read_scoreboard(x.hi) for x in stores}
    if (any(x.predicate or isa.write_scoreboard(x.hi) != isa.NO_SCOREBOARD for x in stores) or len(reads) != 1
            or isa.NO_SCOREBOARD in reads or bin(waits).count("1") != 1
            or any(isa.wait_mask(x.hi) for x in stores[1:])):
        return None, None, "the stores' scoreboards are not one read scoreboard and one wait on the first"
    d = waits.bit_length() - 1  # the global loads' data: the stores release their reads on it from now on
    if d in reads:
        return None, None, "the stores already release their reads on the scoreboard they wait on"
    bases = {_uniform_base(x) for x in stores}
    if len(bases) != 1 or None in bases or any(_uniform_base(x) in bases | {None} for x in window if x.base == "LDS"):
        return None, None, "the stores and the loads do not address two stages through two uniform registers"
    cfg = Cfg(func.instructions, func.labels)
    index = {x.offset: k for k, x in enumerate(func.instructions)}
    for st in stores:  # every path from a store to a writer of a register it reads passes a wait on d
        k = index[st.offset]
        stack, seen = list(cfg.succ[k]), set()
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if isa.wait_mask(func.instructions[n].hi) >> d & 1:
                continue
            if cfg.writes[n] & cfg.reads[k]:
                return None, None, (f"/*{func.instructions[n].offset:04x}*/ overwrites what /*{st.offset:04x}*/ "
                                    f"reads with no wait on scoreboard {d} between")
            stack.extend(cfg.succ[n])
    moved = [dataclasses.replace(x, hi=isa.with_read_scoreboard(x.hi, d)) for x in stores]
    return moved, after, ""


def _best(region: Sequence[Instruction], items: Sequence[Instruction], branch_at: int, below: int, exit_stall: int,
          tail: Sequence[Instruction] = ()):
    """((cycles, order, controls), why not) of the best schedule of `items` into `region`'s slots, the branch kept
    at index `branch_at` (or none: -1), over spacing 3, 2, 1; `exit_stall` and `tail` as _closer_ffmas takes them."""
    best, why = None, ""
    for spacing in range(SPACING, 0, -1):
        try:
            order = schedule(items, spacing, below)
        except ValueError as e:
            why = str(e)
            continue
        if branch_at >= 0:
            order = order[:branch_at] + [region[branch_at]] + order[branch_at:]
        his = _controls(order)
        why = _closer_ffmas(region, order, his, exit_stall, tail) or ""
        if not why and (best is None or sum(isa.stall(h) for h in his) < best[0]):
            best = (sum(isa.stall(h) for h in his), order, his)
    return (best, "") if best else (None, why)


def plan(func: SassFunction, stores: bool = True) -> Tuple[List[Tuple[int, Instruction, int, int, str]], TileEndReport]:
    """([(slot offset, instruction moved there, lo, hi, predicate text)], report) for `func`'s main loop; `stores`:
    also the shared stores (module docstring), where that issues the region in fewer cycles."""
    loop = func.loop_instructions()
    sources: Dict[int, List[int]] = {}
    for ins in func.instructions:
        t = ins.branch_target()
        if t in func.labels:
            sources.setdefault(func.labels[t], []).append(ins.offset)
    landings = set(sources)
    for i, br in enumerate(loop):
        guard = _guard(br.predicate)
        if (br.base != "BRA" or guard is None or br.branch_target() is None
                or i + 1 >= len(loop) or loop[i + 1].base != "STS"):
            continue
        first = _bunch(loop, i)
        if i - first < 2:
            continue
        report = TileEndReport(at=loop[first].offset)
        inside = [x.offset for x in loop[first + 1:i] if x.offset in landings]
        if inside:
            report.why = f"a branch lands at /*{inside[0]:04x}*/ in the bunch"
            return [], report
        start = _window_start(loop, first, i - first, landings)
        window = loop[start:i]
        # the loads alone, above the branch
        before = sum(isa.stall(x.hi) for x in window)
        loads_only, why = _best(window, window, -1, 0, isa.stall(br.hi))
        region, choice = window, loads_only
        # and with the stores if-converted and moved among them, the branch never taken
        moved, after, why_not_stores = _stores(func, loop, i, window, sources) if stores else (None, None, "off")
        if moved:
            end = i + 1 + len(moved) + len(after)
            region = list(window) + [br] + list(loop[i + 1:end])
            items = list(window) + moved + after
            # straight on past the region (the barrier, the next FFMAs): where its FFMAs' readers are
            with_stores, why_s = _best(region, items, len(window), len(moved) + len(after), 0, loop[end:end + 12])
            plain = (sum(isa.stall(x.hi) for x in region[len(window):]) + loads_only[0]) if loads_only else None
            if with_stores and (plain is None or with_stores[0] < plain):
                choice, before = with_stores, sum(isa.stall(x.hi) for x in region)
            else:
                region, why_not_stores = window, why_s or "no fewer cycles than the loads alone"
        if choice is None or choice[0] >= before:
            report.why = why or f"no schedule of the window issues in fewer than ptxas's {before} cycles"
            return [], report
        order, his = choice[1], choice[2]
        index, neg = guard
        converted = region is not window
        edits = []
        bytes_at = {x.offset: (x.lo, x.hi) for x in region}  # as ptxas wrote them (a moved store's hi is new)
        for slot, ins, hi in zip(region, order, his):
            lo, pred = ins.lo, ins.predicate
            if converted and ins.base == "STS":  # the branch's guard, negated
                lo, pred = isa.with_guard(ins.lo, index, not neg), f"@{'' if neg else '!'}P{index}"
            elif converted and ins is br:  # never branches; its control code (and waits) kept
                lo, pred = isa.with_guard(br.lo, isa.GUARD_PT, True), "@!PT"
            if (lo, hi) != bytes_at[slot.offset]:
                edits.append((slot.offset, ins, lo, hi, pred))
        if not edits:
            report.why = "no load of the bunch can move"
            return [], report
        report.at, report.window, report.cycles = region[0].offset, len(region), (before, choice[0])
        report.loads = sum(1 for slot, ins in zip(region, order) if ins.base == "LDS" and slot.offset != ins.offset)
        report.stores = len(moved) if converted else 0
        report.why = "" if converted else f"stores left: {why_not_stores}"
        return edits, report
    return [], TileEndReport(why="no run of loads before a guarded branch over shared stores in the main loop")
