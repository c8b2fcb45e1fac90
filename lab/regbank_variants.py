"""Register-bank calibration, CPU part: the kernel, its FFMA variants and what each hypothesis predicts.

CPU part (no GPU): NVRTC compiles a kernel whose main loop is a long unrolled run of
independent FFMAs (8 accumulators, 16 read-only sources; 1024 FFMAs per iteration by
default, a 16 KB loop body, so that instruction fetch stays out of the measurement;
`--ffmas 4096` gives a 64 KB body, which the first H100 run showed to be fetch-bound).
The register fields and reuse bits of every FFMA of that loop are then rewritten in the
cubin's .text section to give variants: all three sources in one bank, two in one bank,
none; with and without `.reuse`; two patterns that tell the reuse cache's organisation
apart (one entry per slot, or one per slot and bank); two that tell whether conflicts of
neighbouring FFMAs add up or overlap (bw_alt*); and the accumulator set (acc_*, w*_*,
acc32_*), which asks whether reading an accumulator - the FFMA's own destination, or a
register written a few FFMAs earlier - costs a register-file bank read.  A second base
kernel with 32 accumulators gives the own-accumulator read at 32 FFMAs' distance.
Each variant is disassembled again and must show exactly the intended registers and
flags, with every other instruction unchanged.

Fields rewritten (sm_90, shared/notes/register-banks.md; checked here on every FFMA
before any rewrite): Ra = lo[24:32], Rb = lo[32:40], Rc = hi[0:8] of FFMA with three
register sources (lo[0:12] == 0x223), reuse flags hi bits 58, 59, 60 (slots a, b, c).
Destinations, scheduling controls (stall, yield, barriers) and everything else stay.

Semantic safety of a rewrite: the new sources are registers that the loop only reads
(FFMA sources never written in the loop and used by no other loop instruction), or
accumulators - FFMA destinations - read at least FFMA_LATENCY stall cycles after the
FFMA that writes them (checked per FFMA; the own accumulator is what ptxas itself
reads there).  No address, loop counter or clock value is touched, and no loop FFMA
waits on a scoreboard (checked: every variable-latency load has landed before the
loop).  The values computed change; nothing reads them but a final store.

The GPU part and the command line: lab/regbank_calib.py.
"""
from __future__ import annotations

import json
import struct
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..codegen.kernel import KernelSource, LaunchGeometry
from ..errors import RegtileError
from ..runtime.compiler import compile_source
from ..sass import banks as reg_banks
from ..sass import isa
from ..sass.disasm import Instruction, SassFunction, function_of
from ..sass.isa import CONTROL_SHIFT, RZ  # noqa: F401  (the encoding: sass/isa.py)

KERNEL = "regbank_calib"
ACCS = 8  # independent accumulators (ILP)
SOURCES = 16  # read-only source registers
DEFAULT_SM_CLOCK_MHZ = 1980.0  # H100 under FFMA load (shared/notes/h100-baseline.md)
DEFAULT_FFMAS = 1024

_SOURCE = r"""
extern "C" __global__ void __launch_bounds__(1024) regbank_calib(const float* __restrict__ in,
        float* __restrict__ out, long long* __restrict__ cycles, int iters)
{
    const int lane = threadIdx.x & 31;
    float x[SOURCES], c[ACCS];
    #pragma unroll
    for (int i = 0; i < SOURCES; ++i) x[i] = in[lane + 32 * i];
    #pragma unroll
    for (int j = 0; j < ACCS; ++j) c[j] = in[lane + 32 * (SOURCES + j)];
    // Use every loaded value before the loop, so that no load is still in flight in it
    // (the rewritten FFMAs may read any source; the original ones wait on none).
    float guard = 0.f;
    #pragma unroll
    for (int i = 0; i < SOURCES; ++i) guard += x[i];
    #pragma unroll
    for (int j = 0; j < ACCS; ++j) guard += c[j];
    if (guard == -1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = guard;
    const long long t0 = clock64();
    #pragma unroll 1
    for (int it = 0; it < iters; ++it) {
        #pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            #pragma unroll
            for (int j = 0; j < ACCS; ++j)
                c[j] = fmaf(x[(j + r) % SOURCES], x[(3 * j + 5 * r + 1) % SOURCES], c[j]);
        }
    }
    const long long t1 = clock64();
    float s = 0.f;
    #pragma unroll
    for (int j = 0; j < ACCS; ++j) s += c[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (lane == 0) cycles[(blockIdx.x * blockDim.x + threadIdx.x) >> 5] = t1 - t0;
}
"""


