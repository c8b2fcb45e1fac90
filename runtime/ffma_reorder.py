"""Reorder the main loop's FFMAs inside the cubin so that each one shares a source
register, in the same operand slot, with the FFMA before it (a reuse-cache hit on
nearly every FFMA), for the SASS register-bank pass (runtime/sass_pass.py).

ptxas keeps much of the generator's FFMA order but not all of it: it starts rows of
the thread tile with the fragment quad that arrived first, so some rows turn without
a shared operand and the FFMA there reads three registers from the file: a conflict
under any register allocation with two banks.  The generator cannot pin ptxas's
order, so the pass sets it in the SASS, under these rules:

- Only runs of consecutive, unpredicated, register-only FFMAs move, and only among
  the positions of their own run.  A run ends at any other instruction, at a label
  and after an instruction with the yield hint.  An FFMA that sets a scoreboard
  never moves.
- The scheduling controls stay with the position (stall count, yield, barriers,
  waits); only the instruction moves.  So the issue timing of the loop is unchanged.
- Scoreboards: an FFMA that reads a register a variable-latency instruction (LDS,
  LDG) writes, or writes one such an instruction reads or writes, goes no earlier
  than the first position after that instruction whose wait mask holds its
  scoreboard.
- Inside a run: an FFMA that reads another's destination keeps the run in its order
  (a true dependence); one that overwrites a register others read (ptxas reuses a
  fragment's register for an accumulator) goes after all of them.
- Fixed-latency dependences that leave the run keep their distance: for the last
  writer of each source and the next reader (or writer) of the destination, in the
  loop taken as cyclic, the distance in issue cycles (sums of the stall counts) after
  the move is at least min(the distance ptxas gave it, GUARD_CYCLES).
- fma(a, b, c) == fma(b, a, c) exactly, so an FFMA may swap its a and b operands to
  put the shared register in the slot the previous FFMA read it in.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Set, Tuple

from . import reg_banks
from .sass import Instruction
from .sass_fields import RZ, locate

GUARD_CYCLES = 8
CONTROL_SHIFT = 41
BODY_MASK = (1 << CONTROL_SHIFT) - 1
REUSE_MASK = 0x7 << 58
FFMA_RRR = 0x223


def _control(ins: Instruction) -> int:
    return ins.hi >> CONTROL_SHIFT


def stall(ins: Instruction) -> int:
    return _control(ins) & 0xF


def waits(ins: Instruction) -> int:
    return (_control(ins) >> 11) & 0x3F


def sets_scoreboard(ins: Instruction) -> bool:
    c = _control(ins)
    return ((c >> 5) & 7) != 7 or ((c >> 8) & 7) != 7


def _movable(ins: Instruction) -> bool:
    return (ins.base == "FFMA" and (ins.lo & 0xFFF) == FFMA_RRR and not ins.predicate
            and not sets_scoreboard(ins))


def runs(loop: Sequence[Instruction], labels: Set[int]) -> List[List[int]]:
    """Index runs (into `loop`) of FFMAs that may be reordered among themselves."""
    out, cur = [], []
    for k, ins in enumerate(loop):
        if not _movable(ins):
            out.append(cur)
            cur = []
            continue
        if cur and (ins.offset in labels or reg_banks.yields(loop[cur[-1]])):
            out.append(cur)
            cur = []
        cur.append(k)
    out.append(cur)
    return [r for r in out if len(r) >= 2]


@dataclasses.dataclass
class _Ffma:
    ins: Instruction
    home: int  # index in the loop before the move
    dest: int
    a: int
    b: int
    c: int


def _regs(ins: Instruction, written: bool) -> Set[int]:
    return {r for f in locate(ins) if f.written == written and f.reg != RZ for r in f.registers()}


class _Timeline:
    """Issue cycles of the loop body's positions (stall counts are positional)."""

    def __init__(self, loop: Sequence[Instruction]):
        self.n = len(loop)
        self.start = [0]
        for ins in loop:
            self.start.append(self.start[-1] + stall(ins))

    def dist(self, a: int, b: int) -> int:
        """Cycles from issuing position a to issuing position b, b after a (cyclic)."""
        if a < b:
            return self.start[b] - self.start[a]
        return self.start[self.n] - self.start[a] + self.start[b]


