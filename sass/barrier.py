"""The barrier step of the SASS pass: a k-tile's barrier moved up to the next tile's last shared store.

The two-stage loop (codegen/program.py) ends a k-tile with the next tile's stores to shared memory, the barrier,
then the last slice's FFMAs (their fragments are already in registers).  Where the stores are a branch's block,
ptxas keeps that order: NN's wide-128x256 loop has BAR.SYNC four FFMAs after its last STS.  Where it if-converts
the stores (TN's A^T tile: three predicated STS.128), it sinks the barrier below the whole last slice: 108 FFMAs
after the last STS, right before the next tile's first fragment loads.  A warp then reaches the barrier with
nothing left to issue, and every warp leaves it to the same loads at once.  Nsight Compute on the H100 saw TN's
whole-tile kernel stall at the barrier 9x as often as NN's (0.114 against 0.012 warps an issued instruction;
docs/layouts.md, 2026-11-25), 3.2% longer at 4096^3; on the H200 regtile's TN ran 1.0-1.8% behind its NN on every
aligned wide-128x256 shape of the suite (docs/data/session31/c_bd96dd5).

What it does, in the main loop, where BAR.SYNC follows a run of at least MIN_RUN unpredicated FFMAs that follows
an STS:
  1. the barrier goes to the slot after the STS and the run moves down one slot: the FFMAs only read and write
     registers, so crossing the barrier changes nothing another thread sees, and the stores stay before it;
  2. no branch may land inside the run or at the barrier (a branch landing at the run's first FFMA, over the
     stores, lands on the barrier instead and so still meets it);
  3. every instruction keeps its control code (stall, scoreboards, reuse flags), but the last FFMA above the
     stores, whose reuse flags are cleared (its operand's next reader is now behind the barrier, which ptxas and
     sass/banks.py never reuse across), and the run's last FFMA: the
     barrier's stall no longer separates the run from what follows it, so where an instruction after the old
     barrier reads an FFMA's result or writes its registers within FIXED_LATENCY cycles, that FFMA's last
     successor in the run stalls the difference (the run's RAW / WAR distances never shrink below
     min(before, FIXED_LATENCY); a branch that may be taken within that reach counts as a reader of everything);
  4. the rewritten cubin's disassembly must print, at every slot, the instruction moved there
     (preload.write_edits).
A loop without the pattern is left as it was, with the reason in the report.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Tuple

from . import isa
from .disasm import Instruction, SassFunction
from .fields import UnknownForm, locate, registers_of
from .reorder import placed
from .tile_end import FIXED_LATENCY  # cycles: an FFMA's result is read no sooner than this after it

MIN_RUN = 16  # FFMAs between the last STS and the barrier before the step moves it (NN's loops have 4)
HORIZON = 16  # instructions after the old barrier searched for readers / writers of the run's registers
MAX_STALL = 15  # the control code's stall field


@dataclass
class BarrierReport:
    ffmas: int = 0  # FFMAs the barrier moved above (0: left as ptxas placed it)
    at: int = -1  # offset of the barrier's new slot
    stall_added: int = 0  # cycles added to the run's last FFMA (step 3)
    why: str = ""  # why not, where not

    def to_dict(self) -> dict:
        return ({"moved_over_ffmas": self.ffmas, "at": f"{self.at:04x}", "stall_added": self.stall_added}
                if self.ffmas else {"moved_over_ffmas": 0, "why_not": self.why})


def _tail_stall(run: Sequence[Instruction], after: Sequence[Instruction], bar_stall: int) -> int:
    """Cycles the run's last FFMA must stall more so that no instruction of `after` (what follows the old barrier)
    comes closer than min(before, FIXED_LATENCY) cycles to an FFMA of the run whose result it reads or whose
    registers it writes, once the barrier's `bar_stall` no longer lies between them."""
    need = 0
    to_end = 0  # cycles from an FFMA of the run to the end of the run, from the last one backwards
    for x in reversed(run):
        to_end += isa.stall(x.hi)
        fx = locate(x)
        written, read = registers_of(fx, True), registers_of(fx, False)
        gap = to_end  # cycles from x to the next instruction after the run, without the barrier
        for y in after:
            if y.base == "BRA" and y.predicate != "@!PT":  # a path leaves: keep the old distance up to the limit
                need = max(need, min(gap + bar_stall, FIXED_LATENCY) - gap)
                break
            fy = locate(y)
            if registers_of(fy, False) & written or registers_of(fy, True) & (written | read):
                old = gap + bar_stall
                need = max(need, min(old, FIXED_LATENCY) - gap)
            gap += isa.stall(y.hi)
            if gap >= FIXED_LATENCY:
                break
    return need


def plan(func: SassFunction) -> Tuple[List[Tuple[int, Instruction, int, int, str]], BarrierReport]:
    """([(slot offset, instruction moved there, lo, hi, predicate text)], report) for `func`'s main loop."""
    loop = func.loop_instructions()
    landings = func.branch_sources()
    for b, bar in enumerate(loop):
        if bar.base != "BAR" or bar.predicate or not bar.opcode.startswith("BAR.SYNC"):
            continue
        s = b - 1
        while s >= 0 and loop[s].base == "FFMA" and not loop[s].predicate:
            s -= 1
        run = loop[s + 1:b]
        if s < 0 or loop[s].base != "STS":
            return [], BarrierReport(why=f"the barrier at /*{bar.offset:04x}*/ follows no run of FFMAs after an STS")
        if len(run) < MIN_RUN:
            return [], BarrierReport(why=f"the barrier sits {len(run)} FFMAs after the last STS (moved at {MIN_RUN})")
        inside = [x.offset for x in run[1:] + [bar] if x.offset in landings]
        if inside:
            return [], BarrierReport(why=f"a branch lands at /*{inside[0]:04x}*/, inside the run or at the barrier")
        try:
            extra = _tail_stall(run, loop[b + 1:b + 1 + HORIZON], isa.stall(bar.hi))
        except UnknownForm as e:
            return [], BarrierReport(why=f"an instruction after the barrier has unknown register fields: {e}")
        last = run[-1]
        if isa.stall(last.hi) + extra > MAX_STALL:
            return [], BarrierReport(why=f"the run's last FFMA would stall {isa.stall(last.hi) + extra} cycles")
        order = [bar] + run
        slots = [x.offset for x in run] + [bar.offset]
        edits = []
        for slot, ins in zip(slots, order):
            hi = isa.with_stall(ins.hi, isa.stall(ins.hi) + extra) if ins is last and extra else ins.hi
            edits.append((slot, ins, ins.lo, hi, ins.predicate))
        # the last FFMA above the stores may have flagged an operand for the run's first FFMA, now behind the
        # barrier, which the reuse model (sass/banks.py CLEARS_AFTER) and ptxas never reuse across: unflag it
        p = s
        while p >= 0 and loop[p].base != "FFMA":
            p -= 1
        if p >= 0 and loop[p].hi & isa.REUSE_MASK_HI:
            plain = placed(loop[p], loop[p])
            edits.append((plain.offset, plain, plain.lo, plain.hi, plain.predicate))
        return edits, BarrierReport(ffmas=len(run), at=slots[0], stall_added=extra)
    return [], BarrierReport(why="no barrier in the main loop")
