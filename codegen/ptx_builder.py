"""The PTX backend's instruction builder and its integer symbols (codegen/emit_ptx.py).

Builder collects a kernel body's lines, register declarations and labels; PVal is a
non-negative 32-bit integer `register + constant` that mapping.py's index functions combine
like ints, emitting the PTX integer arithmetic as they go.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from .expr import IntLike

ZERO = "0f00000000"
NEG_ZERO = "0f80000000"


# ---- the instruction builder and its integer symbols --------------------------------
class Builder:
    """PTX lines, register declarations and labels of one kernel body."""

    def __init__(self):
        self.lines: List[str] = []
        self.decls: Dict[str, str] = {}  # register -> PTX type, in declaration order
        self.counts: Dict[str, int] = {}
        self.memo: Optional[Dict[tuple, str]] = None  # CSE of integer ops (entry block only)
        self.labels = 0

    TEMP_PREFIX = {".pred": "%p", ".b32": "%r", ".b64": "%rd"}

    def declare(self, name: str, typ: str) -> str:
        if self.decls.setdefault(name, typ) != typ:
            raise ValueError(f"register {name} declared as {self.decls[name]} and {typ}")
        return name

    def temp(self, typ: str) -> str:
        """A numbered temporary (%p<n>, %r<n>, %rd<n>), declared as a range at the end."""
        n = self.counts.get(typ, 0)
        self.counts[typ] = n + 1
        return f"{self.TEMP_PREFIX[typ]}{n}"

    def declarations(self, groups) -> List[str]:
        """`.reg` lines: each group (comment, names) of named registers, then the
        remaining named registers by type, then the temporaries' ranges."""
        out, done = [], set()
        for comment, names in groups:
            out.append(f"\t// {comment}")
            for row in names:
                out.append(f"\t.reg {self.decls[row[0]]} {', '.join(row)};")
                done.update(row)
        out.append("\t// kernel state")
        for typ in (".pred", ".b32", ".b64", ".f32"):
            names = [n for n, t in self.decls.items() if t == typ and n not in done]
            for k in range(0, len(names), 10):
                out.append(f"\t.reg {typ} {', '.join(names[k:k + 10])};")
        out.append("\t// temporaries")
        for typ, n in self.counts.items():
            out.append(f"\t.reg {typ} {self.TEMP_PREFIX[typ]}<{n}>;")
        return out

    def emit(self, text: str, comment: str = "") -> None:
        self.lines.append(f"\t{text}" + (f"  // {comment}" if comment else ""))

    def comment(self, text: str) -> None:
        self.lines.append(f"\t// {text}")

    def label(self, stem: str) -> str:
        self.labels += 1
        return f"$L_{stem}_{self.labels}"

    def place(self, label: str) -> None:
        self.lines.append(f"{label}:")

    def op(self, opcode: str, *srcs, typ: str = ".b32") -> str:
        """dst = opcode srcs, in a fresh register; common subexpressions reused while
        memo is on (the entry block, which dominates every later use)."""
        key = (opcode, srcs)
        if self.memo is not None and key in self.memo:
            return self.memo[key]
        dst = self.temp(typ)
        self.emit(f"{opcode} {dst}, {', '.join(str(s) for s in srcs)};")
        if self.memo is not None:
            self.memo[key] = dst
        return dst


def _pow2(k: int) -> bool:
    return k > 0 and k & (k - 1) == 0


class PVal:
    """A non-negative 32-bit integer `reg + const` in PTX.  Index functions of
    mapping.py combine these like ints; each operation emits what it needs
    (mul.lo/shl, div/shr, rem/and, add) and constants stay folded, so an offset
    reaches the memory instruction as register + immediate."""

    __slots__ = ("b", "reg", "const")

    def __init__(self, b: Builder, reg: Optional[str], const: int = 0):
        self.b, self.reg, self.const = b, reg, const

    def __repr__(self):
        return f"PVal({self.reg} + {self.const})"

    def materialize(self) -> str:
        if self.reg is None:
            return self.b.op("mov.b32", self.const)
        return self.reg if self.const == 0 else self.b.op("add.s32", self.reg, self.const)

    @staticmethod
    def _make(b, reg, const) -> IntLike:
        return const if reg is None else PVal(b, reg, const)

    def _other(self, o):
        if isinstance(o, PVal):
            return o
        if isinstance(o, int) and not isinstance(o, bool):
            return PVal(self.b, None, o)
        return NotImplemented

    def __add__(self, o):
        o = self._other(o)
        if o is NotImplemented:
            return o
        if self.reg is None or o.reg is None:
            return PVal._make(self.b, self.reg or o.reg, self.const + o.const)
        return PVal(self.b, self.b.op("add.s32", self.reg, o.reg), self.const + o.const)

    __radd__ = __add__

    def __mul__(self, o):
        if isinstance(o, PVal):
            if o.reg is None:
                return self * o.const
            if self.reg is None:
                return o * self.const
            return PVal(self.b, self.b.op("mul.lo.s32", self.materialize(), o.materialize()))
        if not isinstance(o, int) or isinstance(o, bool):
            return NotImplemented
        if o == 0:
            return 0
        if o == 1 or self.reg is None:
            return PVal._make(self.b, self.reg, self.const * o) if o != 1 else self
        reg = self.b.op("shl.b32", self.reg, o.bit_length() - 1) if _pow2(o) else self.b.op("mul.lo.s32", self.reg, o)
        return PVal(self.b, reg, self.const * o)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        if not isinstance(o, int) or isinstance(o, bool) or o < 1:
            return NotImplemented
        if o == 1:
            return self
        if self.reg is None:
            return self.const // o
        # (r + c) // k == r // k + c // k for r >= 0 when k divides c
        reg, c = (self.reg, self.const) if self.const % o == 0 else (self.materialize(), 0)
        out = self.b.op("shr.u32", reg, o.bit_length() - 1) if _pow2(o) else self.b.op("div.u32", reg, o)
        return PVal(self.b, out, c // o)

    def __mod__(self, o):
        if not isinstance(o, int) or isinstance(o, bool) or o < 1:
            return NotImplemented
        if o == 1:
            return 0
        if self.reg is None:
            return self.const % o
        reg = self.reg if self.const % o == 0 else self.materialize()
        return PVal(self.b, self.b.op("and.b32", reg, o - 1) if _pow2(o) else self.b.op("rem.u32", reg, o))


def _split(x: IntLike) -> Tuple[Optional[str], int]:
    """(register or None, constant) of an index value."""
    return (x.reg, x.const) if isinstance(x, PVal) else (None, int(x))


def _addr(reg: str, imm: int) -> str:
    return f"[{reg}+{imm}]" if imm > 0 else f"[{reg}-{-imm}]" if imm < 0 else f"[{reg}]"


def _r(name: str) -> str:
    """The PTX register of a register-plan name."""
    return f"%{name}"
