"""The read-scoreboard step of the SASS pass (sm_90): the main loop's global loads take their
write scoreboard as their read scoreboard, so that the loop's FFMAs stop waiting for them.

Why.  ptxas gives every LDG a read scoreboard, which keeps its address registers from being
overwritten before the load has read them, and shares it with the fragment loads of the loop
(LDG ... W5 R0 beside LDS.128 ... W0): the first FFMA of a k-tile waits on that scoreboard for
its fragments, and so also until every global load of the tile has left the load queue.  With
one LDG.128 per operand that wait is short.  The unaligned-rows kernel issues 12 LDG.32s a
k-tile, and on 4099x4093x4091 its first FFMA held 2.45% of the stall samples, against 0.1% for
the aligned kernel (ncu source page, docs/data/session17/d_369a3a1).

Hardware model (the control code, sass/isa.py): 6 scoreboards per warp, each a counter of
outstanding events.  An instruction raises its write scoreboard at issue, released when its
result is written, and its read scoreboard, released when its source registers have been read;
an instruction that waits on a scoreboard issues only when that counter is 0.  A counter holds
at least 63 events (DEPBAR.LE counts 0-63), and ptxas itself gives one instruction the same
scoreboard for both (LDS.128 ... W0 R0 in these kernels' own loops).  The read scoreboard
guards the instruction's general source registers against being overwritten before they are
read (write after read).  Not its guard predicate nor its uniform registers, read at issue: ptxas
follows @P6 LDG ... with ISETP ... P6 at once, and STS [R179+UR11], R52 (read scoreboard 1) with
a ULOP3 that writes UR11 on a path without a wait on 1 (these kernels' own loops).

The step.  The loads: the LDGs of the main loop whose read scoreboard is not their write
scoreboard (nor their destination their address).  The candidates: the scoreboards that no
global or local memory instruction of the loop writes (waiting on them never means waiting
for memory).  For each candidate s, all the loads release their read on s (they are one
k-tile's copies, issued together), and every path from each load (fall-through, branch
targets, the loop's back edge) is followed to the first instruction that waits on s; an
instruction reached before it that overwrites one of the load's source registers gets s added
to its wait mask.  Instructions that waited on a load's old read scoreboard still do, for
whatever else it counts.  The step keeps the candidate whose nearest waits after the loads are the
farthest (their sum, then the least), if that is farther than ptxas's, and whose events on a
path since its last wait stay within MAX_EVENTS (or ptxas's own most).  Only the read
scoreboards and wait masks change (checked on the bytes written): nvdisasm prints the same
instructions before and after.  A second application changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..errors import SassError
from . import cubin as cubin_info
from .disasm import SassFunction
from .fields import first_encoding_mismatch, put_instruction
from .isa import (NO_SCOREBOARD, READ_SB_MASK_HI, SCOREBOARDS, WAIT_MASK_HI, read_scoreboard, wait_mask,
                  with_read_scoreboard, with_wait, write_scoreboard)
from .reorder import PATH_BREAKERS, Cfg

STEP_BITS_HI = READ_SB_MASK_HI | WAIT_MASK_HI  # the control bits the step may change
MAX_EVENTS = 32  # per scoreboard along any path since its last wait: half the counter's 63
# Global and local memory: a wait on their write scoreboard can mean a wait for memory.  Of the opcodes the pass
# accepts (fields.KNOWN_OPCODES; it refuses a kernel holding any other, atomics and cp.async included).
LONG_LATENCY = frozenset({"LDG", "LDL", "STG", "STL"})


@dataclass
class ScoreboardReport:
    kernel: str
    loads: List[str] = field(default_factory=list)  # "/*off*/ LDG ...: R<r> -> R<w>"
    waits_added: List[str] = field(default_factory=list)  # "/*off*/ INSTR: waits on <w>"
    most_events: Dict[int, int] = field(default_factory=dict)  # scoreboard -> most events on a path
    nearest_wait: Dict[str, list] = field(default_factory=dict)  # before/after: [sum, fewest] instructions
    unchanged: Optional[str] = None  # why the step changed nothing, where it did not

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "loads_moved": len(self.loads), "waits_added": len(self.waits_added),
                "loads": self.loads, "waits": self.waits_added,
                "most_events": {str(k): v for k, v in sorted(self.most_events.items())},
                "nearest_wait": self.nearest_wait, "unchanged": self.unchanged}


class _Controls:
    """The scoreboard fields of every instruction, as the step edits them."""

    def __init__(self, his: List[int]):
        self.his = list(his)
        self.wb = [write_scoreboard(h) for h in his]
        self.rb = [read_scoreboard(h) for h in his]
        self.wait = [wait_mask(h) for h in his]

    def copy(self) -> "_Controls":
        c = _Controls.__new__(_Controls)
        c.his, c.wb, c.rb, c.wait = list(self.his), list(self.wb), list(self.rb), list(self.wait)
        return c

    def set_read(self, k: int, sb: int) -> None:
        self.his[k] = with_read_scoreboard(self.his[k], sb)
        self.rb[k] = sb

    def add_wait(self, k: int, sb: int) -> None:
        self.his[k] = with_wait(self.his[k], sb)
        self.wait[k] |= 1 << sb

    def most_events(self, cfg: Cfg, sb: int) -> Optional[int]:
        """The most events scoreboard `sb` can hold after any instruction, counted along paths
        from its last wait; None where a cycle raises it without waiting (no bound)."""
        raises = [(w == sb) + (r == sb) for w, r in zip(self.wb, self.rb)]
        resets = [bool(m >> sb & 1) for m in self.wait]
        value = list(raises)
        work = [k for k, n in enumerate(raises) if n]
        while work:
            k = work.pop()
            for j in cfg.succ[k]:
                v = (0 if resets[j] else value[k]) + raises[j]
                if v > value[j]:
                    if v > 2 * MAX_EVENTS:  # grows around a cycle, or past any sane count
                        return None
                    value[j] = v
                    work.append(j)
        return max(value)


def _long_scoreboards(instrs, start: int, end: int) -> set:
    """Scoreboards that some global or local memory instruction of the loop writes: waiting
    on one of them can mean waiting for memory."""
    return {write_scoreboard(i.hi) for i in instrs
            if start <= i.offset <= end and i.base in LONG_LATENCY} - {NO_SCOREBOARD}


def _route(cfg: Cfg, ctl: _Controls, k: int, sb: int) -> Tuple[int, List[int]]:
    """If load k's read went to scoreboard `sb`: (the fewest instructions on any path from it
    to one that waits on sb, counting the waits the step must add; a large number where no
    path waits), [the instructions that must start waiting on sb: the first writers of the
    load's source registers on paths that reach them before a wait on sb]."""
    addr = cfg.reads[k]
    nearest, added = 1 << 30, []
    seen = set()
    frontier = [(j, 1) for j in cfg.succ[k]]
    while frontier:  # breadth first: the first visit of an instruction is its fewest steps
        nxt = []
        for j, d in frontier:
            if j in seen:
                continue
            seen.add(j)
            if ctl.wait[j] >> sb & 1:
                nearest = min(nearest, d)
                continue
            if cfg.writes[j] & addr:
                nearest = min(nearest, d)
                added.append(j)
                continue
            nxt.extend((s, d + 1) for s in cfg.succ[j])
        frontier = nxt
    return nearest, added


def separate_load_reads(cubin: bytes, func: SassFunction, fields=None) -> Tuple[bytes, ScoreboardReport]:
    """(cubin, report): the step above on kernel `func` (parsed from `cubin`; `fields`: its
    sass.fields.locate_all, where known).  The cubin comes back unchanged where the step does
    not apply."""
    name = func.name
    report = ScoreboardReport(name)
    instrs = func.instructions
    start, end = func.main_loop()
    if (start, end) == (0, 0):
        report.unchanged = "no main loop"
        return cubin, report
    if any(ins.base in PATH_BREAKERS for ins in instrs):
        report.unchanged = "calls or indirect branches: paths not known"
        return cubin, report
    text_offset, _ = cubin_info.text_section(cubin, name)
    bad = first_encoding_mismatch(cubin, text_offset, func)
    if bad is not None:
        raise SassError(f"/*{bad.offset:04x}*/ {bad.text}: nvdisasm's encoding differs from the cubin's bytes")
    cfg = Cfg(instrs, func.labels, fields)
    ctl = _Controls([ins.hi for ins in instrs])
    short = [sb for sb in range(SCOREBOARDS) if sb not in _long_scoreboards(instrs, start, end)]
    loads = [k for k, ins in enumerate(instrs)
             if start <= ins.offset <= end and ins.base == "LDG" and NO_SCOREBOARD not in (ctl.rb[k], ctl.wb[k])
             and ctl.rb[k] != ctl.wb[k] and not cfg.writes[k] & cfg.reads[k]]

    def nearest(c: _Controls) -> List[int]:
        """The nearest wait on each load's read scoreboard, in instructions from it."""
        return [_route(cfg, c, k, c.rb[k])[0] for k in loads]

    if not loads:
        report.unchanged = "no global load in the main loop with a read scoreboard of its own"
        return cubin, report
    ptxas = nearest(ctl)
    best, best_score, best_added = None, (sum(ptxas), min(ptxas)), []
    for sb in short:  # every load to one scoreboard: they are a k-tile's copies, issued together
        trial, added = ctl.copy(), []
        for k in loads:
            trial.set_read(k, sb)
        for k in loads:
            for j in _route(cfg, trial, k, sb)[1]:
                trial.add_wait(j, sb)
                added.append((k, j))
        bound = trial.most_events(cfg, sb)
        if bound is None or bound > max(MAX_EVENTS, ctl.most_events(cfg, sb) or 0):
            continue
        now = nearest(trial)
        if any(a < b for a, b in zip(now, ptxas)):
            continue  # one load's read waited on sooner: a wait there now waits for every load's read
        s = (sum(now), min(now))
        if s > best_score:
            best, best_score, best_added = (sb, trial), s, added
    if best is not None:
        sb, new_ctl = best
        for k in loads:
            if new_ctl.rb[k] != ctl.rb[k]:
                report.loads.append(f"/*{instrs[k].offset:04x}*/ {instrs[k].text}: R{ctl.rb[k]} -> R{sb}")
        report.waits_added = [f"/*{instrs[j].offset:04x}*/ {instrs[j].text}: waits on {sb}" for _, j in best_added]
        report.nearest_wait = {"before": [sum(ptxas), min(ptxas)], "after": list(best_score)}
        ctl = new_ctl
    if not report.loads:
        report.unchanged = "no other scoreboard is waited on later than ptxas's after these loads"
        return cubin, report
    report.most_events = {sb: c for sb in range(SCOREBOARDS) if (c := ctl.most_events(cfg, sb)) is not None}
    data = bytearray(cubin)
    for ins, hi in zip(instrs, ctl.his):
        if hi != ins.hi:
            if (hi ^ ins.hi) & ~STEP_BITS_HI:
                raise SassError(f"/*{ins.offset:04x}*/ {ins.text}: the read-scoreboard step would change more "
                                f"than the read scoreboard and wait mask")
            put_instruction(data, text_offset, ins.offset, ins.lo, hi)
    return bytes(data), report
