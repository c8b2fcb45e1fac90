"""Where the register operands of an sm_90 instruction sit in its 128-bit encoding.

The SASS register-bank pass (sass/bank_pass.py) renames registers inside a cubin.
To do that it must know, for every instruction of the kernel, which bits hold each
register operand and how many consecutive registers that operand names.  Two kinds
of knowledge, kept apart:

Fields (found, then proven).  On sm_70+ encodings a register operand sits in one of
four 8-bit fields of the 128-bit instruction (bits counted over lo | hi << 64; sass/isa.py):
  16  Rd  the destination
  24  Ra  source slot a
  32  Rb  source slot b
  64  Rc  source slot c
(the same positions lab/regbank_calib and the notes use for FFMA).  For each instruction
`locate()` matches the registers nvdisasm prints, in order, to fields in increasing
order whose byte holds that register number; an instruction whose registers cannot be
matched, or whose match is ambiguous for a register other than RZ, is refused.
`prove()` then rewrites every register field of every instruction to a shifted
register number, disassembles the result with nvdisasm and requires each
instruction to print exactly the operands expected: a wrong field is caught before
any rename is trusted.

Widths (declared).  How many registers an operand names cannot be read off the text:
LDG.E.128 R4 writes R4..R7, IMAD.WIDE R2 writes R2:R3.  KNOWN_OPCODES lists the
opcodes whose operand widths this module knows (`width()`); a kernel holding any
other opcode that names a register is refused with that instruction.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..errors import SassError
from .disasm import Instruction, SassFunction, parse, disassemble
from .isa import FIELD_BITS, RA_BIT, RB_BIT, RC_BIT, RD_BIT, REUSE_BIT_OF_SLOT, RZ, SLOT_OF_FIELD, field, set_bits

__all__ = ["RZ", "FIELD_BITS", "SLOT_OF_FIELD", "REUSE_BIT_OF_SLOT", "KNOWN_OPCODES", "UnknownForm", "RegField",
           "field_value", "text_registers", "width", "locate", "locate_all", "set_bits", "renamed_operand", "prove",
           "put_instruction", "instruction_bytes", "first_encoding_mismatch", "registers_of"]

# A general register in operand text: R7, RZ, -R7, |R7|, R7.reuse, [R28.64], [R3+UR4+0x10].
# Not UR7 / SR_TID.X / SRZ / PR (the letter before R excludes them).
_REG_IN_TEXT = re.compile(r"(?<![A-Za-z_])R(\d+|Z)(?![A-Za-z_\d])")

# Opcodes (without modifiers) whose register operands this module knows, and the rule
# for their widths (see width()).  Uniform-datapath (U*) and control instructions name
# no general register; they are listed so that a kernel holding them is accepted.
_MEMORY_LOADS = {"LDG", "LDS", "LDC", "LDL"}
_MEMORY_STORES = {"STG", "STS", "STL"}
KNOWN_OPCODES = frozenset({
    # FP32 / integer ALU: every register operand is one 32-bit register
    "FFMA", "FMUL", "FADD", "FSEL", "FSETP", "FMNMX", "HFMA2", "IMAD", "IADD3", "VIADD", "ISETP",
    "LEA", "LOP3", "SHF", "SEL", "IABS", "IMNMX", "VIMNMX", "VIADDMNMX", "MOV", "I2F", "F2I", "MUFU", "P2R", "R2P", "S2R",
    "CS2R", "R2UR", "PRMT", "POPC", "FLO", "BREV",
    # memory: widths from the .64/.128 modifier and the .64 address form
    *_MEMORY_LOADS, *_MEMORY_STORES,
    # no general registers
    "BAR", "BRA", "BSSY", "BSYNC", "BREAK", "EXIT", "NOP", "PLOP3", "WARPSYNC", "VOTEU", "S2UR",
    "ULDC", "UIADD3", "UIMAD", "UISETP", "ULEA", "ULOP3", "UMOV", "UPLOP3", "USHF", "USEL",
})


class UnknownForm(ValueError, SassError):
    """An instruction the register fields or widths of which are not known."""

    def __init__(self, ins: Instruction, why: str):
        self.instruction = ins
        super().__init__(f"/*{ins.offset:04x}*/ {ins.predicate + ' ' if ins.predicate else ''}{ins.text}: {why}")


@dataclass(frozen=True)
class RegField:
    operand: int  # index into Instruction.operands
    bit: int  # field offset in lo | hi << 64 (16, 24, 32 or 64)
    reg: int  # register number; RZ = 255
    count: int  # consecutive registers the operand names (1, 2 or 4)
    written: bool  # the destination field
    slot: Optional[str] = None  # source slot a/b/c (reuse cache and its flag); None for the destination

    def registers(self) -> range:
        return range(self.reg, self.reg + self.count) if self.reg != RZ else range(0)


def registers_of(fields: Sequence[RegField], written: bool) -> Set[int]:
    """The general registers an instruction's fields (locate's) write (written) or read; RZ is none."""
    return {r for f in fields if f.written == written for r in f.registers()}


def field_value(ins: Instruction, bit: int) -> int:
    return field(ins.lo, ins.hi, bit)


def text_registers(operand: str) -> List[int]:
    return [RZ if m.group(1) == "Z" else int(m.group(1)) for m in _REG_IN_TEXT.finditer(operand)]


def _width_modifier(ins: Instruction) -> int:
    mods = ins.modifiers
    return 4 if "128" in mods else 2 if "64" in mods else 1


def width(ins: Instruction, operand: str, bit: int, index: int = -1) -> int:
    """Registers named by operand number `index` (as printed), at field `bit`, of `ins`."""
    base = ins.base
    if "[" in operand:  # a memory address: a 64-bit pair when printed R.64
        return 2 if re.search(r"R\d+\.64", operand) else 1
    if base in _MEMORY_LOADS and bit == RD_BIT:
        return _width_modifier(ins)
    if base in _MEMORY_STORES and bit == RB_BIT:
        return _width_modifier(ins)
    if base == "CS2R" and bit == RD_BIT:
        return 1 if "32" in ins.modifiers else 2
    if base == "IMAD" and "WIDE" in ins.modifiers and index in (0, 3):
        return 2  # 64-bit result and 64-bit addend (printed last; a uniform addend moves the
        #           register printed before it into the c field, still 32 bits)
    if base == "IMAD" and "HI" in ins.modifiers and index == 3:
        # The addend is a 64-bit pair although nvdisasm prints one register: ptxas's unsigned
        # division step `IMAD.HI.U32 R3, R3, R7, R2` with R2 = 0 computes R3 + umulhi(R3, R7)
        # through the pair R2:R3.  Session 12 on the H100: moving R3 alone made the vec4 kernel
        # wrong (docs/sass-pass.md, "IMAD.HI reads a register pair").
        return 2
    if base in ("I2F", "F2I") and any("64" in m for m in ins.modifiers):
        raise UnknownForm(ins, "a 64-bit conversion names register pairs the pass does not model")
    return 1


def locate(ins: Instruction) -> Tuple[RegField, ...]:
    """The register fields of `ins`, matched to the operands nvdisasm printed.  Remembered by the instruction's form
    (opcode, operands, encoding; not its offset): the pass locates every instruction of a kernel after each of its
    reorderings (sass/bank_pass.py's plan), the same instructions at new offsets; and by the table of known opcodes
    it was located under (a test or lab experiment may swap KNOWN_OPCODES).  A refusal is not remembered, so its
    message names the instruction at hand."""
    try:
        return _located(ins.opcode, ins.operands, ins.lo, ins.hi, KNOWN_OPCODES)
    except UnknownForm:
        return _locate(ins)  # raises again, naming `ins`


@functools.lru_cache(maxsize=1 << 16)
def _located(opcode: str, operands: Tuple[str, ...], lo: int, hi: int, known: frozenset) -> Tuple[RegField, ...]:
    return _locate(Instruction(0, "", opcode, operands, lo, hi, opcode))  # (under `known`, KNOWN_OPCODES now)


def _locate(ins: Instruction) -> Tuple[RegField, ...]:
    occurrences: List[Tuple[int, int, str]] = []  # (operand index, register, operand text)
    for k, op in enumerate(ins.operands):
        regs = text_registers(op)
        if len(regs) > 1:
            raise UnknownForm(ins, f"operand {op!r} names {len(regs)} general registers")
        if regs:
            occurrences.append((k, regs[0], op))
    if not occurrences:
        return ()
    if ins.base not in KNOWN_OPCODES:
        raise UnknownForm(ins, f"opcode {ins.base} is not in the pass's table of known forms "
                               "(sass/fields.py KNOWN_OPCODES): its operand widths are unknown")
    regs = [r for _, r, _ in occurrences]
    canon, slots = _canonical(ins, [k for k, _, _ in occurrences])
    if canon is not None and all(field_value(ins, b) == r for b, r in zip(canon, regs)):
        bits = canon
    else:
        solutions = _matches(ins, regs, 0, 0)
        if not solutions:
            raise UnknownForm(ins, "its registers are not in the Rd/Ra/Rb/Rc fields (bits 16/24/32/64) in order")
        # Several field sequences may fit (an unused field, or an immediate's low byte, can hold
        # the same number); harmless only where the ambiguity is an RZ.
        for i, (_, reg, op) in enumerate(occurrences):
            if reg != RZ and len({s[i] for s in solutions}) > 1:
                raise UnknownForm(ins, f"register {op!r} fits more than one field")
        bits = solutions[0]
        slots = tuple(SLOT_OF_FIELD.get(b) for b in bits)
    out = tuple(RegField(k, bit, reg, width(ins, op, bit, k), bit == RD_BIT,
                         None if bit == RD_BIT else slot)
                for (k, reg, op), bit, slot in zip(occurrences, bits, slots))
    for f in out:
        if f.count > 1 and f.reg != RZ and f.reg % f.count:
            raise UnknownForm(ins, f"operand {ins.operands[f.operand]!r} would name {f.count} registers from an "
                                   f"unaligned R{f.reg}: the width rule does not fit this form")
    return out


# Opcodes that write no general register: their first register operand is a source.
_NO_REGISTER_DEST = {"ISETP", "FSETP", *_MEMORY_STORES}
_PREDICATE = re.compile(r"^!?U?P(\d+|T)$|^PR$")
# One-source opcodes read that source through slot b.
_UNARY = {"MOV", "MUFU", "IABS", "F2I", "I2F", "POPC", "FLO", "BREV"}
_UNIFORM_OR_CONST = re.compile(r"^-?\|?(UR(\d+|Z)|c\[)")


def _canonical(ins: Instruction, reg_operands: Sequence[int]):
    """The usual layout: the destination register in Rd, then the source operands in
    slots a, b, c (an immediate, constant or uniform register takes its slot, a
    predicate takes none).  (fields, slots) of the register operands; (None, None) when
    the operands do not follow it."""
    ops = ins.operands
    slots = iter((RB_BIT,) if ins.base in _UNARY else (RA_BIT, RB_BIT, RC_BIT))
    field_of: Dict[int, int] = {}
    slot_of: Dict[int, int] = {}
    dest_pending = ins.base not in _NO_REGISTER_DEST
    for k, op in enumerate(ops):
        if _PREDICATE.match(op.replace(".reuse", "")):
            continue
        if dest_pending and k in reg_operands:
            field_of[k] = RD_BIT
            dest_pending = False
            continue
        if dest_pending and re.match(r"^UR\d+$", op):
            dest_pending = False  # a uniform destination (R2UR UR15, R0): it takes Rd, not slot a
            continue
        dest_pending = False
        bit = next(slots, None)
        if bit is None:
            break
        slot_of[k] = bit
        if k in reg_operands:
            field_of[k] = bit
    # A uniform register or constant printed in slot c is encoded in the b field, and
    # the register printed in slot b then sits in the c field (IMAD.WIDE R4, R3, R4, UR4).
    b_op = next((k for k, bit in slot_of.items() if bit == RB_BIT), None)
    c_op = next((k for k, bit in slot_of.items() if bit == RC_BIT), None)
    if b_op in field_of and c_op is not None and _UNIFORM_OR_CONST.match(ops[c_op]):
        field_of[b_op] = RC_BIT
    if any(k not in field_of for k in reg_operands):
        return None, None
    return (tuple(field_of[k] for k in reg_operands),
            tuple(SLOT_OF_FIELD.get(slot_of[k]) if k in slot_of else None for k in reg_operands))


def _matches(ins: Instruction, regs: Sequence[int], i: int, start: int) -> List[Tuple[int, ...]]:
    if i == len(regs):
        return [()]
    out = []
    for j in range(start, len(FIELD_BITS)):
        bit = FIELD_BITS[j]
        if field_value(ins, bit) == regs[i]:
            out += [(bit,) + rest for rest in _matches(ins, regs, i + 1, j + 1)]
    return out


def locate_all(func: SassFunction) -> Dict[int, Tuple[RegField, ...]]:
    """offset -> register fields, for every instruction of `func` (UnknownForm if any fails)."""
    return {ins.offset: locate(ins) for ins in func.instructions}


# ---- rewriting ------------------------------------------------------------------------------
def renamed_operand(operand: str, rename) -> str:
    """The operand text with each general register replaced by rename(reg)."""
    def sub(m):
        if m.group(1) == "Z":
            return m.group(0)
        return f"R{rename(int(m.group(1)))}"
    return _REG_IN_TEXT.sub(sub, operand)


def _probe_shift(reg: int) -> int:
    """A bijection on 0..251 that keeps alignment to 4 (so vector operands stay legal)."""
    return (reg + 4) % 252 if reg < 252 else reg


def prove(cubin: bytes, name: str, text_offset: int, func: SassFunction,
          fields: Dict[int, Tuple[RegField, ...]]) -> None:
    """Rewrite every register field by a shift, disassemble, and check that each
    instruction prints exactly the shifted operands; raise UnknownForm on the first
    that does not (its fields were not where locate() put them)."""
    data = bytearray(cubin)
    for ins in func.instructions:
        lo, hi = ins.lo, ins.hi
        for f in fields[ins.offset]:
            if f.reg != RZ:
                lo, hi = set_bits(lo, hi, f.bit, _probe_shift(f.reg))
        put_instruction(data, text_offset, ins.offset, lo, hi)
    try:
        probed = parse(disassemble(bytes(data))).get(name)
    except SassError as e:  # the probe made an encoding nvdisasm rejects: a field is not a register
        m = re.search(r"at address 0x([0-9a-f]+)", str(e))
        at = int(m.group(1), 16) if m else None
        ins = next((i for i in func.instructions if i.offset == at), func.instructions[0])
        raise UnknownForm(ins, f"rewriting its register fields gives an encoding nvdisasm rejects ({e})") from None
    if probed is None or len(probed.instructions) != len(func.instructions):
        raise UnknownForm(func.instructions[0], "the probe rewrite does not disassemble to the same instructions")
    for old, new in zip(func.instructions, probed.instructions):
        want = tuple(renamed_operand(op, _probe_shift) for op in old.operands)
        if (new.opcode, new.predicate, new.operands) != (old.opcode, old.predicate, want):
            raise UnknownForm(old, f"after rewriting its register fields it prints {new.text!r}, "
                                   f"expected operands {', '.join(want)}")


def put_instruction(data: bytearray, text_offset: int, offset: int, lo: int, hi: int) -> None:
    at = text_offset + offset
    data[at:at + 8] = lo.to_bytes(8, "little")
    data[at + 8:at + 16] = hi.to_bytes(8, "little")


def first_encoding_mismatch(cubin: bytes, text_offset: int, func: SassFunction) -> Optional[Instruction]:
    """The first instruction of `func` whose encoding as nvdisasm printed it is not the cubin's bytes at its
    offset (None: the parse is of this cubin): a rewrite writes through these offsets."""
    return next((ins for ins in func.instructions
                 if instruction_bytes(cubin, text_offset, ins.offset) != (ins.lo, ins.hi)), None)


def instruction_bytes(data: bytes, text_offset: int, offset: int) -> Tuple[int, int]:
    at = text_offset + offset
    return int.from_bytes(data[at:at + 8], "little"), int.from_bytes(data[at + 8:at + 16], "little")
