"""SASS: disassemble a cubin with nvdisasm and parse it into instructions.

nvdisasm comes from the nvidia-cuda-nvdisasm wheel (or a CUDA toolkit); it needs no
GPU.  Each instruction keeps its 128-bit encoding (`-hex`), so later passes can
read register fields and reuse bits exactly as the hardware sees them.
"""
from __future__ import annotations

import collections
import hashlib
import os
import re
import subprocess
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import SassError
from .isa import control_text


def find_tool(name: str) -> Optional[str]:
    """A CUDA binary utility (nvdisasm, ...): cuda-pathfinder first (wheels, CUDA_HOME),
    then PATH."""
    import shutil
    try:
        from cuda.pathfinder import find_nvidia_binary_utility
        path = find_nvidia_binary_utility(name)
        if path:
            return path
    except Exception:  # older cuda-pathfinder without binary lookup
        pass
    return shutil.which(name)


_INSTR = re.compile(
    r"^\s*/\*(?P<off>[0-9a-f]{4,})\*/\s+(?P<body>.*?)\s*;\s*/\*\s*0x(?P<lo>[0-9a-f]{16})\s*\*/\s*$")
_HI = re.compile(r"^\s*/\*\s*0x(?P<hi>[0-9a-f]{16})\s*\*/\s*$")
_LABEL = re.compile(r"^(?P<name>\.L_x_\d+|[A-Za-z_][\w$.]*):\s*$")
_FUNC = re.compile(r"^\s*\.section\s+\.text\.(?P<name>[\w$.]+),")


@dataclass(frozen=True)
class Instruction:
    offset: int
    predicate: str  # "" or e.g. "@!P2"
    opcode: str  # with modifiers, e.g. "LDS.128", "FFMA"
    operands: Tuple[str, ...]  # as printed, ".reuse" kept
    lo: int  # low 64-bit word of the encoding
    hi: int  # high 64-bit word (scheduling controls, reuse bits)
    text: str

    @property
    def base(self) -> str:
        """Opcode without modifiers: FFMA, LDS, BRA, ..."""
        return self.opcode.split(".")[0]

    @property
    def modifiers(self) -> Tuple[str, ...]:
        return tuple(self.opcode.split(".")[1:])

    def branch_target(self) -> Optional[str]:
        m = re.search(r"`\((\.L_x_\d+)\)", self.text)
        return m.group(1) if m else None


@dataclass
class SassFunction:
    name: str
    instructions: List[Instruction] = field(default_factory=list)
    labels: Dict[str, int] = field(default_factory=dict)  # label -> offset

    def branch_sources(self) -> Dict[int, List[int]]:
        """{offset a branch lands at: [offsets of the branches that land there]}."""
        out: Dict[int, List[int]] = {}
        for ins in self.instructions:
            t = ins.branch_target()
            if t in self.labels:
                out.setdefault(self.labels[t], []).append(ins.offset)
        return out

    def main_loop(self) -> Tuple[int, int]:
        """(start, end) offsets of the innermost loop that holds the most FFMAs: the span
        from a label to the backward branch that returns to it, holding no other such
        span (a stream-K kernel's loop over work items holds the k loop and more FFMAs
        than it).  (0, 0) when the function has no loop."""
        loops = []
        for ins in self.instructions:
            if ins.base != "BRA":
                continue
            target = ins.branch_target()
            if target is None or target not in self.labels:
                continue
            start = self.labels[target]
            if start <= ins.offset:
                loops.append((start, ins.offset))
        inner = [(s, e) for s, e in loops
                 if not any((s, e) != (s2, e2) and s <= s2 and e2 <= e for s2, e2 in loops)]
        best, best_count = (0, 0), -1
        for start, end in inner:
            count = sum(1 for i in self.instructions if start <= i.offset <= end and i.base == "FFMA")
            if count > best_count:
                best, best_count = (start, end), count
        return best

    def loop_instructions(self) -> List[Instruction]:
        start, end = self.main_loop()
        if (start, end) == (0, 0):
            return []
        return [i for i in self.instructions if start <= i.offset <= end]


def parse(text: str) -> Dict[str, SassFunction]:
    """Parse `nvdisasm -c -hex` output into functions."""
    funcs: Dict[str, SassFunction] = {}
    cur: Optional[SassFunction] = None
    pending: Optional[Tuple[int, str, str]] = None
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            cur = funcs.setdefault(m.group("name"), SassFunction(m.group("name")))
            continue
        if cur is None:
            continue
        m = _INSTR.match(line)
        if m:
            pending = (int(m.group("off"), 16), m.group("body"), m.group("lo"))
            continue
        m = _HI.match(line)
        if m and pending is not None:
            off, body, lo = pending
            pending = None
            cur.instructions.append(_make_instruction(off, body, int(lo, 16), int(m.group("hi"), 16)))
            continue
        m = _LABEL.match(line.strip())
        if m:
            # a label belongs to the next instruction's offset
            nxt = cur.instructions[-1].offset + 16 if cur.instructions else 0
            cur.labels[m.group("name")] = nxt
    return funcs