def _bounds(loop, reads, writes, timeline: _Timeline, run: Sequence[int], f: _Ffma) -> List[int]:
    """Positions of `run` where f keeps its fixed-latency dependences outside the run."""
    n = len(loop)
    inside = set(run)
    checks: List[Tuple[int, bool, int]] = []  # (other position, other is before f, distance ptxas gave)
    for r in {f.a, f.b, f.c} - {RZ}:
        for d in range(1, n):
            k = (f.home - d) % n
            if r in writes[k]:
                if k not in inside and not sets_scoreboard(loop[k]):
                    checks.append((k, True, timeline.dist(k, f.home)))
                break
    for d in range(1, n):
        k = (f.home + d) % n
        if f.dest in reads[k] or f.dest in writes[k]:
            if k not in inside:
                checks.append((k, False, timeline.dist(f.home, k)))
            break
    earliest = _scoreboard_earliest(loop, reads, writes, f)
    ok = []
    for p in run:
        if earliest is not None and p < earliest:
            continue
        good = True
        for k, before, d0 in checks:
            d = timeline.dist(k, p) if before else timeline.dist(p, k)
            if d < min(d0, GUARD_CYCLES):
                good = False
                break
        if good:
            ok.append(p)
    return ok


def _scoreboard(ins: Instruction) -> Tuple[int, int]:
    """(write scoreboard, read scoreboard) an instruction sets; 7 = none."""
    c = _control(ins)
    return (c >> 5) & 7, (c >> 8) & 7


def _scoreboard_earliest(loop, reads, writes, f: _Ffma) -> Optional[int]:
    """The latest, over f's variable-latency dependences, of the first position after
    the producer (or reader) whose wait mask holds its scoreboard; None if none."""
    n = len(loop)
    need: List[Tuple[int, int]] = []  # (position of the variable-latency instruction, scoreboard)
    regs_read = {f.a, f.b, f.c} - {RZ}
    for d in range(1, n):
        k = (f.home - d) % n
        ins = loop[k]
        wsb, rsb = _scoreboard(ins)
        if wsb != 7 and (writes[k] & (regs_read | {f.dest})):
            need.append((k, wsb))
        if rsb != 7 and f.dest in reads[k]:
            need.append((k, rsb))
        regs_read -= writes[k]
        if not regs_read and f.dest in writes[k]:
            break
    best = None
    for k, sb in need:
        steps = next((d for d in range(1, n) if (waits(loop[(k + d) % n]) >> sb) & 1), None)
        to_home = (f.home - k) % n
        if steps is None or steps > to_home:
            return f.home  # ptxas put no wait between them that we can see: stay put
        q = (k + steps) % n
        if q > f.home:
            continue  # the wait lies in the previous pass over the body: every position is after it
        if best is None or q > best:
            best = q
    return best


def _precedence(fs: Sequence[_Ffma]) -> Optional[Dict[int, Set[int]]]:
    """{id(f): ids of the FFMAs that must precede f}; None when one FFMA reads another's
    destination or two write one register."""
    dests = [f.dest for f in fs]
    if len(set(dests)) != len(dests):
        return None
    by_dest = {f.dest: f for f in fs}
    before: Dict[int, Set[int]] = {id(f): set() for f in fs}
    for g in fs:
        for r in {g.a, g.b, g.c}:
            f = by_dest.get(r)
            if f is None or f is g:
                continue
            # g reads f's destination: if f sits before g in ptxas's order, g needs f's result
            if f.home < g.home:
                return None
            before[id(f)].add(id(g))  # f overwrites what g reads: g first
    return before


def _swapped(ins: Instruction) -> Instruction:
    """fma(b, a, c): fields Ra and Rb exchanged."""
    ra, rb = (ins.lo >> 24) & 0xFF, (ins.lo >> 32) & 0xFF
    lo = (ins.lo & ~(0xFF << 24) & ~(0xFF << 32)) | (rb << 24) | (ra << 32)
    ops = list(ins.operands)
    ops[1], ops[2] = ops[2], ops[1]
    return dataclasses.replace(ins, lo=lo, operands=tuple(ops), text=_text(ins.opcode, ops))


def _text(opcode: str, ops: Sequence[str]) -> str:
    return f"{opcode} {', '.join(ops)}"


def _placed(ins: Instruction, at: Instruction) -> Instruction:
    """`ins` at the position of `at`: its offset and scheduling controls, no reuse flags
    (the pass plans those)."""
    ops = tuple(op.replace(".reuse", "") for op in ins.operands)
    hi = ((at.hi & ~BODY_MASK) | (ins.hi & BODY_MASK)) & ~REUSE_MASK
    return dataclasses.replace(ins, offset=at.offset, hi=hi, operands=ops, text=_text(ins.opcode, ops))


@dataclasses.dataclass
class ReorderReport:
    runs: int = 0  # runs of FFMAs found
    reordered_runs: int = 0
    kept_dependent: int = 0  # runs left alone: FFMAs depend on each other
    kept_infeasible: int = 0  # runs left alone: the distance rules allowed no chained order
    moved: int = 0  # FFMAs now at another position
    swapped: int = 0  # FFMAs whose a and b operands were exchanged


