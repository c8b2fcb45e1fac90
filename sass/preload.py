"""The preload step of the SASS pass: the next tile's first fragment loads spread among the FFMAs after them.

The two-stage loop (codegen/program.py, crosses_tiles) loads slice 0 of the next tile right after the barrier
that ends a k-tile, behind `@!has_next bra`.  ptxas keeps those loads as their own block: six LDS.128 four cycles
apart (S04) with no other instruction between, then the last slice's FFMAs.  The warp issues one instruction
every four cycles there, and every warp of the block is at that point together, just out of the barrier.
Nsight Compute put "wait" at 4.6% of the samples of wide-128x256 on 512x8192x8192 against cuBLAS's 0.3%
(docs/data/session19/b_1abb0b5); session 19 measured the step below 0.3-0.7% faster on every 128x256 shape
(lab/experiments/spread_preload.py; docs/shapes.md).

What it does, in the main loop, where it finds `@P BRA L` over a run of two or more unpredicated LDS with L
the first of a run of FFMAs:
  1. if-conversion: each load takes the branch's predicate, negated (`@!P LDS`), and the branch never
     branches (`@!PT BRA`, its control code kept; P is read at issue, and nothing between writes it);
  2. load j (j >= 1) moves down to follow FFMA 3j of the run, so the loads stay four issue slots apart (S01
     each: the three FFMAs fill the cycles ptxas stalled), where none of the FFMAs it passes reads or writes
     its destination, writes a register it reads, or waits on a scoreboard it sets, and no branch but the
     converted one lands between the block's start and the last slot used;
  3. the rewritten cubin's disassembly must print, at every slot, the instruction moved there with the
     predicate given.
The FFMAs keep their order, controls and reuse flags (ptxas keeps an FFMA's reuse flag across an LDS between
two FFMAs, and the loads read their address through the memory pipe).  A loop without the pattern, or
where a check fails, is left as it was, with the reason in the report.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from . import isa
from .cubin import text_section
from .disasm import Instruction, SassFunction, disassemble, parse
from .fields import locate, put_instruction, registers_of

SPACING = 3  # FFMAs between two spread loads: an LDS.128 every four issue slots, as ptxas spaces them


@dataclass
class PreloadReport:
    loads: int = 0  # loads spread (0: left as ptxas wrote them)
    at: int = -1  # offset of the first one before the step
    ffmas: int = 0  # FFMAs they were spread over
    why: str = ""  # why not, where not

    def to_dict(self) -> dict:
        return ({"loads_spread": self.loads, "at": f"{self.at:04x}", "over_ffmas": self.ffmas} if self.loads
                else {"loads_spread": 0, "why_not": self.why})


def passes(load: Instruction, ffma: Instruction) -> bool:
    """May `load` move from before `ffma` to after it (or back)?  Not where the FFMA reads or writes what the
    load writes, writes what it reads, or waits on a scoreboard the load sets."""
    lf, ff = locate(load), locate(ffma)
    rd, wr = registers_of(lf, False), registers_of(lf, True)
    fr, fw = registers_of(ff, False), registers_of(ff, True)
    sbs = {isa.write_scoreboard(load.hi), isa.read_scoreboard(load.hi)} - {isa.NO_SCOREBOARD}
    return not (wr & (fr | fw) or rd & fw or any(isa.wait_mask(ffma.hi) >> s & 1 for s in sbs))


def guarded_blocks(func: SassFunction, loop: Sequence[Instruction], base: str):
    """(i, branch, its guard, the block, j) for each `@P BRA L` at loop[i] over a run of two or more unpredicated
    `base` instructions (the block, loop[i+1:j]) where L is loop[j], the instruction right after the run: the two-stage
    loop's blocks that only some k-tiles run (the preload's loads, the next tile's stores)."""
    for i, br in enumerate(loop):
        target = br.branch_target()
        guard = isa.guard_of(br.predicate)
        if br.base != "BRA" or guard is None or target is None:
            continue
        j = i + 1
        while j < len(loop) and loop[j].base == base and not loop[j].predicate:
            j += 1
        if j - i - 1 >= 2 and j < len(loop) and func.labels.get(target) == loop[j].offset:
            yield i, br, guard, list(loop[i + 1:j]), j


