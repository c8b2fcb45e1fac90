"""The SASS register-bank pass for sm_90: rename registers inside a cubin so that the
main loop's FFMAs read at most one register per bank that the reuse cache does not
serve, and set the reuse bits that make it so.

The hardware model is sass/banks.py's sm_90 model, calibrated on the H100
(docs/register-banks.md): 2 banks, bank = R % 2; an FFMA issues in one cycle when at
most one of its non-cached source registers falls in each bank, and each extra read in
a bank costs a cycle; the reuse cache keeps one register per (slot, bank).  With two
banks and three sources, an FFMA is conflict-free only when the reuse cache serves one
source and the other two differ in parity.  So the first FFMA after the A and B
fragments change (the first of each k-slice) always conflicts: nothing before it read
its registers.  `PassReport.unavoidable` counts those; the pass reaches the rest.

What the pass does to a cubin (NVRTC's or nvJitLink's, unchanged otherwise):
  1. Finds every register field of every instruction and proves the map by a probe
     rewrite read back through nvdisasm (sass/fields.py); refuses a kernel
     with any instruction form it does not know.
  2. Splits the registers: a register that is part of a vector or 64-bit operand
     (LDS.128 fragments, LDG/STG quads, address pairs, CS2R pairs, IMAD.WIDE) is
     pinned where it is, so vector operands keep their aligned consecutive registers;
     R1 (the stack pointer) is pinned.  Every other register, and every register
     number below the kernel's register count that nothing uses, is movable.
  3. Plans the reuse bits of the loop's FFMAs (a read gets `.reuse` when the next read
     of that slot and bank is the same register and nothing writes it in between, in
     straight-line code); the reads left uncached give constraints "these two
     registers must differ in bank"; pinned registers have their bank.  A 2-colouring
     of that graph (fixed colours first, free components turned to fit the even/odd
     registers available) chooses a bank for each movable register, and a permutation
     of the movable registers realises it.  Planning and colouring alternate until the
     predicted conflicts stop falling.
  4. Renames every register field of every instruction by that permutation, rewrites
     the reuse bits (keeps a flag, ptxas's or the plan's, only where the rule above
     holds under the new banks: no stale reuse is ever possible), disassembles the
     result and checks each instruction prints exactly the renamed operands and flags.
  5. Moves the main loop's global loads' read scoreboards off the scoreboards the loop's
     first FFMAs wait on (sass/scoreboards.py: the step, its hardware model and its proof
     obligations); run_pass(separate_reads=False) leaves them as ptxas set them.
  6. Spreads the two-stage loop's preload of the next tile's first fragments among the FFMAs
     after it (sass/preload.py: the loads if-converted and moved, checked); run_pass(
     spread_preloads=False) leaves them as ptxas placed them.
  7. Spreads the last slice's bunched fragment loads before the next tile's shared stores among
     the FFMAs above them (sass/tile_end.py: a list schedule of that window, checked);
     run_pass(spread_tile_end=False) leaves them as ptxas placed them.
  8. Spreads the next tile's shared stores, a block of their own behind the branch that skips them, among the
     last slice's FFMAs before it (sass/stores.py: the stores if-converted and moved, checked);
     run_pass(spread_stores=False) leaves them as ptxas placed them.
  9. Moves a k-tile's barrier up to the next tile's last shared store where ptxas sank it below the last
     slice's FFMAs (sass/barrier.py: the run moved down a slot, checked); run_pass(hoist_barrier=False)
     leaves it where ptxas placed it.

The register count in the kernel's .nv.info is unchanged: the permutation stays within
the registers ptxas used (the count is that + 2 reserved).  The rewritten cubin's register-bank analysis is in the report, before and after.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..errors import CompileError, SassError
from . import banks as reg_banks
from . import cubin as cubin_info
from .disasm import Instruction, SassFunction, disassemble, function_of, parse
from .fields import (RegField, UnknownForm, first_encoding_mismatch, instruction_bytes, locate_all, prove,
                     put_instruction, renamed_operand)
from .isa import REUSE_BIT_OF_SLOT, RZ, set_bits
from .reorder import PATH_BREAKERS, ReorderReport, reorder
from .barrier import plan as barrier_plan
from .preload import plan as preload_plan, write_edits
from .stores import plan as stores_plan
from .tile_end import TileEndReport, plan as tile_end_plan
from .scoreboards import separate_load_reads

PASS_ARCHS = ("sm_90",)
PASS_VERSION = "5"  # part of the cache key: bump when the pass's output changes
# The bank rule the pass plans with (the analysis scores with reg_banks.arch_model(arch));
# recorded with PASS_VERSION in the inputs of every cached result of the pass.
PASS_BANK_MODEL = "2 banks, bank = R % 2; <= 1 uncached read per bank per FFMA; reuse cache 1 register per (slot, bank)"
STACK_POINTER = 1
RESERVED_REGISTERS = 2  # above the highest one ptxas allocates (see run_pass)


class SassPassRefused(CompileError, SassError):
    """The pass will not rewrite this kernel; the message says why.  A CompileError too:
    compile_source raises it for a kernel built with sass_pass."""


@dataclass
class PassReport:
    kernel: str
    arch: str
    registers: int  # the kernel's register count (unchanged)
    pinned: int  # registers held in place by vector / 64-bit operands (and R1)
    movable: int  # registers (and unused numbers below the count) the permutation may use
    moved: int  # registers renamed
    renaming: Dict[int, int]
    ffma: int  # FFMAs in the main loop
    unavoidable: int  # FFMAs with three distinct uncached reads: conflicted under any renaming
    before: dict  # reg_banks report of the input cubin
    after: dict  # ... and of the rewritten cubin
    reuse_flags_kept: int
    reuse_flags_cleared: int
    reuse_flags_added: int
    reorder: dict = dataclasses.field(default_factory=dict)  # ffma_reorder.ReorderReport
    scoreboards: dict = dataclasses.field(default_factory=dict)  # sass.scoreboards.ScoreboardReport
    preload: dict = dataclasses.field(default_factory=dict)  # sass.preload.PreloadReport
    tile_end: dict = dataclasses.field(default_factory=dict)  # sass.tile_end.TileEndReport
    stores: dict = dataclasses.field(default_factory=dict)  # sass.stores.StoresReport
    barrier: dict = dataclasses.field(default_factory=dict)  # sass.barrier.BarrierReport
    others: dict = dataclasses.field(default_factory=dict)  # other kernels of the module rewritten: name -> to_dict()

    def to_dict(self) -> dict:
        return {
            "kernel": self.kernel, "arch": self.arch, "registers": self.registers,
            "pinned_registers": self.pinned, "movable_registers": self.movable, "moved_registers": self.moved,
            "renaming": {f"R{a}": f"R{b}" for a, b in sorted(self.renaming.items())},
            "ffma_in_loop": self.ffma, "unavoidable_conflicts": self.unavoidable,
            "conflicted_before": self.before["conflicted_ffma"], "conflicted_after": self.after["conflicted_ffma"],
            "conflict_share_before": self.before["conflict_share"],
            "conflict_share_after": self.after["conflict_share"],
            "bank_bound_before": self.before["bank_bound_cycles_per_ffma"],
            "bank_bound_after": self.after["bank_bound_cycles_per_ffma"],
            "ffma_reorder": self.reorder,
            "read_scoreboards": self.scoreboards,
            "preload": self.preload,
            "tile_end": self.tile_end,
            "stores": self.stores,
            "barrier": self.barrier,
            **({"other_kernels": self.others} if self.others else {}),
            "reuse_flags": {"kept": self.reuse_flags_kept, "cleared": self.reuse_flags_cleared,
                            "added": self.reuse_flags_added},
            "before": self.before, "after": self.after,
        }

    def _register_maps(self) -> List[str]:
        out = []
        for role in ("accumulators", "A fragments (slot a)", "B fragments (slot b)"):
            sides = []
            for when, rep in (("before", self.before), ("after", self.after)):
                m = rep.get("register_map", {}).get(role)
                if m:
                    banks = ", ".join(f"bank {k}: {v}" for k, v in sorted(m["banks"].items()))
                    sides.append(f"{when} {len(m['registers'])} regs ({banks})")
            if sides:
                out.append(f"  {role:<21} " + "; ".join(sides))
        return out

    def render_text(self) -> str:
        b, a = self.before, self.after
        return "\n".join([
            f"SASS register-bank pass ({self.arch}, 2 banks, <= 1 uncached read per bank per FFMA): "
            f"{self.moved} of {self.movable} movable registers renamed, {self.pinned} pinned by vector/64-bit "
            f"operands; register count {self.registers} (unchanged)",
            f"  main-loop FFMAs {self.ffma}: conflicted {b['conflicted_ffma']} ({100 * b['conflict_share']:.1f}%) "
            f"-> {a['conflicted_ffma']} ({100 * a['conflict_share']:.1f}%); unavoidable {self.unavoidable} "
            f"(three uncached sources under the chosen order: no renaming helps; at least the first FFMA "
            f"after the fragments change)",
            f"  reuse cache hits {b['reuse_hits']} -> {a['reuse_hits']}; bank-read bound "
            f"{b['bank_bound_cycles_per_ffma']:.3f} -> {a['bank_bound_cycles_per_ffma']:.3f} cycles/FFMA; "
            f"per-instruction estimate {b['per_instruction_cycles_per_ffma']:.3f} -> "
            f"{a['per_instruction_cycles_per_ffma']:.3f}",
            f"  FFMA order: {self.reorder.get('moved', 0)} FFMAs moved and {self.reorder.get('swapped', 0)} "
            f"with a and b exchanged, in {self.reorder.get('reordered_runs', 0)} of {self.reorder.get('runs', 0)} "
            f"runs ({self.reorder.get('kept_dependent', 0)} kept: dependent, "
            f"{self.reorder.get('kept_infeasible', 0)} kept: distance rules)",
            *self._register_maps(),
            *([f"  read scoreboards: {self.scoreboards['loads_moved']} main-loop global loads release their "
               f"read on a scoreboard waited on later; {self.scoreboards['waits_added']} waits added before "
               f"writers of their addresses"] if self.scoreboards.get("loads_moved") else []),
            *([f"  preload: {self.preload['loads_spread']} loads of the next tile's first fragments spread over "
               f"{self.preload['over_ffmas']} FFMAs after them"] if self.preload.get("loads_spread") else []),
            *([f"  tile end: {self.tile_end['bunch_spread']} fragment loads before the next tile's stores "
               f"rescheduled over a window of {self.tile_end['window']} instructions, "
               f"{self.tile_end['cycles'][0]} -> {self.tile_end['cycles'][1]} issue cycles"]
              if self.tile_end.get("bunch_spread") else []),
            *([f"  stores: {self.stores['stores_spread']} shared stores of the next tile spread over the "
               f"{self.stores['over_ffmas']} FFMAs before them"] if self.stores.get("stores_spread") else []),
            *([f"  barrier: moved up over the last slice's {self.barrier['moved_over_ffmas']} FFMAs to the next "
               f"tile's last shared store"
               + (f" (the run's last FFMA stalls {self.barrier['stall_added']} more)" if self.barrier['stall_added']
                  else "")] if self.barrier.get("moved_over_ffmas") else []),
            f"  reuse flags: {self.reuse_flags_kept} kept, {self.reuse_flags_cleared} cleared (unsafe or useless "
            f"under the new banks), {self.reuse_flags_added} added",
            *(f"  also rewritten: {name} (stream-K ranges): {o['registers']} registers, main-loop FFMAs "
              f"{o['ffma_in_loop']}: conflicted {o['conflicted_before']} ({100 * o['conflict_share_before']:.1f}%) -> "
              f"{o['conflicted_after']} ({100 * o['conflict_share_after']:.1f}%)" for name, o in self.others.items()),
        ])


# ---- the program as the pass sees it ---------------------------------------------------------
@dataclass
class _Program:
    func: SassFunction
    fields: Dict[int, Tuple[RegField, ...]]
    labels: Set[int]
    loop: Tuple[int, int]  # offsets of the main loop's first and last instruction

    def reads(self, ins: Instruction) -> Iterable[RegField]:
        return (f for f in self.fields[ins.offset] if not f.written and f.reg != RZ)

    def writes(self, ins: Instruction) -> Set[int]:
        return {r for f in self.fields[ins.offset] if f.written for r in f.registers()}

    def in_loop(self, ins: Instruction) -> bool:
        return self.loop[0] <= ins.offset <= self.loop[1]


def _ends_straight_line(ins: Instruction) -> bool:
    return ins.base in reg_banks.CLEARS_AFTER or reg_banks.yields(ins)


def _reuse_flags(prog: _Program, rename, candidates) -> Dict[Tuple[int, int], int]:
    """{(offset, field bit): offset of the read it serves} for each candidate read that
    may carry .reuse: the next read of its slot and (new) bank in straight-line code is
    the same register, and nothing writes that register before it.  `candidates(ins, f)`
    says which reads to consider."""
    instrs = prog.func.instructions
    out = {}
    for i, ins in enumerate(instrs):
        if _ends_straight_line(ins):
            continue
        written_here = {rename(r) for r in prog.writes(ins)}
        for f in prog.reads(ins):
            if f.count != 1 or f.slot is None or not candidates(ins, f):
                continue
            reg = rename(f.reg)
            if reg in written_here:
                continue
            target = _next_read(prog, instrs, i, f.slot, reg, rename)
            if target is not None:
                out[(ins.offset, f.slot)] = target
    return out


def _next_read(prog: _Program, instrs: Sequence[Instruction], i: int, slot: str, reg: int, rename) -> Optional[int]:
    bank = reg % 2
    for ins in instrs[i + 1:]:
        if ins.offset in prog.labels:
            return None
        same_slot = [rename(f.reg) for f in prog.reads(ins) if f.slot == slot]
        if reg in same_slot:
            return ins.offset
        if ins.base in reg_banks.SLOTTED and any(r % 2 == bank for r in same_slot):
            return None  # the entry (slot, bank) is taken by another register
        if reg in {rename(r) for r in prog.writes(ins)}:
            return None
        if _ends_straight_line(ins):
            return None
    return None


def _loop_ffma(prog: _Program, ins: Instruction, f: RegField) -> bool:
    return ins.base == "FFMA" and prog.in_loop(ins)


def _fresh_reads(prog: _Program, rename) -> List[Tuple[int, ...]]:
    """Per main-loop FFMA, the distinct (original) registers it reads from the register
    file when the loop's FFMAs carry the reuse flags the plan gives them."""
    flags = _reuse_flags(prog, rename, lambda ins, f: _loop_ffma(prog, ins, f))
    served = {(target, slot) for (_, slot), target in flags.items()}
    out = []
    for ins in prog.func.instructions:
        if ins.base != "FFMA" or not prog.in_loop(ins):
            continue
        fresh = sorted({f.reg for f in prog.reads(ins) if (ins.offset, f.slot) not in served})
        out.append(tuple(fresh))
    return out


