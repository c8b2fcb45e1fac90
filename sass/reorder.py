"""Reorder the main loop's FFMAs inside the cubin so that each one shares a source
register, in the same operand slot, with the FFMA before it (a reuse-cache hit on
nearly every FFMA), for the SASS register-bank pass (sass/bank_pass.py).

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
- Scoreboards: an FFMA that touches a register any variable-latency instruction of the
  function writes or reads (LDS, LDG, ...: everything outside FIXED_LATENCY) never moves
  above a position of its run, up to its own, that waits on a scoreboard.  Which
  scoreboard guards it cannot be read off the instruction: of several LDS in a row
  ptxas may let only the last set one (they complete in order).  An FFMA moved above
  such a wait read stale fragments on the H100 (a 128x128 8x16 CUDA C kernel, 0.5%
  wrong): that is why this rule is this coarse.
- Fixed-latency dependences that leave the run keep their distance on every path
  (fall-through, branches, the loop's back edge and its exit): for the nearest
  fixed-latency writer of each source on any path into the run, and the nearest
  reader or writer of the destination on any path out of it, the distance in issue
  cycles stays at least min(the distance ptxas gave, GUARD_CYCLES).
- Inside a run: an FFMA that reads another's destination keeps the run in its order
  (a true dependence); one that overwrites a register others read (ptxas reuses a
  fragment's register for an accumulator) goes after all of them.
- fma(a, b, c) == fma(b, a, c) exactly, so an FFMA may swap its a and b operands to
  put the shared register in the slot the previous FFMA read it in.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Set, Tuple

from . import banks as reg_banks
from . import isa
from .disasm import Instruction
from .fields import locate, registers_of
from .isa import RZ

GUARD_CYCLES = 12


def stall(ins: Instruction) -> int:
    return isa.stall(ins.hi)


def waits(ins: Instruction) -> int:
    return isa.wait_mask(ins.hi)


def sets_scoreboard(ins: Instruction) -> bool:
    return isa.sets_scoreboard(ins.hi)


def _movable(ins: Instruction) -> bool:
    return isa.is_ffma_rrr(ins.base, ins.lo) and not ins.predicate and not sets_scoreboard(ins)


def _ab(ins: Instruction) -> Tuple[int, int]:
    """The Ra and Rb registers of an FFMA Rd, Ra, Rb, Rc."""
    return isa.field(ins.lo, ins.hi, isa.RA_BIT), isa.field(ins.lo, ins.hi, isa.RB_BIT)


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


# Calls and indirect branches: where they go is not in the text, so Cfg cannot follow them (the pass and its
# read-scoreboard step leave a kernel holding one alone).
PATH_BREAKERS = frozenset({"CALL", "RET", "BRX", "JMX", "JMP"})


class Cfg:
    """Successors and predecessors of the function's instructions (by index), for the
    path-aware latency windows: fall-through, branch targets (a predicated branch has
    both; `@!PT BRA`, as the preload step leaves the branch it if-converts, never branches),
    EXIT ends a path.  (Only for functions without PATH_BREAKERS.)"""

    def __init__(self, instrs: Sequence[Instruction], labels: Dict[str, int], fields=None):
        self.instrs = instrs
        at = {ins.offset: k for k, ins in enumerate(instrs)}
        self.succ: List[List[int]] = []
        self.pred: List[List[int]] = [[] for _ in instrs]
        for k, ins in enumerate(instrs):
            nxt = []
            target = ins.branch_target() if ins.base == "BRA" and ins.predicate != "@!PT" else None
            if target is not None and target in labels and labels[target] in at:
                nxt.append(at[labels[target]])
            always = not ins.predicate or ins.predicate == "@PT"
            falls = not (ins.base in ("EXIT", "BRA") and always)
            if falls and k + 1 < len(instrs):
                nxt.append(k + 1)
            self.succ.append(nxt)
            for j in nxt:
                self.pred[j].append(k)
        located = [fields[i.offset] if fields is not None else locate(i) for i in instrs]
        self.reads = [registers_of(fs, False) for fs in located]
        self.writes = [registers_of(fs, True) for fs in located]

    def forward(self, start: int, first_gap: int, horizon: int) -> Dict[int, int]:
        """{register: fewest cycles, over all paths, from the issue of the instruction
        before `start` to an instruction reading or writing it}, within `horizon` cycles.
        first_gap: cycles from that instruction to `start`.  (The least over every
        occurrence is the least over paths of the nearest one.)"""
        return self._walk([(start, first_gap)], self.succ, lambda k: self.reads[k] | self.writes[k],
                          lambda k: max(1, stall(self.instrs[k])), horizon, step_from=True)

    def backward(self, start: int, horizon: int) -> Dict[int, int]:
        """{register: fewest cycles, over all paths into `start`, from a fixed-latency
        instruction writing it to the issue of `start`}, within `horizon` cycles
        (variable-latency writers are the scoreboards' business: _bounds)."""
        first = [(j, max(1, stall(self.instrs[j]))) for j in self.pred[start]]
        return self._walk(first, self.pred,
                          lambda k: set() if variable_latency(self.instrs[k]) else self.writes[k],
                          lambda k: max(1, stall(self.instrs[k])), horizon, step_from=False)

    @staticmethod
    def _walk(first, edges, regs_of, cost, horizon: int, step_from: bool) -> Dict[int, int]:
        best: Dict[int, int] = {}
        seen: Dict[int, int] = {}
        stack = list(first)
        while stack:
            k, c = stack.pop()
            if c >= horizon or seen.get(k, horizon) <= c:
                continue
            seen[k] = c
            for r in regs_of(k):
                if c < best.get(r, horizon):
                    best[r] = c
            for j in edges[k]:
                stack.append((j, c + (cost(k) if step_from else cost(j))))
        return best


def _positions_cycles(instrs: Sequence[Instruction], run: Sequence[int]) -> Dict[int, int]:
    """Issue cycle of each run position from the run's first (stall counts are positional)."""
    out, c = {}, 0
    for k in run:
        out[k] = c
        c += max(1, stall(instrs[k]))
    return out


def _bounds(cfg: "Cfg", run: Sequence[int], f: _Ffma, vl_regs: Set[int]) -> List[int]:
    """Positions of `run` where f keeps every dependence that leaves the run:
    - fixed latency: for the nearest writer of each source on any path into the run and
      the nearest reader or writer of the destination on any path out of it, the distance
      in issue cycles stays at least min(the distance ptxas gave, GUARD_CYCLES);
    - scoreboards: an f that reads or writes a register any variable-latency instruction
      of the function touches stays at or after every position of its run, up to its own,
      that waits on any scoreboard (which scoreboard guards it is not read off: ptxas lets
      one scoreboard cover several in-order loads), so every wait that preceded f on every
      path still does."""
    instrs = cfg.instrs
    at = _positions_cycles(instrs, run)
    last = run[-1]
    tail = at[last]  # issue cycle of the run's last position
    ins_in = cfg.backward(run[0], GUARD_CYCLES)
    ins_out = cfg.forward(last + 1, max(1, stall(instrs[last])), GUARD_CYCLES) if last + 1 < len(instrs) else {}
    mine = {f.a, f.b, f.c, f.dest} - {RZ}
    floor = run[0]
    if mine & vl_regs:
        floor = max((p for p in run if p <= f.home and waits(instrs[p])), default=run[0])
    ok = []
    for p in run:
        if p < floor:
            continue
        good = True
        for r in {f.a, f.b, f.c} - {RZ}:
            if r in ins_in:
                d_new, d_old = ins_in[r] + at[p], ins_in[r] + at[f.home]
                if d_new < min(d_old, GUARD_CYCLES):
                    good = False
        if f.dest in ins_out:
            d_new, d_old = tail - at[p] + ins_out[f.dest], tail - at[f.home] + ins_out[f.dest]
            if d_new < min(d_old, GUARD_CYCLES):
                good = False
        if good:
            ok.append(p)
    return ok


# Instructions whose results (and, for stores, whose reads) complete at a fixed number of
# cycles after issue.  Everything else - memory, S2R, MUFU, conversions, shuffles - is
# variable latency: ptxas guards it with scoreboards, and not always on the instruction
# itself (of several LDS in a row only the last may set one: they complete in order).
FIXED_LATENCY = frozenset({"FFMA", "FMUL", "FADD", "FSEL", "FSETP", "FMNMX", "HFMA2", "IMAD", "IADD3", "VIADD",
                           "ISETP", "LEA", "LOP3", "SHF", "SEL", "IMNMX", "MOV", "PRMT", "P2R", "R2P", "PLOP3",
                           "CS2R", "IABS"})


def variable_latency(ins: Instruction) -> bool:
    return ins.base not in FIXED_LATENCY or sets_scoreboard(ins)


def _variable_latency_registers(instrs: Sequence[Instruction]) -> Set[int]:
    """Registers some variable-latency instruction of the function writes or reads."""
    out: Set[int] = set()
    for ins in instrs:
        if variable_latency(ins):
            fs = locate(ins)
            out |= registers_of(fs, True) | registers_of(fs, False)
    return out


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
    lo = isa.swap_ab(ins.lo)
    ops = list(ins.operands)
    ops[1], ops[2] = ops[2], ops[1]
    return dataclasses.replace(ins, lo=lo, operands=tuple(ops), text=_text(ins.opcode, ops))


def _text(opcode: str, ops: Sequence[str]) -> str:
    return f"{opcode} {', '.join(ops)}"


def placed(ins: Instruction, at: Instruction) -> Instruction:
    """`ins` at the position of `at`: its offset and scheduling controls, no reuse flags
    (the pass plans those; placed(ins, ins) is `ins` with its reuse flags cleared)."""
    ops = tuple(op.replace(".reuse", "") for op in ins.operands)
    hi = ((at.hi & ~isa.BODY_MASK_HI) | (ins.hi & isa.BODY_MASK_HI)) & ~isa.REUSE_MASK_HI
    return dataclasses.replace(ins, offset=at.offset, hi=hi, operands=ops, text=_text(ins.opcode, ops))


@dataclasses.dataclass
class ReorderReport:
    runs: int = 0  # runs of FFMAs found
    reordered_runs: int = 0
    kept_dependent: int = 0  # runs left alone: FFMAs depend on each other
    kept_infeasible: int = 0  # runs left alone: the distance rules allowed no chained order
    moved: int = 0  # FFMAs now at another position
    swapped: int = 0  # FFMAs whose a and b operands were exchanged


def reorder(func_instrs: Sequence[Instruction], lo: int, hi: int, labels: Dict[str, int],
            bank=lambda r: r % 2, only_runs: Optional[Set[int]] = None) -> Tuple[List[Instruction], ReorderReport]:
    """The function's instructions with the FFMA runs of its loop body (indices lo..hi)
    chained; the report says what moved.  `labels`: name -> offset.  `bank` gives each
    register's bank under the renaming the pass has in view: among the FFMAs that share
    an operand with the previous one, those whose two other reads fall in different banks
    go first."""
    instrs = list(func_instrs)
    rep = ReorderReport()
    cfg = Cfg(instrs, labels)
    vl_regs = _variable_latency_registers(instrs)
    label_offsets = set(labels.values())
    out = list(instrs)
    prev: Optional[Tuple[int, int]] = None  # (a, b) registers of the FFMA before, in slots a and b
    prev_end = -1
    for number, run in enumerate(runs(instrs[lo:hi + 1], label_offsets)):
        run = [lo + k for k in run]
        rep.runs += 1
        if only_runs is not None and number not in only_runs:  # bisecting a fault: leave this run alone
            prev = None
            continue
        if prev_end >= 0 and not _chain_survives(out, prev_end, run[0], label_offsets):
            prev = None
        fs = []
        for k in run:
            i = instrs[k]
            ra, rb = _ab(i)
            fs.append(_Ffma(i, k, isa.field(i.lo, i.hi, isa.RD_BIT), ra, rb, isa.field(i.lo, i.hi, isa.RC_BIT)))
        before = _precedence(fs)
        if before is None:
            rep.kept_dependent += 1
            prev, prev_end = _last_pair(out, run), run[-1]
            continue
        allowed = {id(f): set(_bounds(cfg, run, f, vl_regs)) for f in fs}
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
            out[pos] = placed(ins, instrs[pos])
        prev, prev_end = _last_pair(out, run), run[-1]
    return out, rep


def _last_pair(out: Sequence[Instruction], run: Sequence[int]) -> Tuple[int, int]:
    return _ab(out[run[-1]])


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
