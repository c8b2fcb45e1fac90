"""The sm_70+ instruction encoding, as far as regtile's SASS tools read and write it: the
one table of bit positions (checked on sm_90; the notes' "The sm_90 instruction fields").

nvdisasm -hex prints each 128-bit instruction as two 64-bit words, `lo` and `hi`.  Bit
positions named ..._BIT count over the whole instruction, lo | hi << 64; those named
..._HI count inside `hi`.

  register fields   8 bits each: Rd at 16, Ra at 24, Rb at 32, Rc at 64 (hi[0:8]);
                    register 255 is RZ
  operand form      lo[0:12]: 0x223 is FFMA Rd, Ra, Rb, Rc (three register sources)
  control code      hi >> 41: stall cycles [0:4], yield [4] (the hint is set when the bit
                    is 0, as CuAssembler prints 'Y'), write scoreboard [5:8], read
                    scoreboard [8:11] (7: none), scoreboards waited on [11:17]
  reuse flags       hi bits 58, 59, 60: operand slots a, b, c

Every reader and writer of these fields (sass/fields.py, sass/banks.py, sass/reorder.py,
lab/regbank_calib*.py) takes them from here.
"""
from __future__ import annotations

from typing import Optional, Tuple

RZ = 255

# Register fields (bit offsets in lo | hi << 64), 8 bits each.
RD_BIT, RA_BIT, RB_BIT, RC_BIT = 16, 24, 32, 64
FIELD_BITS = (RD_BIT, RA_BIT, RB_BIT, RC_BIT)
SLOT_OF_FIELD = {RA_BIT: "a", RB_BIT: "b", RC_BIT: "c"}
FIELD_OF_SLOT = {slot: bit for bit, slot in SLOT_OF_FIELD.items()}

# Operand form: the low 12 bits of lo.
FORM_MASK = 0xFFF
FFMA_RRR = 0x223  # FFMA Rd, Ra, Rb, Rc

# Control code and reuse flags, in hi.
CONTROL_SHIFT = 41
BODY_MASK_HI = (1 << CONTROL_SHIFT) - 1  # hi below the control code: part of the instruction itself
REUSE_BIT_HI = {"a": 58, "b": 59, "c": 60}
REUSE_MASK_HI = 0x7 << REUSE_BIT_HI["a"]
# The reuse flag of an operand slot in lo | hi << 64.  The slot is the operand's printed
# position among the sources, which is not always its field: IMAD R4, R3, R5, UR9 keeps R5
# (slot b, reuse bit 59) in the c field.
REUSE_BIT_OF_SLOT = {slot: 64 + bit for slot, bit in REUSE_BIT_HI.items()}
NO_SCOREBOARD = 7
SCOREBOARDS = 6  # per warp, 0-5
# Bit offsets inside the control code (control(hi)), and the read scoreboard's and the wait mask's bits in hi.
WRITE_SB_CTL, READ_SB_CTL, WAIT_CTL = 5, 8, 11
READ_SB_MASK_HI = 0x7 << (CONTROL_SHIFT + READ_SB_CTL)
WAIT_MASK_HI = 0x3F << (CONTROL_SHIFT + WAIT_CTL)


def field(lo: int, hi: int, bit: int, bits: int = 8) -> int:
    """The `bits`-wide field at `bit` of lo | hi << 64."""
    return ((lo | hi << 64) >> bit) & ((1 << bits) - 1)


def set_bits(lo: int, hi: int, bit: int, value: int, bits: int = 8) -> Tuple[int, int]:
    """(lo, hi) with the `bits`-wide field at `bit` of lo | hi << 64 set to `value`."""
    word = lo | hi << 64
    mask = ((1 << bits) - 1) << bit
    word = (word & ~mask) | (value << bit)
    return word & ((1 << 64) - 1), word >> 64


def is_ffma_rrr(opcode_base: str, lo: int) -> bool:
    """FFMA with three register sources, whose Ra/Rb/Rc fields hold them all."""
    return opcode_base == "FFMA" and (lo & FORM_MASK) == FFMA_RRR


