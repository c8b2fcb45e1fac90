"""The tile-end step of the SASS pass: the last slice's bunched fragment loads spread among the FFMAs before them.

At the end of a k-tile the two-stage loop (codegen/program.py) loads the last slice's fragments, then stores the
next tile's registers to shared memory behind `@!has_next bra` and meets the barrier.  ptxas leaves the last of
those loads as a block of its own right before the branch: 6-12 LDS.128 four cycles apart (S04) with nothing
between, while the loads above it sit one every four issue slots among the FFMAs.  That block is where the
stall samples of wide-128x256 put the "wait" that is left (docs/shapes.md, session 19).

What it does, in the main loop, where it finds `@P BRA` over a run of STS with a run of two or more unpredicated
LDS right before it (the bunch):
  1. the window: the bunch and the FFMAs and unpredicated LDS above it, up to SPACING FFMAs a load and two loads'
     more (or the first other instruction, or a branch landing);
  2. a list schedule of the window into the same slots, filled from its end: the FFMAs keep their order, and a
     load goes as late as `spacing` FFMAs after it allow, where it passes (preload.passes) every FFMA it moves
     over - none reads or writes its destination, writes a register it reads, or waits on a scoreboard it sets -
     and two loads swap only where passes holds both ways and both set a write scoreboard;
  3. controls: the FFMAs keep theirs (reuse flags included); a load's stall makes the four cycles ptxas keeps
     between two loads where fewer FFMAs follow it; two dependent FFMAs never come closer than they were or
     than FIXED_LATENCY cycles;
  4. of the schedules with spacing 3, 2 and 1, the one whose window issues in the fewest cycles (the stall counts'
     sum), if fewer than ptxas's;
  5. the rewritten cubin's disassembly must print, at every slot, the instruction moved there (bank_pass writes
     this step's and the preload step's edits together: preload.write_edits).
A loop without the pattern, or where a check fails, is left as it was, with the reason in the report.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from . import isa
from .disasm import Instruction, SassFunction
from .fields import locate, registers_of
from .preload import passes

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
    why: str = ""  # why not, where not

    def to_dict(self) -> dict:
        return ({"bunch_spread": self.loads, "at": f"{self.at:04x}", "window": self.window,
                 "cycles": list(self.cycles)} if self.loads else {"bunch_spread": 0, "why_not": self.why})


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


def schedule(window: Sequence[Instruction], spacing: int = SPACING) -> List[Instruction]:
    """The window's instructions in their new order (module docstring, step 2), filled from the window's end: a
    load as late as `spacing` FFMAs after it allow, so that the loads ptxas spaced stay about where they were and
    the bunch spreads upwards as far as the FFMAs let it pass.  The FFMAs keep their order; two loads may pass
    each other where preload.passes holds both ways (shared-memory reads into distinct registers) and both set a
    write scoreboard."""
    loads = [x for x in window if x.base == "LDS"]
    ffmas = [x for x in window if x.base == "FFMA"]
    pos = {x.offset: n for n, x in enumerate(window)}
    # from the end: a load may be placed once every FFMA below it that it cannot pass is placed (once the next
    # FFMA to place is above all of them); an FFMA once every load below it that cannot pass it is placed
    lowest_blocker = [min((f for f, x in enumerate(ffmas) if pos[x.offset] > pos[ld.offset] and not passes(ld, x)),
                          default=len(ffmas)) for ld in loads]
    # two loads keep their order where one touches the other's registers or waits on a scoreboard it sets, or
    # where one sets no write scoreboard (ptxas counts on the memory pipe's order: a later load's wait covers it)
    def swappable(a: Instruction, b: Instruction) -> bool:
        unscored = isa.NO_SCOREBOARD in (isa.write_scoreboard(a.hi), isa.write_scoreboard(b.hi))
        return not unscored and passes(a, b) and passes(b, a)
    after_it = [{m for m, other in enumerate(loads) if pos[other.offset] > pos[ld.offset] and not swappable(ld, other)}
                for ld in loads]
    blocking = [{n for n, ld in enumerate(loads) if pos[ld.offset] > pos[x.offset] and not passes(ld, x)}
                for x in ffmas]
    out: List[Instruction] = []
    left = set(range(len(loads)))
    fi = len(ffmas) - 1  # the next FFMA to place, from the end
    since = 0  # FFMAs placed below the last load placed
    while left or fi >= 0:
        ready = [n for n in left if fi < lowest_blocker[n] and not after_it[n] & left]
        ffma_ready = fi >= 0 and not blocking[fi] & left
        if ready and (since >= spacing or not ffma_ready):
            n = max(ready, key=lambda n: pos[loads[n].offset])  # the latest of them, as ptxas had it
            out.append(loads[n])
            left.discard(n)
            since = 0
        else:  # an FFMA that is not ready waits for a load below it, and that load is ready
            out.append(ffmas[fi])
            fi, since = fi - 1, since + 1
    return out[::-1]


def _controls(order: Sequence[Instruction]) -> List[int]:
    """The high words of `order`: FFMAs as they were; a load's stall made up to LOAD_GAP cycles before the next
    load where fewer FFMAs follow it."""
    his = [x.hi for x in order]
    for n, x in enumerate(order):
        if x.base != "LDS":
            continue
        nxt = next((m for m in range(n + 1, len(order)) if order[m].base == "LDS"), None)
        between = sum(isa.stall(his[m]) for m in range(n + 1, nxt)) if nxt is not None else LOAD_GAP
        his[n] = isa.with_stall(x.hi, max(1, LOAD_GAP - between))
    return his


def _closer_ffmas(before: Sequence[Instruction], after: Sequence[Instruction], his_after: Sequence[int],
                  exit_stall: int) -> Optional[str]:
    """Why not, where an FFMA's reader in the window (or past its end, counting the branch's stall) now issues
    sooner after it than both it did and FIXED_LATENCY."""
    def cycles(order, his):
        at, t = {}, 0
        for x, hi in zip(order, his):
            at[x.offset] = t
            t += isa.stall(hi)
        return at, t
    t0, end0 = cycles(before, [x.hi for x in before])
    t1, end1 = cycles(after, his_after)
    for x in before:
        if x.base != "FFMA":
            continue
        written = registers_of(locate(x), True)
        for y in before:
            if t0[y.offset] > t0[x.offset] and registers_of(locate(y), False) & written:
                new, old = t1[y.offset] - t1[x.offset], t0[y.offset] - t0[x.offset]
                if new < min(old, FIXED_LATENCY):
                    return f"/*{y.offset:04x}*/ would issue {new} cycles after /*{x.offset:04x}*/, which it reads"
        new, old = end1 - t1[x.offset] + exit_stall, end0 - t0[x.offset] + exit_stall
        if new < min(old, FIXED_LATENCY):
            return f"/*{x.offset:04x}*/ would be {new} cycles from the window's end"
    return None


def plan(func: SassFunction) -> Tuple[List[Tuple[int, Instruction, int, int, str]], TileEndReport]:
    """([(slot offset, instruction moved there, lo, hi, predicate text)], report) for `func`'s main loop."""
    loop = func.loop_instructions()
    landings = set(func.branch_sources())
    for i, br in enumerate(loop):
        if (br.base != "BRA" or isa.guard_of(br.predicate) is None or br.branch_target() is None
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
        before = sum(isa.stall(x.hi) for x in window)
        best = None  # (cycles, order, controls): the window's issue cycles, fewest first
        for spacing in range(SPACING, 0, -1):
            order = schedule(window, spacing)
            his = _controls(order)
            why = _closer_ffmas(window, order, his, isa.stall(br.hi))
            cycles = sum(isa.stall(h) for h in his)
            if not why and (best is None or cycles < best[0]):
                best = (cycles, order, his)
        if best is None or best[0] >= before:
            report.why = why or f"no schedule of the window issues in fewer than ptxas's {before} cycles"
            return [], report
        order, his = best[1], best[2]
        edits = [(slot.offset, ins, ins.lo, hi, ins.predicate)
                 for slot, ins, hi in zip(window, order, his) if (slot.offset, hi) != (ins.offset, ins.hi)]
        if not edits:
            report.why = "no load of the bunch can move"
            return [], report
        report.at, report.window, report.cycles = window[0].offset, len(window), (before, best[0])
        report.loads = sum(1 for slot, ins in zip(window, order) if ins.base == "LDS" and slot.offset != ins.offset)
        return edits, report
    return [], TileEndReport(why="no run of loads before a guarded branch over shared stores in the main loop")
