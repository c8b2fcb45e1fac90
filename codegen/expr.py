"""Integer index expressions that are either evaluated or printed as C.

Every index function of the generator (thread mapping, shared-memory addresses,
global offsets) is written once, in plain Python arithmetic.  Called with ints it
returns the number (the bank-conflict analysis does that for all 32 lanes); called
with `Sym` values it returns an expression that the emitter prints into the
kernel.  So the analysis and the kernel cannot disagree about an address.

Only non-negative integers flow through these functions, so C's `/` and `%` on
`int` agree with Python's `//` and `%`.
"""
from __future__ import annotations

import operator
from typing import Union

IntLike = Union[int, "Sym"]
# C's operators on constants (non-negative: `/` and `%` agree with Python's // and %)
_FOLD = {"+": operator.add, "*": operator.mul, "/": operator.floordiv, "%": operator.mod}


def _wrap(x: IntLike) -> "Sym":
    return x if isinstance(x, Sym) else Sym(str(int(x)), const=int(x))


class Sym:
    """A C integer expression, with constant folding and the identities that keep
    the printed index readable (x*1, x+0, x*0, x/1, x%1)."""

    __slots__ = ("text", "const", "atom")

    def __init__(self, text: str, const: int | None = None, atom: bool = True):
        self.text = text
        self.const = const
        self.atom = atom

    def __repr__(self) -> str:
        return f"Sym({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def _paren(self) -> str:
        return self.text if self.atom else f"({self.text})"

    @staticmethod
    def _bin(a: IntLike, op: str, b: IntLike) -> IntLike:
        if op not in _FOLD:
            raise ValueError(op)
        a, b = _wrap(a), _wrap(b)
        if a.const is not None and b.const is not None:
            return _FOLD[op](a.const, b.const)
        if op == "+":
            if a.const == 0 or b.const == 0:
                return b if a.const == 0 else a
            return Sym(f"{a.text} + {b.text}", atom=False)
        if (op == "*" and (a.const == 0 or b.const == 0)) or (op == "%" and b.const == 1):
            return 0  # x*0, 0*x, x%1
        if op in "*/" and b.const == 1:
            return a  # x*1, x/1
        if op == "*" and a.const == 1:
            return b  # 1*x
        return Sym(f"{a._paren()} {op} {b._paren()}", atom=False)

    def __add__(self, o): return Sym._bin(self, "+", o)
    def __radd__(self, o): return Sym._bin(o, "+", self)
    def __mul__(self, o): return Sym._bin(self, "*", o)
    def __rmul__(self, o): return Sym._bin(o, "*", self)
    def __floordiv__(self, o): return Sym._bin(self, "/", o)
    def __rfloordiv__(self, o): return Sym._bin(o, "/", self)
    def __mod__(self, o): return Sym._bin(self, "%", o)
    def __rmod__(self, o): return Sym._bin(o, "%", self)


def c_expr(x: IntLike) -> str:
    """The C text of an index expression (an int prints as itself)."""
    return str(x) if isinstance(x, Sym) else str(int(x))