def swap_ab(lo: int) -> int:
    """lo with the Ra and Rb fields exchanged (fma(a, b, c) == fma(b, a, c))."""
    ra, rb = field(lo, 0, RA_BIT), field(lo, 0, RB_BIT)
    lo, _ = set_bits(lo, 0, RA_BIT, rb)
    lo, _ = set_bits(lo, 0, RB_BIT, ra)
    return lo


def control(hi: int) -> int:
    return hi >> CONTROL_SHIFT


def stall(hi: int) -> int:
    """Stall cycles before the next instruction issues."""
    return control(hi) & 0xF


def yields(hi: int) -> bool:
    """The yield hint (set when its bit is 0)."""
    return (control(hi) >> 4) & 1 == 0


def write_scoreboard(hi: int) -> int:
    """The scoreboard raised at issue and released when the result is written (7: none)."""
    return (control(hi) >> WRITE_SB_CTL) & 7


def read_scoreboard(hi: int) -> int:
    """The scoreboard raised at issue and released when the sources have been read (7: none)."""
    return (control(hi) >> READ_SB_CTL) & 7


def sets_scoreboard(hi: int) -> bool:
    return write_scoreboard(hi) != NO_SCOREBOARD or read_scoreboard(hi) != NO_SCOREBOARD


def wait_mask(hi: int) -> int:
    """The scoreboards the instruction waits on, one bit each."""
    return (control(hi) >> WAIT_CTL) & 0x3F


def with_read_scoreboard(hi: int, sb: int) -> int:
    """hi with the read scoreboard set to `sb` (0-5, or NO_SCOREBOARD)."""
    return (hi & ~READ_SB_MASK_HI) | (sb << (CONTROL_SHIFT + READ_SB_CTL))


# The guard predicate, in the low word: bits 12-14 its index (7: PT), bit 15 negates it (@!P5 = 0xD; @!PT = 0xF,
# an instruction that never runs: a branch that never branches).
GUARD_SHIFT = 12
GUARD_PT = 7
GUARD_NEGATE = 8


def guard_of(predicate: str) -> Optional[Tuple[int, bool]]:
    """(index, negated) of a guard as nvdisasm prints it, "@P5" / "@!P5"; None for PT, a uniform predicate or none."""
    name = predicate.lstrip("@!")
    if len(name) == 2 and name[0] == "P" and name[1].isdigit():
        return int(name[1]), predicate.startswith("@!")
    return None


def with_guard(lo: int, index: int, negated: bool) -> int:
    """lo with the guard predicate @P<index> (@!P<index> where negated; index GUARD_PT: PT)."""
    return (lo & ~(0xF << GUARD_SHIFT)) | ((index | (GUARD_NEGATE if negated else 0)) << GUARD_SHIFT)


def with_stall(hi: int, cycles: int) -> int:
    """hi with the stall count set to `cycles` (1-15)."""
    return (hi & ~(0xF << CONTROL_SHIFT)) | (cycles << CONTROL_SHIFT)


def with_wait(hi: int, sb: int) -> int:
    """hi with scoreboard `sb` added to the scoreboards it waits on."""
    return hi | (1 << (CONTROL_SHIFT + WAIT_CTL + sb))


def control_text(hi: int) -> str:
    """The control code in CuAssembler's notation, e.g. [B0-2---:R1:W5:Y:S04]: the scoreboards
    waited on (a digit each, '-' where not), the read and write scoreboards ('-': none), the yield
    hint ('Y' or '-') and the stall cycles."""
    mask = wait_mask(hi)
    waits = "".join(str(b) if mask >> b & 1 else "-" for b in range(SCOREBOARDS))
    return (f"[B{waits}:R{_scoreboard_text(read_scoreboard(hi))}:W{_scoreboard_text(write_scoreboard(hi))}:"
            f"{'Y' if yields(hi) else '-'}:S{stall(hi):02d}]")


def _scoreboard_text(sb: int) -> str:
    return "-" if sb == NO_SCOREBOARD else str(sb)


def reuse_flags(hi: int) -> Tuple[bool, bool, bool]:
    """The reuse flags of slots a, b, c."""
    return tuple(bool((hi >> REUSE_BIT_HI[s]) & 1) for s in "abc")