def _make_instruction(off: int, body: str, lo: int, hi: int) -> Instruction:
    pred = ""
    body = re.sub(r"\s*\(\*.*\*\)\s*$", "", body.strip())  # nvdisasm's notes, e.g. (*"SpillRefill"*)
    if body.startswith("@"):
        pred, body = body.split(None, 1)
    parts = body.split(None, 1)
    opcode = parts[0]
    operands: Tuple[str, ...] = ()
    if len(parts) > 1:
        operands = tuple(split_operands(parts[1]))
    return Instruction(off, pred, opcode, operands, lo, hi, body)


def split_operands(s: str, opening: str = "[(", closing: str = "])") -> List[str]:
    """Split an operand list at the commas outside brackets, each operand stripped.
    SASS groups with [] and (); PTX (tests/codegen/ptx_sim.py) with {} and []."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


# nvdisasm's dataflow analysis only annotates jumps through the branch stack with inferred targets; the kernels here
# have none (the SASS pass refuses calls and indirect branches).  Without it nvdisasm printed the same text for all 186
# cubins of the family in NN, TN and NT, before and after the SASS pass, in 22% less time (session 40: 65 s against 84
# s on the CPU machine; the pass disassembles each cubin it checks, 7 for 4096^3's plan).  tests/sass/test_sass_pass.py
# checks the two texts agree.
NVDISASM_FAST = ("-ndf",)
_DISASSEMBLED: "collections.OrderedDict[bytes, str]" = collections.OrderedDict()
_DISASSEMBLED_MAX = 64  # nvdisasm takes about half a second a kernel: do not ask twice for one cubin


_DISASSEMBLED_LOCK = threading.Lock()  # the SASS stage rewrites a module's kernels in threads (runtime/sass_stage.py)
_IN_FLIGHT: Dict[bytes, threading.Event] = {}  # cubins being disassembled: a second thread waits for the first's text


def disassemble(cubin: bytes) -> str:
    """nvdisasm's text of the cubin, remembered for the last _DISASSEMBLED_MAX cubins.  Threads asking for one cubin
    at once (the SASS stage's two passes start on the same cubin) run nvdisasm once; different cubins' runs overlap."""
    key = hashlib.sha256(cubin).digest()
    while True:
        with _DISASSEMBLED_LOCK:
            text = _DISASSEMBLED.get(key)
            if text is not None:
                _DISASSEMBLED.move_to_end(key)
                return text
            running = _IN_FLIGHT.get(key)
            if running is None:
                running = _IN_FLIGHT[key] = threading.Event()
                break
        running.wait()  # then the text is remembered, or that run failed and this thread runs nvdisasm itself
    try:
        text = _nvdisasm(cubin)  # outside the lock
        with _DISASSEMBLED_LOCK:
            _DISASSEMBLED[key] = text
            while len(_DISASSEMBLED) > _DISASSEMBLED_MAX:
                _DISASSEMBLED.popitem(last=False)
        return text
    finally:
        with _DISASSEMBLED_LOCK:
            del _IN_FLIGHT[key]
        running.set()


def _nvdisasm(cubin: bytes) -> str:
    tool = find_tool("nvdisasm")
    if tool is None:
        raise SassError("nvdisasm not found: install the nvidia-cuda-nvdisasm wheel or a CUDA toolkit")
    fd, path = tempfile.mkstemp(suffix=".cubin")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(cubin)
        res = subprocess.run([tool, "-c", "-hex", *NVDISASM_FAST, path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    if res.returncode != 0:
        raise SassError(f"nvdisasm failed ({res.returncode}): {res.stderr.strip()}")
    return res.stdout


def function_of(cubin: bytes, name: str) -> Tuple[str, SassFunction]:
    """(disassembly text, parsed function `name`)."""
    text = disassemble(cubin)
    funcs = parse(text)
    if name not in funcs:
        raise SassError(f"no function {name!r} in the cubin (found {sorted(funcs)})")
    return text, funcs[name]


def listing(instrs: Sequence[Instruction]) -> str:
    """One line an instruction: its offset, its control code in CuAssembler's notation (isa.control_text:
    scoreboards waited on, read and write scoreboards, yield, stall) and its text with the predicate."""
    return "\n".join(f"/*{i.offset:04x}*/ {control_text(i.hi)} {i.predicate + ' ' if i.predicate else ''}{i.text}"
                     for i in instrs)


def _width(ins: Instruction) -> int:
    for mod in ins.modifiers:
        if mod in ("64", "128", "U8", "S8", "U16", "S16"):
            return {"64": 64, "128": 128, "U8": 8, "S8": 8, "U16": 16, "S16": 16}[mod]
    return 32


def instruction_mix(instrs: Sequence[Instruction]) -> Dict[str, int]:
    """Counts of the instructions that shape an SGEMM loop: FFMA; LDS, STS, LDG and
    LDSM by width (e.g. 'LDS.128'); BAR; local-memory traffic (LDL/STL, spills).  Instructions
    predicated on !PT never run and are left out (ptxas puts `@!PT LDS RZ, [RZ]` before
    LDGSTS: three before each of the fused kernel's lean copies)."""
    mix: Counter = Counter()
    for ins in instrs:
        if ins.predicate == "@!PT":
            continue
        b = ins.base
        if b in ("FFMA", "FMUL", "FADD", "BAR", "LDL", "STL", "LDGSTS", "LDSM"):
            mix[b] += 1
        elif b in ("LDS", "STS", "LDG", "STG"):
            mix[f"{b}.{_width(ins)}"] += 1
    return dict(sorted(mix.items()))