def reorder(loop: Sequence[Instruction], labels: Set[int], bank=lambda r: r % 2) -> Tuple[List[Instruction], ReorderReport]:
    """The loop body with its FFMA runs chained; the report says what moved.  `bank`
    gives each register's bank under the renaming the pass has in view: among the
    FFMAs that share an operand with the previous one, those whose two other reads
    fall in different banks go first."""
    loop = list(loop)
    rep = ReorderReport()
    reads = [_regs(i, False) for i in loop]
    writes = [_regs(i, True) for i in loop]
    timeline = _Timeline(loop)
    out = list(loop)
    prev: Optional[Tuple[int, int]] = None  # (a, b) registers of the FFMA before, in slots a and b
    prev_end = -1
    for run in runs(loop, labels):
        rep.runs += 1
        if prev_end >= 0 and not _chain_survives(out, prev_end, run[0], labels):
            prev = None
        fs = []
        for k in run:
            i = loop[k]
            ra, rb = (i.lo >> 24) & 0xFF, (i.lo >> 32) & 0xFF
            fs.append(_Ffma(i, k, (i.lo >> 16) & 0xFF, ra, rb, i.hi & 0xFF))
        before = _precedence(fs)
        if before is None:
            rep.kept_dependent += 1
            prev, prev_end = _last_pair(out, run), run[-1]
            continue
        allowed = {id(f): set(_bounds(loop, reads, writes, timeline, run, f)) for f in fs}
        order = _chain(fs, run, allowed, before, prev, bank)
        if order is None:
            rep.kept_infeasible += 1
            prev, prev_end = _last_pair(out, run), run[-1]
            continue
        rep.reordered_runs += 1
        for pos, (f, swap) in zip(run, order):
            ins = _swapped(f.ins) if swap else f.ins
            rep.moved += f.home != pos
            rep.swapped += swap
            out[pos] = _placed(ins, loop[pos])
        prev, prev_end = _last_pair(out, run), run[-1]
    return out, rep


def _last_pair(out: Sequence[Instruction], run: Sequence[int]) -> Tuple[int, int]:
    i = out[run[-1]]
    return (i.lo >> 24) & 0xFF, (i.lo >> 32) & 0xFF


def _chain_survives(out: Sequence[Instruction], a: int, b: int, labels: Set[int]) -> bool:
    """Whether the reuse cache can carry from position a to position b: no label,
    yield, branch or slotted ALU instruction in between."""
    if reg_banks.yields(out[a]):
        return False
    for k in range(a + 1, b + 1):
        i = out[k]
        if i.offset in labels:
            return False
        if k < b and (i.base in reg_banks.SLOTTED or i.base in reg_banks.CLEARS_AFTER or reg_banks.yields(i)):
            return False
    return True


def _chain(fs: Sequence[_Ffma], run: Sequence[int], allowed, before, prev, bank) -> Optional[List[Tuple[_Ffma, bool]]]:
    """Greedy: at each position the FFMA (among those allowed there) that shares the
    previous one's slot-a register (along a row), else its slot-b register (a turn);
    an FFMA whose last allowed position is this one goes first.  None if stuck."""
    left = list(fs)
    order: List[Tuple[_Ffma, bool]] = []
    for t, pos in enumerate(run):
        done = {id(g) for g, _ in order}
        here = [f for f in left if pos in allowed[id(f)] and before[id(f)] <= done]
        if not here:
            return None
        later = set(run[t + 1:])
        forced = [f for f in here if not (allowed[id(f)] & later)]
        if len(forced) > 1:
            return None
        if forced:
            f = forced[0]
            swap = _swap_for(f, prev)
        else:
            f, swap = _best(here, prev, bank)
        left.remove(f)
        order.append((f, swap))
        prev = (f.b, f.a) if swap else (f.a, f.b)
    return order


def _swap_for(f: _Ffma, prev) -> bool:
    if prev is None:
        return False
    pa, pb = prev
    return (f.b == pa and f.a != pa) or (f.a == pb and f.b != pb)


def _best(here: Sequence[_Ffma], prev, bank) -> Tuple[_Ffma, bool]:
    if prev is not None:
        pa, pb = prev
        shared = []  # (rank, f, swap): rank 0 = its two other reads in different banks
        for turn, x in enumerate((pa, pb)):  # along the row (slot a again), then a turn (slot b)
            for f in here:
                if x not in (f.a, f.b):
                    continue
                other = f.b if f.a == x else f.a
                swap = (f.b == x and f.a != x) if turn == 0 else (f.a == x and f.b != x)
                clash = bank(other) == bank(f.c) and other != f.c
                shared.append((2 * clash + turn, f, swap))
        if shared:
            _, f, swap = min(shared, key=lambda t: t[0])
            return f, swap
    # A fresh start: the FFMA whose slot-a register has the most FFMAs left, so that a
    # long row follows.
    count: Dict[int, int] = {}
    for f in here:
        count[f.a] = count.get(f.a, 0) + 1
        count[f.b] = count.get(f.b, 0) + 1
    f = max(here, key=lambda f: (max(count[f.a], count[f.b]), -f.home))
    return f, count[f.b] > count[f.a]
