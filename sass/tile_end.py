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

Before the schedule, free_bunch may give loads of the window new registers (session 21): ptxas hands the last
slice's fragment loads the registers of fragments the FFMAs just above still read (`FFMA R187, R11, R4, R51` over
`LDS.128 R48`), so those loads cannot move up.  Where only that load's value reaches its readers, the load and the
reads move to a quad no instruction of the kernel names (the same banks: quads start at multiples of 4), the
register count rising within the blocks an SM it had; bank_pass keeps the renaming only where the window then
issues in fewer cycles (wide-128x256: five loads, 230 -> 250 registers, the window 61 -> 54 cycles).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..codegen.hardware import REGISTERS_PER_SM
from . import isa
from .disasm import Instruction, SassFunction
from .fields import locate, registers_of, renamed_operand
from .preload import passes
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
    why: str = ""  # why not, where not
    renamed: Dict[int, int] = dataclasses.field(default_factory=dict)  # free_bunch's {new register: old}
    registers: int = 0  # the kernel's register count after the renaming (0: unchanged)

    def to_dict(self) -> dict:
        if not self.loads:
            return {"bunch_spread": 0, "why_not": self.why}
        out = {"bunch_spread": self.loads, "at": f"{self.at:04x}", "window": self.window, "cycles": list(self.cycles)}
        return {**out, "renamed": self.renamed, "registers": self.registers} if self.renamed else out


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


def _tile_end(loop: Sequence[Instruction]) -> Optional[Tuple[int, int]]:
    """(index of the bunch's first load, index of the guarded branch over the shared stores) in the loop, or None."""
    for i, br in enumerate(loop):
        if (br.base != "BRA" or isa.guard_of(br.predicate) is None or br.branch_target() is None
                or i + 1 >= len(loop) or loop[i + 1].base != "STS"):
            continue
        first = _bunch(loop, i)
        if i - first >= 2:
            return first, i
    return None


# ---- freeing the bunch's registers --------------------------------------------------------------------------
# ptxas gives the last slice's fragment loads registers that the FFMAs just above them still read: a bunched load
# cannot move above an FFMA that reads the old value of its destination.  Where the load's value has no other
# definition reaching its readers (the FFMAs of the last slice, after the barrier), its destination quad and
# those reads move to a quad no instruction of the function names, above ptxas's registers: the register count
# rises, never past what keeps the blocks an SM the register file holds (64 K registers, a thread's count
# allocated in eights).  The new quad has the old one's banks (both start at a multiple of 4), so the FFMAs'
# register banks and reuse stay as the bank pass left them.

def blocks_by_registers(registers: int, threads: int) -> int:
    """Blocks of `threads` an SM's register file holds at `registers` a thread."""
    return REGISTERS_PER_SM // (-(-registers // 8) * 8 * threads)


def operand_text(ins: Instruction, operands: Sequence[str]) -> str:
    """The instruction's text (as nvdisasm prints it, without the predicate) with these operands."""
    return f"{ins.opcode} {', '.join(operands)}" if operands else ins.opcode


def _readers(cfg: Cfg, k: int, reg: int) -> Optional[List[int]]:
    """Indices of the instructions that read `reg` as instruction k wrote it (walking forward until each path
    writes it again); None where one of them can also be reached by another write of it, or by none."""
    found, stack, seen = [], list(cfg.succ[k]), set()
    while stack:
        j = stack.pop()
        if j in seen:
            continue
        seen.add(j)
        if reg in cfg.reads[j]:
            found.append(j)
        if reg in cfg.writes[j]:
            continue
        stack.extend(cfg.succ[j])
    for j in found:  # every path into a reader meets k before any other write of reg
        back, seen = list(cfg.pred[j]), set()
        while back:
            m = back.pop()
            if m in seen or m == k:
                continue
            seen.add(m)
            if reg in cfg.writes[m] or not cfg.pred[m]:
                return None
            back.extend(cfg.pred[m])
    return sorted(found)


def _renamed(ins: Instruction, old: Sequence[int], new: int, written: bool) -> Optional[Instruction]:
    """`ins` with its fields naming registers of `old` (its written field where `written`, else its read ones)
    moved to new + (r - old[0]); None where a field names some of them and others."""
    lo, hi, ops = ins.lo, ins.hi, list(ins.operands)
    if operand_text(ins, ins.operands) != ins.text:
        return None
    for f in locate(ins):
        regs = set(f.registers())
        if f.written != written or not regs & set(old):
            continue
        if not regs <= set(old):
            return None
        lo, hi = isa.set_bits(lo, hi, f.bit, new + f.reg - old[0])
        ops[f.operand] = renamed_operand(ops[f.operand], lambda r: new + r - old[0] if r in old else r)
    return dataclasses.replace(ins, lo=lo, hi=hi, operands=tuple(ops), text=operand_text(ins, ops))


def free_bunch(func: SassFunction, registers: int, threads: int):
    """([(slot, renamed instruction, lo, hi, predicate)], the register count they need, {new register: old}): the
    tile-end window's loads whose destination an FFMA above them in the window still reads, each moved to a free
    quad with its readers (the section's comment above); ([], registers, {}) where none can be."""
    loop = func.loop_instructions()
    found = _tile_end(loop)
    if not found or not threads:
        return [], registers, {}
    first, i = found
    start = _window_start(loop, first, i - first, set(func.branch_sources()))
    at = {x.offset: n for n, x in enumerate(func.instructions)}
    cfg = Cfg(func.instructions, func.labels)
    used = set().union(*cfg.reads, *cfg.writes)
    changed, count, renamed = {}, registers, {}  # offset -> the instruction with the renames so far
    for ld in (x for x in loop[start:i] if x.base == "LDS"):
        dest = sorted(registers_of(locate(ld), True))
        width = len(dest)
        if width not in (1, 2, 4) or dest != list(range(dest[0], dest[0] + width)):
            continue
        above = [x for x in loop[start:loop.index(ld)] if x.base == "FFMA"]
        if not any(registers_of(locate(x), False) & set(dest) for x in above):
            continue
        new = next((q for q in range(-(-max(used) // width) * width, 256 - width, width)
                    if not used & set(range(q, q + width))), None)
        need = None if new is None else new + width + isa.RESERVED_REGISTERS
        if need is None or need > 255 or blocks_by_registers(need, threads) < blocks_by_registers(registers, threads):
            break
        k = at[ld.offset]
        readers = set()
        for reg in dest:
            got = _readers(cfg, k, reg)
            if got is None:
                readers = None
                break
            readers.update(got)
        if readers is None:
            continue
        now = [changed.get(x.offset, x) for x in [ld] + [func.instructions[j] for j in sorted(readers)]]
        moved = [_renamed(now[0], dest, new, True)] + [_renamed(x, dest, new, False) for x in now[1:]]
        if any(m is None for m in moved):
            continue
        changed.update((m.offset, m) for m in moved)
        used |= set(range(new, new + width))
        count = max(count, need)
        renamed.update((new + n, r) for n, r in enumerate(dest))
    return [(off, m, m.lo, m.hi, m.predicate) for off, m in sorted(changed.items())], count, renamed


def plan(func: SassFunction) -> Tuple[List[Tuple[int, Instruction, int, int, str]], TileEndReport]:
    """([(slot offset, instruction moved there, lo, hi, predicate text)], report) for `func`'s main loop."""
    loop = func.loop_instructions()
    landings = set(func.branch_sources())
    found = _tile_end(loop)
    if found:
        first, i = found
        br = loop[i]
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