# ---- choosing banks -------------------------------------------------------------------------
def _colour(fresh: Sequence[Tuple[int, ...]], pinned: Set[int], movable: Sequence[int]) -> Dict[int, int]:
    """A bank (0/1) for movable registers so that each pair of uncached reads of one FFMA
    differs; pinned registers keep theirs.  Returns the wanted bank of each constrained
    movable register (the rest may go anywhere)."""
    movable_set = set(movable)
    edges: Dict[int, Dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for regs in fresh:
        if len(regs) == 2:
            x, y = regs
            edges[x][y] += 1
            edges[y][x] += 1
    colour: Dict[int, int] = {}
    queue = deque()
    for r in edges:
        if r not in movable_set:
            colour[r] = r % 2
            queue.append(r)
    _spread(edges, colour, queue, movable_set)
    # Components with no pinned register: either orientation; turn each to balance the banks.
    free_parts: List[Dict[int, int]] = []
    for r in sorted(edges):
        if r in colour:
            continue
        part = {r: 0}
        _spread(edges, part, deque([r]), movable_set)
        free_parts.append(part)
        colour.update(part)
    slots = [sum(1 for r in movable if r % 2 == b) for b in (0, 1)]
    demand = [sum(1 for r, c in colour.items() if r in movable_set and c == b) for b in (0, 1)]
    for part in sorted(free_parts, key=len, reverse=True):
        n = [sum(1 for c in part.values() if c == b) for b in (0, 1)]
        slack_as_is = min(slots[0] - demand[0], slots[1] - demand[1])
        flipped = [demand[0] - n[0] + n[1], demand[1] - n[1] + n[0]]
        if min(slots[0] - flipped[0], slots[1] - flipped[1]) > slack_as_is:
            for r in part:
                colour[r] ^= 1
            demand = flipped
    return {r: c for r, c in colour.items() if r in movable_set}


def _spread(edges, colour: Dict[int, int], queue: deque, movable: Set[int]) -> None:
    while queue:
        r = queue.popleft()
        for s in sorted(edges[r], key=lambda s: -edges[r][s]):
            if s in colour or s not in movable:
                continue
            colour[s] = colour[r] ^ 1
            queue.append(s)


def _permutation(wanted: Dict[int, int], movable: Sequence[int]) -> Dict[int, int]:
    """old -> new over `movable` (used registers and unused numbers): every register whose
    wanted bank differs from its own swaps with one that needs the opposite move, or with
    an unconstrained register (or unused number) of the other bank."""
    perm = {r: r for r in movable}
    need = {b: [r for r in movable if wanted.get(r) == b and r % 2 != b] for b in (0, 1)}
    spare = {b: [r for r in movable if r not in wanted and r % 2 == b] for b in (0, 1)}
    for x, y in zip(need[1], need[0]):  # x even wants odd, y odd wants even: swap
        perm[x], perm[y] = y, x
    k = min(len(need[0]), len(need[1]))
    for b in (0, 1):
        for x in need[b][k:]:  # x wants bank b; trade places with a spare register of bank b
            if not spare[b]:
                break
            s = spare[b].pop()
            perm[x], perm[s] = s, x
    return {a: b for a, b in perm.items() if a != b}


# ---- the pass -----------------------------------------------------------------------------
def run_pass(cubin: bytes, name: str, arch: str = "sm_90", reorder_ffmas: bool = True,
             rename_registers: bool = True, only_runs: Optional[Set[int]] = None,
             separate_reads: bool = True, spread_preloads: bool = True,
             spread_tile_end: bool = True, spread_stores: bool = True,
             hoist_barrier: bool = True) -> Tuple[bytes, PassReport]:
    """(rewritten cubin, report).  SassPassRefused when the kernel cannot be rewritten safely."""
    if arch not in PASS_ARCHS:
        raise SassPassRefused(f"the SASS register-bank pass targets {', '.join(PASS_ARCHS)} (its bank model and "
                              f"calibration are the H100's); got {arch}: build without --sass-pass for {arch}")
    _, func = function_of(cubin, name)
    text_offset, _ = cubin_info.text_section(cubin, name)
    bad = first_encoding_mismatch(cubin, text_offset, func)
    if bad is not None:
        raise SassPassRefused(f"/*{bad.offset:04x}*/ {bad.text}: nvdisasm's encoding differs from the cubin's bytes")
    try:
        fields = locate_all(func)
        prove(cubin, name, text_offset, func, fields)
    except UnknownForm as e:
        raise SassPassRefused(f"{name}: instruction form the pass cannot rename: {e}") from None
    for ins in func.instructions:
        if ins.base in PATH_BREAKERS:
            raise SassPassRefused(f"/*{ins.offset:04x}*/ {ins.text}: calls and indirect branches hide where "
                                  f"registers are read; the pass rewrites straight kernels only")
    loop = func.main_loop()
    if loop == (0, 0):
        raise SassPassRefused(f"{name}: no main loop (no backward branch around FFMAs): nothing to re-allocate")
    labels = set(func.labels.values())
    original, original_fields = func, fields
    registers = cubin_info.kernel_info(cubin, name).registers
    used: Set[int] = set()
    pinned: Set[int] = {STACK_POINTER}
    for fs in fields.values():
        for f in fs:
            used.update(f.registers())
            if f.count > 1:
                pinned.update(f.registers())
    if used and max(used) >= registers - RESERVED_REGISTERS:
        raise SassPassRefused(f"{name}: R{max(used)} is used but the kernel's register count is {registers}")
    # The count ptxas reports is the highest register it used + 1 + 2; the top two are not
    # the kernel's to use (R224/R225 of a 226-register kernel fault with an illegal
    # instruction on the H100): the permutation stays within what ptxas used.
    movable = sorted(set(range(max(used) + 1)) - pinned)
    before = reg_banks.analyze(original, arch)

    # Order and banks depend on each other: the FFMA order is chosen under the banks in
    # view, the banks under the order.  Alternate, keep the best prediction.
    def plan(perm):
        rename = _renamer(perm)
        if reorder_ffmas:
            f2, rep = _with_reordered_loop(original, lambda r: rename(r) % 2, only_runs)
            return _Program(f2, locate_all(f2), labels, loop), rep
        return _Program(original, original_fields, labels, loop), ReorderReport()

    keep = _Program(original, original_fields, labels, loop)  # ptxas's order and registers
    best = (_conflicts(_fresh_reads(keep, _renamer({})), _renamer({})), {}, keep, ReorderReport())
    prog, reordered = plan({})
    score = _conflicts(_fresh_reads(prog, _renamer({})), _renamer({}))
    if score < best[0]:
        best = (score, {}, prog, reordered)
    perm: Dict[int, int] = {}
    for _ in range(6 if rename_registers else 0):
        prog, rep = plan(perm)
        fresh = _fresh_reads(prog, _renamer(perm))
        new_perm = _permutation(_colour(fresh, pinned, movable), movable)
        new_rename = _renamer(new_perm)
        score = _conflicts(_fresh_reads(prog, new_rename), new_rename)
        if score < best[0]:
            best = (score, new_perm, prog, rep)
        if new_perm == perm:
            break
        perm = new_perm
    _, best_perm, prog, reordered = best
    func = prog.func
    rename = _renamer(best_perm)
    unavoidable = sum(1 for regs in _fresh_reads(prog, rename) if len(regs) >= 3)

    new_cubin, flag_counts, new_func = _emit(cubin, text_offset, prog, best_perm, registers, name)
    after = reg_banks.analyze(new_func, arch)
    if after.conflicts > before.conflicts:
        # The plan's model and the analysis differ somewhere (they share the bank model, not
        # every rule): never hand back a kernel the analysis rates worse; keep ptxas's order
        # and registers and only re-plan the reuse flags.
        best_perm, prog, reordered = {}, keep, ReorderReport()
        rename = _renamer(best_perm)
        unavoidable = sum(1 for regs in _fresh_reads(prog, rename) if len(regs) >= 3)
        new_cubin, flag_counts, new_func = _emit(cubin, text_offset, prog, best_perm, registers, name)
        after = reg_banks.analyze(new_func, arch)
    scoreboards = {}
    if separate_reads:
        new_cubin, sb_report = separate_load_reads(new_cubin, new_func, locate_all(new_func))
        scoreboards = sb_report.to_dict()
        if sb_report.loads:  # it changed control bits only: the same instructions, their high words read back
            new_func = SassFunction(name, [dataclasses.replace(i, hi=instruction_bytes(new_cubin, text_offset,
                                                                                        i.offset)[1])
                                           for i in new_func.instructions], new_func.labels)
    # the preload and tile-end steps plan on the same function and are written and verified together: the
    # preload's span lies after the barrier, the tile end's window before the next tile's stores
    pre_edits, pre_report = preload_plan(new_func) if spread_preloads else ([], None)
    end_edits, end_report = tile_end_plan(new_func) if spread_tile_end else ([], None)
    if {e[0] for e in pre_edits} & {e[0] for e in end_edits}:
        end_edits, end_report = [], TileEndReport(why="its window meets the preload step's span")
    moved = bool(pre_edits or end_edits)
    if moved:
        new_cubin, new_func = write_edits(new_cubin, name, pre_edits + end_edits)
    # the store and barrier steps plan on the function as the steps before left it, one after the other: the stores
    # move into the FFMAs after the tile end's window, the barrier over the FFMAs after the stores
    reports = {}
    for step, on, plan_step in (("stores", spread_stores, stores_plan), ("barrier", hoist_barrier, barrier_plan)):
        edits, rep = plan_step(new_func) if on else ([], None)
        reports[step] = rep.to_dict() if rep else {}
        if edits:
            new_cubin, new_func = write_edits(new_cubin, name, edits)
            moved = True
    if moved:
        # instructions moved among the FFMAs change what the analysis's recent-write window sees: the report's
        # "after" is the analysis of the cubin handed back
        after = reg_banks.analyze(new_func, arch)
    preload = pre_report.to_dict() if pre_report else {}
    tile_end = end_report.to_dict() if end_report else {}
    report = PassReport(name, arch, registers, len(pinned & (used | {STACK_POINTER})), len(movable),
                        len(best_perm), best_perm, len(before.ffmas), unavoidable, before.to_dict(),
                        after.to_dict(), *flag_counts, dataclasses.asdict(reordered), scoreboards, preload,
                        tile_end, reports["stores"], reports["barrier"])
    return new_cubin, report


def _with_reordered_loop(func: SassFunction, bank, only_runs=None) -> Tuple[SassFunction, ReorderReport]:
    start, end = func.main_loop()
    lo = next(k for k, i in enumerate(func.instructions) if i.offset == start)
    hi = next(k for k, i in enumerate(func.instructions) if i.offset == end)
    instrs, rep = reorder(func.instructions, lo, hi, func.labels, bank, only_runs)
    return SassFunction(func.name, instrs, dict(func.labels)), rep


def _emit(cubin: bytes, text_offset: int, prog: _Program, perm: Dict[int, int], registers: int, name: str):
    """Rewrite, disassemble, verify: (cubin, reuse flag counts, its parsed function)."""
    check_renaming(prog.fields, perm, registers, {i.offset: i for i in prog.func.instructions})
    new_cubin, flag_counts, expected = _rewrite(cubin, text_offset, prog, _renamer(perm))
    new_func = parse(disassemble(new_cubin)).get(name)
    _verify(prog.func, new_func, expected)
    return new_cubin, flag_counts, new_func


def _renamer(perm: Dict[int, int]):
    return lambda r: perm.get(r, r)


def _conflicts(fresh: Sequence[Tuple[int, ...]], rename) -> int:
    n = 0
    for regs in fresh:
        banks = [rename(r) % 2 for r in regs]
        n += any(banks.count(b) >= 2 for b in (0, 1))
    return n


def check_renaming(fields: Dict[int, Tuple[RegField, ...]], perm: Dict[int, int], registers: int,
                   instructions: Dict[int, Instruction]) -> None:
    """Refuse a renaming that would break an operand naming several registers (a vector
    or 64-bit operand must keep its aligned, consecutive registers), that is not a
    permutation, or that leaves the registers ptxas used."""
    if sorted(perm) != sorted(perm.values()):
        raise SassPassRefused("the renaming is not a permutation of the registers it moves")
    for r in perm.values():
        if not 0 <= r < registers - RESERVED_REGISTERS or r == RZ:
            raise SassPassRefused(f"the renaming uses R{r}, outside the kernel's {registers} registers")
    for off, fs in fields.items():
        for f in fs:
            if f.count == 1 or f.reg == RZ:
                continue
            new = [perm.get(r, r) for r in f.registers()]
            if new != list(range(new[0], new[0] + f.count)) or new[0] % f.count:
                ins = instructions[off]
                raise SassPassRefused(
                    f"/*{off:04x}*/ {ins.text}: the renaming maps its {f.count}-register operand "
                    f"R{f.reg}..R{f.reg + f.count - 1} to {', '.join(f'R{r}' for r in new)}: a vector operand needs "
                    f"{f.count} consecutive registers starting at a multiple of {f.count}")


def _rewrite(cubin: bytes, text_offset: int, prog: _Program, rename):
    """Rename every field and set the reuse bits; returns (cubin, (kept, cleared, added),
    expected {offset: (operands without .reuse, operand indices with .reuse)})."""
    had_flag = {}
    for ins in prog.func.instructions:
        for f in prog.reads(ins):
            if f.slot is not None and ".reuse" in ins.operands[f.operand]:
                had_flag[(ins.offset, f.slot)] = True
    flags = _reuse_flags(prog, rename,
                         lambda ins, f: (ins.offset, f.slot) in had_flag or _loop_ffma(prog, ins, f))
    kept = sum(1 for k in had_flag if k in flags)
    cleared = len(had_flag) - kept
    added = sum(1 for k in flags if k not in had_flag)
    data = bytearray(cubin)
    expected = {}
    for ins in prog.func.instructions:
        lo, hi = ins.lo, ins.hi
        flagged_operands = set()
        plan_owns = ins.base == "FFMA" and prog.in_loop(ins)  # loop FFMAs: the plan sets every flag
        for f in prog.fields[ins.offset]:
            if f.reg != RZ:
                lo, hi = set_bits(lo, hi, f.bit, rename(f.reg))
            key = (ins.offset, f.slot)
            if f.slot is not None and not f.written and (key in had_flag or key in flags or plan_owns):
                lo, hi = set_bits(lo, hi, REUSE_BIT_OF_SLOT[f.slot], int(key in flags), 1)
            if key in flags:
                flagged_operands.add(f.operand)
        put_instruction(data, text_offset, ins.offset, lo, hi)
        ops = tuple(renamed_operand(op.replace(".reuse", ""), rename) for op in ins.operands)
        expected[ins.offset] = (ops, frozenset(flagged_operands))
    return bytes(data), (kept, cleared, added), expected


def _verify(old: SassFunction, new: Optional[SassFunction], expected) -> None:
    if new is None or len(new.instructions) != len(old.instructions):
        raise SassPassRefused("the rewritten cubin does not disassemble to the same instructions")
    for a, b in zip(old.instructions, new.instructions):
        ops, flagged = expected[a.offset]
        got = tuple(op.replace(".reuse", "") for op in b.operands)
        got_flags = frozenset(k for k, op in enumerate(b.operands) if ".reuse" in op)
        if (b.opcode, b.predicate, got, got_flags) != (a.opcode, a.predicate, ops, flagged):
            raise SassPassRefused(f"rewrite check failed at /*{a.offset:04x}*/: {a.text!r} became {b.text!r}, "
                                  f"expected operands {', '.join(ops)} with .reuse on {sorted(flagged)}")


@functools.lru_cache(maxsize=None)
def code_digest() -> str:
    """A digest of the pass's own modules, so that a changed pass never meets a cached
    result of the old one (runtime/sass_stage.py keys its cache with it).  Read once a process, as
    sass_stage.STAGE_CODE: every compile with the pass asks for it."""
    import pathlib
    h = hashlib.sha256()
    here = pathlib.Path(__file__).parent
    for mod in ("bank_pass.py", "reorder.py", "scoreboards.py", "preload.py", "tile_end.py", "stores.py", "barrier.py", "fields.py", "banks.py", "disasm.py",
                "isa.py", "cubin.py"):
        h.update((here / mod).read_bytes())
    return h.hexdigest()[:16]