def foreign_landing(landing, instrs: Sequence[Instruction], br: Instruction) -> Optional[int]:
    """The offset of the first of `instrs` where a branch other than `br` lands (func.branch_sources() as
    `landing`), else None: the instructions a step moves past must be entered from the top alone."""
    return next((x.offset for x in instrs if any(src != br.offset for src in landing.get(x.offset, []))), None)


def if_converted(slot: int, ins: Instruction, guard: Tuple[int, bool], hi: int):
    """The edit that puts `ins`, an instruction of a block the branch with `guard` (isa.guard_of) skipped, at `slot`
    under that guard negated, with control bits `hi`."""
    index, neg = guard
    return slot, ins, isa.with_guard(ins.lo, index, not neg), hi, f"@{'' if neg else '!'}P{index}"


def plan(func: SassFunction) -> Tuple[List[Tuple[int, Instruction, int, int, str]], PreloadReport]:
    """([(slot offset, instruction moved there, lo, hi, predicate text)], report) for `func`'s main loop."""
    loop = func.loop_instructions()
    landing = func.branch_sources()
    for i, br, guard, loads, j in guarded_blocks(func, loop, "LDS"):
        ffmas = []
        while j < len(loop) and loop[j].base == "FFMA":
            ffmas.append(loop[j])
            j += 1
        report = PreloadReport(at=loads[0].offset)
        used = SPACING * (len(loads) - 1) + 1  # FFMAs up to the last load's slot, and one after it
        if len(ffmas) < used:
            report.why = f"{len(ffmas)} FFMAs after {len(loads)} loads"
            return [], report
        span = loads + ffmas[:used]
        foreign = foreign_landing(landing, span, br)
        if foreign is not None:
            report.why = f"a branch lands at /*{foreign:04x}*/"
            return [], report
        for n, ld in enumerate(loads):
            for f in ffmas[:SPACING * n]:
                if not passes(ld, f):
                    report.why = f"/*{ld.offset:04x}*/ {ld.text} cannot pass /*{f.offset:04x}*/ {f.text}"
                    return [], report
        order: List[Instruction] = []
        for n, ld in enumerate(loads):
            order.append(ld)
            order.extend(ffmas[SPACING * n:SPACING * (n + 1)] if n < len(loads) - 1 else ffmas[SPACING * n:used])
        edits = [(br.offset, br, isa.with_guard(br.lo, isa.GUARD_PT, True), br.hi, "@!PT")]
        for slot, ins in zip((x.offset for x in span), order):
            if ins.base == "LDS":  # the branch's guard negated; S01: FFMAs follow
                edits.append(if_converted(slot, ins, guard, isa.with_stall(ins.hi, 1)))
            else:
                edits.append((slot, ins, ins.lo, ins.hi, ins.predicate))
        report.loads, report.ffmas = len(loads), used
        return edits, report
    return [], PreloadReport(why="no guarded block of loads before a run of FFMAs in the main loop")


def write_edits(cubin: bytes, name: str, edits) -> Tuple[bytes, SassFunction]:
    """(the cubin with each (slot, instruction, lo, hi, predicate text) of `edits` written into function `name`,
    that function as nvdisasm reads it back).  AssertionError if the disassembly does not print, at every slot,
    the instruction moved there with the predicate given."""
    data = bytearray(cubin)
    text_offset, _ = text_section(cubin, name)
    for slot, _, lo, hi, _ in edits:
        put_instruction(data, text_offset, slot, lo, hi)
    func = parse(disassemble(bytes(data)))[name]
    new = {i.offset: i for i in func.instructions}
    for slot, ins, lo, hi, pred in edits:
        got = new[slot]
        if (got.lo, got.hi) != (lo, hi) or (got.predicate, got.text) != (pred, ins.text):
            raise AssertionError(f"{name} /*{slot:04x}*/: wrote {pred} {ins.text!r}, nvdisasm reads "
                                 f"{got.predicate} {got.text!r}")
    return bytes(data), func
