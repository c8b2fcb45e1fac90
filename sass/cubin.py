"""Per-kernel attributes read from a cubin's ELF, without a GPU or a CUDA tool.

The global `.nv.info` section holds, per kernel symbol, attribute records
(format byte, attribute byte, then a payload): EIATTR_REGCOUNT (0x2f) is the
register count ptxas allocated, EIATTR_FRAME_SIZE (0x11) the stack frame in bytes
(non-zero when registers spill to local memory), EIATTR_MIN_STACK_SIZE (0x12).
Used to cross-check the ptxas report parsed from NVRTC's or nvJitLink's log, and as
the fallback should a log ever lack it.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Dict, List, Tuple

from ..errors import SassError

EIATTR_FRAME_SIZE = 0x11
EIATTR_MIN_STACK_SIZE = 0x12
EIATTR_REGCOUNT = 0x2F
# record formats (EIFMT_*): SVAL has a u16 size and that many bytes; the others are 4-byte records
_EIFMT_NVAL, _EIFMT_BVAL, _EIFMT_HVAL, _EIFMT_SVAL = 1, 2, 3, 4


class CubinError(ValueError, SassError):
    """A cubin whose ELF lacks what is asked for (a section, a symbol, an attribute)."""


@dataclass(frozen=True)
class KernelInfo:
    registers: int
    frame_bytes: int
    min_stack_bytes: int


def _sections(elf: bytes) -> List[Tuple[str, int, int, int, int]]:
    """(name, type, offset, size, link) of each section of a 64-bit little-endian ELF."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise CubinError("not a 64-bit little-endian ELF")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    str_off = raw[shstrndx][4]

    def name(off: int) -> str:
        start = str_off + off
        return elf[start:elf.index(b"\0", start)].decode()

    return [(name(s[0]), s[1], s[4], s[5], s[6]) for s in raw]


def _symbols(elf: bytes, sections) -> Dict[int, str]:
    for name, typ, off, size, link in sections:
        if typ == 2:  # SHT_SYMTAB
            str_off = sections[link][2]
            out = {}
            for i in range(size // 24):
                st_name = struct.unpack_from("<I", elf, off + 24 * i)[0]
                start = str_off + st_name
                out[i] = elf[start:elf.index(b"\0", start)].decode()
            return out
    raise CubinError("no symbol table")


def _kernel_attributes(cubin: bytes, kernel: str) -> Dict[int, int]:
    """attribute -> file offset of its 32-bit value, for `kernel`'s per-symbol records
    (EIFMT_SVAL, payload: u32 symbol index, u32 value) in the global .nv.info."""
    secs = _sections(cubin)
    syms = _symbols(cubin, secs)
    found: Dict[int, int] = {}
    for name, _, off, size, _ in secs:
        if name != ".nv.info":
            continue
        i = 0
        while i + 2 <= size:
            fmt, attr = cubin[off + i], cubin[off + i + 1]
            if fmt == _EIFMT_SVAL:
                n, = struct.unpack_from("<H", cubin, off + i + 2)
                if n == 8:
                    sym, = struct.unpack_from("<I", cubin, off + i + 4)
                    if syms.get(sym) == kernel:
                        found[attr] = off + i + 8
                i += 4 + n
            else:  # HVAL (u16), BVAL (u8 + pad), NVAL: 4-byte records
                i += 4
    if EIATTR_REGCOUNT not in found:
        raise CubinError(f"the cubin's .nv.info gives no register count for {kernel!r}")
    return found


def kernel_info(cubin: bytes, kernel: str) -> KernelInfo:
    at = _kernel_attributes(cubin, kernel)

    def value(attr: int) -> int:
        return struct.unpack_from("<I", cubin, at[attr])[0] if attr in at else 0
    return KernelInfo(value(EIATTR_REGCOUNT), value(EIATTR_FRAME_SIZE), value(EIATTR_MIN_STACK_SIZE))


def set_register_count(cubin: bytes, kernel: str, registers: int) -> bytes:
    """The cubin with `kernel`'s EIATTR_REGCOUNT set to `registers` (the count the driver
    allocates and the hardware enforces: an instruction naming a register at or above it
    faults).  For SASS rewrites that use registers ptxas left free."""
    if not 0 < registers <= 255:
        raise CubinError(f"register count {registers} outside 1..255")
    data = bytearray(cubin)
    struct.pack_into("<I", data, _kernel_attributes(cubin, kernel)[EIATTR_REGCOUNT], registers)
    return bytes(data)


def text_section(cubin: bytes, kernel: str) -> Tuple[int, int]:
    """(file offset, size) of the kernel's code, section .text.<kernel>."""
    for name, _, off, size, _ in _sections(cubin):
        if name == f".text.{kernel}":
            return off, size
    raise CubinError(f"no section .text.{kernel} in the cubin")