class CalibError(RegtileError):
    pass


def kernel_source(ffmas: int = DEFAULT_FFMAS, accs: int = ACCS) -> KernelSource:
    """The calibration kernel with `accs` accumulators (8: the base of most variants;
    32: each accumulator is read again 32 FFMAs after it was written)."""
    if ffmas % accs or ffmas < accs:
        raise CalibError(f"--ffmas {ffmas}: must be a positive multiple of {accs} (accumulators)")
    text = (_SOURCE.replace("SOURCES", str(SOURCES)).replace("ACCS", str(accs))
            .replace("ROUNDS", str(ffmas // accs)))
    return KernelSource(KERNEL, "cuda", text, LaunchGeometry((128, 1, 1), 1, 1, 0),
                        (("in", "const float*"), ("out", "float*"), ("cycles", "long long*"), ("iters", "int")))


# ---- the cubin's .text section ------------------------------------------------------------
def text_section(cubin: bytes, name: str = KERNEL) -> Tuple[int, int]:
    """(file offset, size) of section .text.<name> of an ELF64 cubin."""
    from ..sass.cubin import CubinError
    from ..sass.cubin import text_section as _text_section
    try:
        return _text_section(cubin, name)
    except CubinError as e:
        raise CalibError(str(e)) from None


def encode(ins: Instruction, ra: int, rb: int, rc: int, reuse: Tuple[bool, bool, bool]) -> Tuple[int, int]:
    """(lo, hi) of `ins` with new source registers and reuse flags."""
    lo, hi = ins.lo, ins.hi
    for slot, reg in zip("abc", (ra, rb, rc)):
        lo, hi = isa.set_bits(lo, hi, isa.FIELD_OF_SLOT[slot], reg)
    for slot, flag in zip("abc", reuse):
        lo, hi = isa.set_bits(lo, hi, isa.REUSE_BIT_OF_SLOT[slot], int(flag), 1)
    return lo, hi


# ---- which registers a variant may use ------------------------------------------------------
def _reg(op: str) -> Optional[int]:
    op = op.replace(".reuse", "").lstrip("-|")
    if op == "RZ":
        return RZ
    return int(op[1:]) if op.startswith("R") and op[1:].isdigit() else None


def loop_ffmas(func: SassFunction) -> List[Instruction]:
    loop = func.loop_instructions()
    ffmas = [i for i in loop if i.base == "FFMA"]
    if not ffmas:
        raise CalibError("the calibration kernel's main loop holds no FFMA")
    for i in ffmas:
        if not isa.is_ffma_rrr(i.base, i.lo) or i.predicate:
            raise CalibError(f"unexpected FFMA form in the loop: {i.text} (want FFMA Rd, Ra, Rb, Rc)")
        if isa.wait_mask(i.hi):
            raise CalibError(f"a loop FFMA waits on a scoreboard ({i.text}): a load is in flight in the loop")
        regs = [_reg(o) for o in i.operands[1:4]]
        fields = [isa.field(i.lo, i.hi, isa.FIELD_OF_SLOT[s]) for s in "abc"]
        if regs != fields:
            raise CalibError(f"register fields of {i.text} read {fields}, the text says {regs}: "
                             "the encoding assumption does not hold for this compiler")
    return ffmas


def read_only_sources(func: SassFunction) -> Tuple[List[int], List[int]]:
    """(even, odd) registers that loop FFMAs read and nothing in the loop writes or uses otherwise."""
    loop = func.loop_instructions()
    written, other_use, sources = set(), set(), set()
    for i in loop:
        regs = {r for r in (_reg(o) for o in i.operands) if r is not None and r != RZ}
        if i.base == "FFMA":
            written.add(_reg(i.operands[0]))
            sources |= {_reg(o) for o in i.operands[1:4]} - {RZ}
        else:
            other_use |= regs
    ok = sorted(sources - written - other_use)
    return [r for r in ok if r % 2 == 0], [r for r in ok if r % 2 == 1]


# ---- variants -----------------------------------------------------------------------------
# A pattern maps a loop FFMA's index to register tokens for slots a, b, c and the slots
# that carry .reuse.  Tokens, resolved per FFMA against the base kernel's SASS:
#   RZ              no read
#   E<k>, O<k>      the k-th read-only source register of bank 0 (even) / bank 1 (odd)
#   D               the FFMA's own destination, i.e. its accumulator (FFMA Rd, Ra, Rb, Rd),
#                   as in ptxas's code: last written by the previous FFMA on that
#                   accumulator, 8 FFMAs earlier (32 in the 32-accumulator base)
#   W<d>            the destination of the loop FFMA d positions earlier: another
#                   accumulator, written d FFMAs ago (checked: not this FFMA's own, not
#                   written in between, and the stall counts from that FFMA to this one
#                   add up to at least FFMA_LATENCY cycles, so the read sees the result)
#   S<k>@T, X<k>@T  the k-th read-only register in the same bank as / the other bank
#                   than the register that token T (D or W<d>) gives
Pattern = Callable[[int], Tuple[str, str, str, str]]  # FFMA index -> (a, b, c, reuse "abc" subset)
FFMA_LATENCY = 4  # sm_90: ptxas separates dependent FFMAs by 4 stall cycles


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    pattern: Optional[Pattern]  # None: the compiled cubin unchanged
    accs: int = ACCS  # accumulators of the base kernel (8 or 32)
    question: str = ""  # what the measurement tells, for the table's legend


def _const(a, b, c, reuse=""):
    return lambda i: (a, b, c, reuse)


def _alternate(period: int, first, second):
    return lambda i: first if (i // period) % 2 == 0 else second


VARIANTS: Tuple[Variant, ...] = (
    Variant("original", "ptxas's own registers and reuse flags (reference)", None,
            question="ptxas's allocation: c = own accumulator, a/b banks as allocated"),
    Variant("none_rz", "a even, b odd, c = RZ: two reads in two banks", _const("E0", "O0", "RZ"),
            question="peak: one read per bank"),
    Variant("none_dup", "a even, b odd, c = a: two distinct reads in two banks", _const("E0", "O0", "E0"),
            question="a register in two slots is read once"),
    Variant("two_ab", "a, b in bank 0, c in bank 1", _const("E0", "E1", "O0"), question="2 reads in one bank"),
    Variant("two_ac", "a, c in bank 0, b in bank 1", _const("E0", "O0", "E1"),
            question="2 reads in one bank, one in slot c (read-only c counts)"),
    Variant("two_bc", "b, c in bank 0, a in bank 1", _const("O0", "E0", "E1"), question="as two_ac"),
    Variant("three_even", "all three in bank 0", _const("E0", "E1", "E2"), question="3 reads in one bank"),
    Variant("three_odd", "all three in bank 1", _const("O0", "O1", "O2"), question="3 reads in one bank"),
    Variant("three_even_reuse_a", "all three in bank 0, a reused: b, c read (2 in bank 0)",
            _const("E0", "E1", "E2", "a"), question="reuse removes a's read"),
    Variant("three_even_reuse_ab", "all three in bank 0, a and b reused: only c read",
            _const("E0", "E1", "E2", "ab"), question="reuse removes a's and b's reads"),
    Variant("three_even_reuse_abc", "all three in bank 0, all reused: no register-file read",
            _const("E0", "E1", "E2", "abc"), question="reuse of c"),
    Variant("two_ab_reuse_a", "a, b in bank 0 (a reused), c in bank 1: one read per bank",
            _const("E0", "E1", "O0", "a"), question="reuse removes the conflict"),
    Variant("alt_bank_reuse", "slot a alternates E0/O1 with .reuse, b = O0 reused, c = E1: a per-(slot, bank) "
                              "cache hits on a (only c read); a one-entry-per-slot cache misses, and every "
                              "other FFMA reads E0 and E1 (2 in bank 0)",
            lambda i: ("E0" if i % 2 == 0 else "O1", "O0", "E1", "ab"),
            question="reuse cache: one entry per (slot, bank)"),
    Variant("alt_same_bank_reuse", "slot a alternates E0/E2 with .reuse, b = O0 reused, c = E1: both cache "
                                   "models miss on a, every FFMA reads a and E1 (2 in bank 0)",
            lambda i: ("E0" if i % 2 == 0 else "E2", "O0", "E1", "ab"),
            question="reuse cache: control for alt_bank_reuse"),
    # -- overlap: do conflicts of neighbouring FFMAs add up, or only each bank's total? --
    Variant("bw_alt1", "FFMAs alternate a, b = E0, E1 (bank 0) and O0, O1 (bank 1), c = RZ: every FFMA has "
                       "2 reads in one bank, each bank 1 read per FFMA on average",
            _alternate(1, ("E0", "E1", "RZ", ""), ("O0", "O1", "RZ", "")),
            question="overlap: per-instruction 2.0, bank totals 1.0"),
    Variant("bw_alt32", "as bw_alt1 in runs of 32 FFMAs (32 FFMAs on bank 0, then 32 on bank 1)",
            _alternate(32, ("E0", "E1", "RZ", ""), ("O0", "O1", "RZ", "")),
            question="overlap over longer runs (1 warp/SMSP: within a warp)"),
    # -- accumulator reads: a, b fixed in bank 0, the register under test in the third slot:
    #    measured = 2 + (share of the tested reads that land in bank 0 and count) --
    Variant("acc_e0e1", "a, b = E0, E1 (bank 0), c = own accumulator (written 8 FFMAs earlier)",
            _const("E0", "E1", "D"), question="is the c read of the own accumulator a bank read?"),
    Variant("acc_same_a", "a in the own accumulator's bank, b in the other, c = own accumulator (the "
                          "original's structure, no reuse)",
            _const("S0@D", "X0@D", "D"), question="per-instruction 2.0, bank totals 1.5, accumulator free 1.0"),
    Variant("w7_e0e1", "a, b = E0, E1, c = another accumulator, written 7 FFMAs earlier (not own)",
            _const("E0", "E1", "W7"), question="recently written (d=7) but not own: free?"),
    Variant("w4_e0e1", "a, b = E0, E1, c = another accumulator, written 4 FFMAs earlier (= FFMA latency)",
            _const("E0", "E1", "W4"), question="just written (d=4): free?"),
    Variant("w7a_e0e1", "a = accumulator written 7 FFMAs earlier, b, c = E0, E1",
            _const("W7", "E0", "E1"), question="recently written, read in slot a: free?"),
    Variant("original32", "ptxas's own code, 32 accumulators (reference)", None, accs=32,
            question="ptxas's allocation, 32 accumulators"),
    Variant("acc32_e0e1", "32 accumulators: a, b = E0, E1, c = own accumulator (written 32 FFMAs earlier)",
            _const("E0", "E1", "D"), accs=32, question="own accumulator at d=32: free?"),
)


@dataclass
class _Ctx:
    """What tokens resolve against: the base kernel's loop."""
    loop: List[Instruction]
    ffmas: List[Instruction]
    even: List[int]
    odd: List[int]

    def __post_init__(self):
        self.dests = [_reg(i.operands[0]) for i in self.ffmas]
        pos = {ins.offset: k for k, ins in enumerate(self.loop)}
        self.positions = [pos[i.offset] for i in self.ffmas]

    def own_distance(self, idx: int) -> int:
        """FFMAs since this FFMA's accumulator was last written (cyclically)."""
        n = len(self.ffmas)
        for d in range(1, n + 1):
            if self.dests[(idx - d) % n] == self.dests[idx]:
                return d
        return n

    def written(self, idx: int, d: int) -> int:
        n = len(self.ffmas)
        if not 1 <= d < n:
            raise CalibError(f"W{d}: the loop has {n} FFMAs")
        p = (idx - d) % n
        reg = self.dests[p]
        if reg == self.dests[idx]:
            raise CalibError(f"W{d} of FFMA {idx} is its own accumulator R{reg}")
        # loop positions strictly between producer and consumer (cyclic)
        a, b, m = self.positions[p], self.positions[idx], len(self.loop)
        between = [(a + k) % m for k in range(1, (b - a) % m)]
        if any(_reg(self.loop[k].operands[0]) == reg for k in between if self.loop[k].operands):
            raise CalibError(f"W{d} of FFMA {idx}: R{reg} is written again before it is read")
        stall = sum(isa.stall(self.loop[k].hi) for k in [a] + between)
        if stall < FFMA_LATENCY:
            raise CalibError(f"W{d} of FFMA {idx}: only {stall} stall cycles after R{reg} is written "
                             f"(FFMA latency {FFMA_LATENCY})")
        return reg

    def resolve(self, token: str, idx: int) -> int:
        if token == "RZ":
            return RZ
        if token == "D":
            return self.dests[idx]
        if token[0] == "W":
            return self.written(idx, int(token[1:]))
        if "@" in token:
            head, ref = token.split("@")
            bank = self.resolve(ref, idx) % 2
            if head[0] == "X":
                bank ^= 1
            return self._pool(bank, int(head[1:]), token)
        if token[0] in "EO":
            return self._pool(0 if token[0] == "E" else 1, int(token[1:]), token)
        raise CalibError(f"unknown register token {token!r}")

    def _pool(self, bank: int, k: int, token: str) -> int:
        pool = self.even if bank == 0 else self.odd
        if k >= len(pool):
            raise CalibError(f"variant needs {token}, but the loop has only {len(pool)} read-only "
                             f"{'even' if bank == 0 else 'odd'} registers")
        return pool[k]



def _resolve(name: str, even: Sequence[int], odd: Sequence[int]) -> int:
    """A context-free token (RZ, E<k>, O<k>)."""
    return _Ctx([], [], list(even), list(odd)).resolve(name, 0)


def _regname(r: int) -> str:
    return "RZ" if r == RZ else f"R{r}"


@dataclass
class Built:
    variant: Variant
    cubin: bytes
    func: SassFunction
    intended: Dict[int, Tuple[int, int, int, Tuple[bool, bool, bool]]]  # offset -> (a, b, c, reuse)
    accs: int = ACCS
    own_distance: Tuple[int, int] = (0, 0)  # min, max FFMAs since each FFMA's accumulator was written


def build_variant(base: bytes, func: SassFunction, v: Variant) -> Built:
    ffmas = loop_ffmas(func)
    ctx = _Ctx(func.loop_instructions(), ffmas, *read_only_sources(func))
    dist = [ctx.own_distance(i) for i in range(len(ffmas))]
    if v.pattern is None:
        return Built(v, base, func, {}, v.accs, (min(dist), max(dist)))
    sec_off, sec_size = text_section(base)
    data = bytearray(base)
    intended = {}
    for idx, ins in enumerate(ffmas):
        a, b, c, reuse = v.pattern(idx)
        regs = tuple(ctx.resolve(x, idx) for x in (a, b, c))
        flags = tuple(s in reuse and r != RZ for s, r in zip("abc", regs))
        lo, hi = encode(ins, *regs, flags)
        at = sec_off + ins.offset
        if ins.offset + 16 > sec_size or struct.unpack_from("<QQ", data, at) != (ins.lo, ins.hi):
            raise CalibError(f"the bytes at .text+{ins.offset:#x} are not {ins.text}: section mapping is off")
        struct.pack_into("<QQ", data, at, lo, hi)
        intended[ins.offset] = (*regs, flags)
    cubin = bytes(data)
    _, new_func = function_of(cubin, KERNEL)
    verify(func, new_func, intended)
    return Built(v, cubin, new_func, intended, v.accs, (min(dist), max(dist)))


def verify(old: SassFunction, new: SassFunction, intended) -> None:
    """The rewritten cubin disassembles to the intended FFMAs and nothing else changed."""
    if len(old.instructions) != len(new.instructions):
        raise CalibError("instruction count changed after the rewrite")
    for o, n in zip(old.instructions, new.instructions):
        if o.offset not in intended:
            if (o.lo, o.hi, o.text) != (n.lo, n.hi, n.text):
                raise CalibError(f"/*{o.offset:04x}*/ changed: {o.text} -> {n.text}")
            continue
        ra, rb, rc, flags = intended[o.offset]
        want = [_regname(r) + (".reuse" if f else "") for r, f in zip((ra, rb, rc), flags)]
        if n.base != "FFMA" or n.operands[0] != o.operands[0] or list(n.operands[1:4]) != want:
            raise CalibError(f"/*{o.offset:04x}*/ disassembles to {n.text!r}, wanted FFMA "
                             f"{o.operands[0]}, {', '.join(want)}")


def build_all(ffmas: int = DEFAULT_FFMAS, arch: str = "sm_90", names: Optional[Sequence[str]] = None) -> List[Built]:
    chosen = [v for v in VARIANTS if names is None or v.name in names]
    if names is not None and len(chosen) != len(set(names)):
        known = ", ".join(v.name for v in VARIANTS)
        raise CalibError(f"unknown variant in {list(names)}; known: {known}")
    bases = {}
    for accs in sorted({v.accs for v in chosen}):
        art = compile_source(kernel_source(ffmas, accs), arch, use_cache=False)
        bases[accs] = (art.cubin, function_of(art.cubin, KERNEL)[1])
    return [build_variant(*bases[v.accs], v) for v in chosen]


# ---- what each hypothesis predicts ----------------------------------------------------------
# Issue cycles per FFMA per sub-partition, from the variant's own SASS through
# sass/banks.py (2 banks, per-(slot, bank) reuse cache), under:
#   serial      per instruction: 1 cycle + 1 per read beyond the first in its busiest
#               bank, no overlap between instructions (reg_banks' per-instruction estimate)
#   serial+acc  the same with the own-accumulator c read free
#   banks       bank totals: each bank serves one read per cycle and neighbouring
#               instructions' reads overlap: max(1, reads of the busiest bank / FFMAs)
#   banks+acc   bank totals, own-accumulator c read free
#   banks+rec16 bank totals, reads of a register written by one of the previous 16
#               instructions free (any slot)
HYPOTHESES: Tuple[Tuple[str, str, str], ...] = (
    ("serial", "none", "serial"), ("serial+acc", "own-accumulator", "serial"),
    ("banks", "none", "banks"), ("banks+acc", "own-accumulator", "banks"), ("banks+rec16", "recent:16", "banks"),
)


def predictions(func: SassFunction, arch: str = "sm_90") -> Dict[str, float]:
    out = {}
    base = reg_banks.arch_model(arch)
    for name, rule, cost in HYPOTHESES:
        model = replace(base, free_reads=rule, penalty_cycles=1.0)
        r = reg_banks.analyze(func, arch, model=model)
        out[name] = round(r.bank_bound if cost == "banks" else r.per_instruction_cycles, 4)
    return out


def describe(b: Built, ffmas: int) -> dict:
    models = {a: reg_banks.analyze(b.func, a) for a in ("sm_80", "sm_90")}
    first = next(i for i in b.func.loop_instructions() if i.base == "FFMA")
    return {
        "name": b.variant.name, "description": b.variant.description, "question": b.variant.question,
        "file": f"{b.variant.name}.cubin", "accumulators": b.accs,
        "own_accumulator_written_ffmas_before": list(b.own_distance),
        "ffma_per_iteration": ffmas, "first_ffma": first.text,
        "predicted_conflicted_ffma": {a: r.conflicts for a, r in models.items()},
        "predicted_conflict_share": {a: round(r.conflict_share, 4) for a, r in models.items()},
        "predicted_cycles_per_ffma_per_smsp": predictions(b.func),
        "reuse_hits": models["sm_90"].reuse_hits,
    }


def write(builts: Sequence[Built], out: Path, ffmas: int, arch: str) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for b in builts:
        (out / f"{b.variant.name}.cubin").write_bytes(b.cubin)
        entries.append(describe(b, ffmas))
    accs = max([b.accs for b in builts] or [ACCS])
    manifest = {"kernel": KERNEL, "arch": arch, "ffma_per_iteration": ffmas, "accumulators": accs,
                "params": ["const float* in", "float* out", "long long* cycles", "int iters"],
                "in_floats": 32 * (SOURCES + accs), "hypotheses": [h[0] for h in HYPOTHESES],
                "variants": entries}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
