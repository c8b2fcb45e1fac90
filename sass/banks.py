"""Register-bank analysis of a kernel's main loop, read from its SASS.

For every FFMA of the main loop (and the other slotted ALU instructions, which
share the operand slots) this pass finds the source registers, which of them the
operand reuse cache serves, and whether the register-file reads that remain
conflict under the arch's bank model.  The model (shared/notes/register-banks.md):

Banks
  sm_80/86/89 and sm_90: 2 banks, bank = register index % 2.  An instruction reads
  its sources in slots a, b, c (operands 1, 2, 3 as nvdisasm prints them; operand 0
  is the destination).  RZ, immediates and constants c[..][..] make no read.  The
  same register in two slots is one read.  An FFMA *conflicts* when one bank gets
  `conflict_reads` or more distinct non-cached reads: 3 on sm_80/86/89 (published:
  Jia et al. for Volta/Turing, Huerta et al. MICRO'25 for GA10x), 2 on sm_90
  (measured on the H100 by lab/regbank_calib.py; CALIBRATION below).

Calibration on sm_90 (H100 SXM, 2026-11-22, 1024-FFMA loop, 4 warps per
sub-partition; docs/data/regbank_calib_1024.json, docs/register-banks.md), issue
cycles per FFMA per sub-partition from the makespan (slowest warp) and from event time:
  one read per bank (none_rz, none_dup)            1.01
  two reads in one bank (two_ab, two_ac, two_bc)   2.00   c counts like a and b
  three reads in one bank (three_even, three_odd)  3.00
  reuse removes reads (..._reuse_ab, two_ab_reuse_a) 1.01-1.02; per (slot, bank)
    entry (alt_bank_reuse 1.01, alt_same_bank_reuse 2.00)
  ptxas's own loop (original)                      1.53
  So each read beyond the first in one bank costs one issue cycle (`penalty_cycles`
  1.0; `conflict_reads` 2 confirmed).  The per-instruction sum of those costs predicts
  1.98 for `original`; the bank totals - max over banks of reads per FFMA, i.e.
  neighbouring instructions' reads overlapping - predict 1.53 and match every variant
  within 0.5% (`RegBankReport.bank_bound`).  The c-slot read of the accumulator
  counts in that fit; if it were free the totals would give 1.03.  (The first
  runs' table printed the median warp's cycles, 1.09 for `original`: biased low by
  unfair scheduling, 0.84 for the reuse variants, below the 1.0 floor.)  Whether
  reads of the own accumulator or of recently written registers are free is what
  the acc_* / w* variants settle; until they are measured `free_reads` stays "none"
  (every non-cached read is a bank read), switchable per ArchModel.

Reuse cache (notes, "The reuse cache")
  One entry per (slot, bank).  A read of register R in slot s hits when entry
  (s, bank(R)) holds R, i.e. when the previous read of that bank in that slot was R
  and carried `.reuse`.  After the instruction, each of its reads sets entry
  (s, bank(R)) to R when it carries `.reuse` and clears that entry when it does
  not.  The whole cache is cleared at a label (a branch may arrive there), after a
  branch or reconvergence instruction (BRA, BSYNC, EXIT, ...), after a barrier
  and after an instruction whose yield hint is set (the warp may be switched out;
  maxas and NBAssembler clear there too).  Instructions outside SLOTTED (memory,
  conversions, predicates, uniform datapath) leave the cache alone: an assumption.

Encodings (sm_70+; sass/isa.py, notes "The sm_90 instruction fields")
  Reuse flags are read from the operand text (".reuse") and cross-checked against
  bits 58, 59, 60 of the high word (slots a, b, c).  For FFMA with three register
  sources (low 12 bits 0x223) the register fields Ra = lo[24:32], Rb = lo[32:40],
  Rc = hi[0:8] are cross-checked too.  The control code is hi >> 41: stall [0:4],
  yield [4] (set hint when the bit is 0, as CuAssembler prints 'Y'), ...

Register map of the thread tile (a heuristic, stated): accumulators are the FFMA
destinations in the loop; A fragments are registers read mostly in slot a, B
fragments those read mostly in slot b (ptxas keeps fmaf(a, b, c)'s operand order
for the generator's kernels, as the zorder preset's SASS shows: slot a carries one
register along a row of 8 FFMAs).  A register read equally in both slots is listed
as ambiguous.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import ArchError, ConfigError
from . import isa
from .disasm import Instruction, SassFunction
from .isa import CONTROL_SHIFT, FFMA_RRR  # noqa: F401  (importable from here as before)

SLOTS = ("a", "b", "c")
REUSE_BIT = isa.REUSE_BIT_HI  # in the high 64-bit word

# Instructions whose sources go through the operand slots, with how many sources
# (operands after the destination).  FFMA is the one the report is about.
SLOTTED = {"FFMA": 3, "IMAD": 3, "FMUL": 2, "FADD": 2, "FMNMX": 2, "IADD3": 3}
# Instructions after which the reuse cache is assumed lost.
CLEARS_AFTER = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BSYNC", "WARPSYNC", "BAR", "YIELD"}

_REG = re.compile(r"^[-|!~]*R(?P<n>\d+|Z)(?P<mods>(?:\.\w+)*)\|?$")


FREE_READ_RULES = ("none", "own-accumulator", "recent:N")


@dataclass(frozen=True)
class ArchModel:
    arch: str
    banks: int
    conflict_reads: int  # non-cached distinct reads in one bank that make a conflict
    status: str  # "published" or "inferred, to calibrate" or "calibrated"
    source: str
    # Extra issue cycles per register-file read beyond the first in one bank, once
    # measured (lab/regbank_calib.py).
    penalty_cycles: Optional[float] = None
    # Which source reads make no register-file bank read although the reuse cache does
    # not serve them (FREE_READ_RULES; see free_read()):
    #   "none"            every non-cached read is a bank read (the rule in use);
    #   "own-accumulator" the c-slot read of the instruction's own destination
    #                     (FFMA Rd, Ra, Rb, Rd: an accumulator) is free;
    #   "recent:N"        a read of a register that one of the previous N instructions
    #                     wrote (as a slotted ALU destination) is free, in any slot.
    # The calibration variants acc_e0e1 / w7_e0e1 / w4_e0e1 / w7a_e0e1 / acc32_e0e1
    # decide between them; flip it with with_free_reads() or in ARCH_MODELS.
    free_reads: str = "none"

    def bank(self, reg: int) -> int:
        return reg % self.banks

    def with_free_reads(self, rule: str) -> "ArchModel":
        _parse_free_reads(rule)
        return replace(self, free_reads=rule)


def _parse_free_reads(rule: str) -> Tuple[str, int]:
    """("none" | "own-accumulator" | "recent", window)."""
    if rule in ("none", "own-accumulator"):
        return rule, 0
    m = re.fullmatch(r"recent:(\d+)", rule)
    if m and int(m.group(1)) > 0:
        return "recent", int(m.group(1))
    raise ConfigError(f"free-read rule {rule!r}: want one of none, own-accumulator, recent:N (N >= 1)")


_AMPERE = ("2 banks, bank = R % 2; an FFMA with all three sources in one bank costs a 2-cycle bubble "
           "(Huerta et al., MICRO'25, GA10x; Jia et al. 1804.06826 / 1903.07486 for Volta/Turing)")
ARCH_MODELS: Dict[str, ArchModel] = {
    "sm_80": ArchModel("sm_80", 2, 3, "published (measured on GA10x, assumed for GA100)", _AMPERE, 2.0),
    "sm_86": ArchModel("sm_86", 2, 3, "published", _AMPERE, 2.0),
    "sm_89": ArchModel("sm_89", 2, 3, "published (GA10x figures, assumed for AD10x)", _AMPERE, 2.0),
    "sm_90": ArchModel("sm_90", 2, 2, "inferred, to calibrate",
                       "32 FP32 lanes per sub-partition issue one warp FFMA per cycle; inferred: at most one "
                       "non-cached read per bank per FFMA at full rate (shared/notes/register-banks.md)"),
}

# Calibrated numbers, keyed by arch, from `regbank_calib --time` on the machine itself
# (keys: conflict_reads, penalty_cycles, free_reads, measured).  sm_90: first H100 run,
# table and reading in docs/register-banks.md.  free_reads is left at the model's
# "none" until the accumulator variants are measured.
CALIBRATION: Dict[str, dict] = {
    "sm_90": {"conflict_reads": 2, "penalty_cycles": 1.0,
              "measured": "H100 SXM 80GB, 2026-11-22, lab/regbank_calib.py --ffmas 1024 (docs/data/"
                          "regbank_calib_1024.json): 2 reads in one bank 2.00, 3 reads 3.00, one per bank "
                          "1.01 issue cycles/FFMA/SMSP; reuse per (slot, bank); bank totals overlap across "
                          "FFMAs (ptxas's loop 1.53, bank_bound 1.531)"},
}


def arch_model(arch: str) -> ArchModel:
    if arch not in ARCH_MODELS:
        raise ArchError(f"no register-bank model for {arch!r}; known: {', '.join(ARCH_MODELS)}")
    m = ARCH_MODELS[arch]
    cal = CALIBRATION.get(arch)
    if cal:
        m = ArchModel(arch, m.banks, cal.get("conflict_reads", m.conflict_reads), "calibrated",
                      cal.get("measured", m.source), cal.get("penalty_cycles", m.penalty_cycles),
                      cal.get("free_reads", m.free_reads))
    return m


# ---- reading one instruction ---------------------------------------------------------
@dataclass(frozen=True)
class SourceRead:
    slot: str
    reg: int
    reuse: bool  # from the operand text


def yields(ins: Instruction) -> bool:
    """The yield hint of the control code (bit 4 of hi >> 41; set when 0)."""
    return isa.yields(ins.hi)


def reuse_bits(ins: Instruction) -> Tuple[bool, bool, bool]:
    return isa.reuse_flags(ins.hi)


def source_reads(ins: Instruction) -> Optional[Tuple[SourceRead, ...]]:
    """The register reads of a slotted instruction, by slot; None when the
    instruction is not slotted or its operands are not of the simple form
    (destination register, then the sources)."""
    n = SLOTTED.get(ins.base)
    if n is None or len(ins.operands) < n + 1 or not _REG.match(ins.operands[0]):
        return None
    if ins.base == "IMAD" and "WIDE" in ins.modifiers:
        return None  # 64-bit destination and addend pair: not modelled
    reads = []
    for slot, text in zip(SLOTS, ins.operands[1:n + 1]):
        m = _REG.match(text)
        if not m:
            if text.startswith("P") or text.startswith("!P"):
                return None  # a predicate where a source should be: another operand form
            continue  # immediate or constant: no register read
        if m.group("n") == "Z":
            continue
        reads.append(SourceRead(slot, int(m.group("n")), ".reuse" in m.group("mods")))
    return tuple(reads)


def encoding_mismatches(ins: Instruction, reads: Sequence[SourceRead]) -> List[str]:
    """Where the operand text and the encoding disagree (reuse bits; FFMA fields)."""
    out = []
    bits = dict(zip(SLOTS, reuse_bits(ins)))
    for r in reads:
        if bits[r.slot] != r.reuse:
            out.append(f"slot {r.slot}: text says reuse={r.reuse}, bit {REUSE_BIT[r.slot]} says {bits[r.slot]}")
    if isa.is_ffma_rrr(ins.base, ins.lo):
        fields = {s: isa.field(ins.lo, ins.hi, bit) for s, bit in isa.FIELD_OF_SLOT.items()}
        for r in reads:
            if fields[r.slot] != r.reg:
                out.append(f"slot {r.slot}: text R{r.reg}, field R{fields[r.slot]}")
    return out


# ---- the pass --------------------------------------------------------------------------
@dataclass(frozen=True)
class FfmaBanks:
    offset: int
    text: str
    dest: int
    reads: Tuple[SourceRead, ...]
    cached: Tuple[bool, ...]  # per read: served by the reuse cache
    bank_reads: Tuple[int, ...]  # distinct registers per bank read from the register file
    conflict: bool
    free: Tuple[bool, ...] = ()  # per read: free under the model's free-read rule

    @property
    def max_bank_reads(self) -> int:
        return max(self.bank_reads) if self.bank_reads else 0


@dataclass
class RegBankReport:
    arch: str
    model: ArchModel
    scope: str  # "main loop" or "whole function (no loop found)"
    ffmas: List[FfmaBanks]
    other_slotted: int  # slotted non-FFMA instructions in scope
    reuse_hits: int  # FFMA source reads served by the cache
    reuse_flags: int  # FFMA source reads flagged .reuse
    reads: int  # FFMA source register reads (slots with a register)
    mismatches: List[Tuple[int, str]] = field(default_factory=list)
    register_map: Dict[str, List[int]] = field(default_factory=dict)
    other_archs: Dict[str, int] = field(default_factory=dict)  # conflicted FFMAs under each model

    @property
    def conflicts(self) -> int:
        return sum(f.conflict for f in self.ffmas)

    @property
    def conflict_share(self) -> float:
        return self.conflicts / len(self.ffmas) if self.ffmas else 0.0

    def bank_read_totals(self) -> Tuple[int, ...]:
        """Register-file reads per bank over all FFMAs in scope."""
        if not self.ffmas:
            return ()
        return tuple(sum(f.bank_reads[b] for f in self.ffmas) for b in range(self.model.banks))

    @property
    def bank_bound(self) -> float:
        """Bank-read bound: issue cycles per FFMA per sub-partition when each bank serves
        one read per cycle and the reads of neighbouring instructions overlap (so only
        each bank's total counts): max(1, most reads of one bank / FFMAs).  On the H100
        this matched all 14 calibration variants, ptxas's own loop included, within
        0.5% (docs/register-banks.md)."""
        n = len(self.ffmas)
        return max(1.0, max(self.bank_read_totals()) / n) if n else 0.0

    @property
    def per_instruction_cycles(self) -> float:
        """The per-instruction estimate: each FFMA costs 1 cycle plus `penalty_cycles`
        (1 where unmeasured) per read beyond the first in its busiest bank, nothing
        overlapping.  Over-estimates loops whose conflicts alternate banks."""
        n = len(self.ffmas)
        pen = 1.0 if self.model.penalty_cycles is None else self.model.penalty_cycles
        return sum(1.0 + pen * max(0, f.max_bank_reads - 1) for f in self.ffmas) / n if n else 0.0

    def histogram(self) -> Dict[int, int]:
        """FFMAs by the most non-cached reads any one bank gets (0..3)."""
        return dict(sorted(Counter(f.max_bank_reads for f in self.ffmas).items()))

    def banks_of(self, role: str) -> Dict[int, int]:
        return dict(sorted(Counter(self.model.bank(r) for r in self.register_map.get(role, [])).items()))

    def to_dict(self) -> dict:
        m = self.model
        return {
            "model": {"arch": m.arch, "banks": m.banks, "conflict_reads": m.conflict_reads,
                      "status": m.status, "source": m.source, "penalty_cycles": m.penalty_cycles,
                      "free_reads": m.free_reads},
            "scope": self.scope,
            "ffma": len(self.ffmas),
            "conflicted_ffma": self.conflicts,
            "conflict_share": round(self.conflict_share, 4),
            "conflicted_ffma_by_model": dict(self.other_archs),
            "max_bank_reads_histogram": {str(k): v for k, v in self.histogram().items()},
            "bank_read_totals": list(self.bank_read_totals()),
            "bank_bound_cycles_per_ffma": round(self.bank_bound, 4),
            "per_instruction_cycles_per_ffma": round(self.per_instruction_cycles, 4),
            "source_reads": self.reads,
            "reuse_flags": self.reuse_flags,
            "reuse_hits": self.reuse_hits,
            "reuse_hit_share": round(self.reuse_hits / self.reads, 4) if self.reads else 0.0,
            "other_slotted_instructions": self.other_slotted,
            "encoding_mismatches": [{"offset": o, "what": w} for o, w in self.mismatches],
            "register_map": {role: {"registers": regs, "banks": {str(b): c for b, c in self.banks_of(role).items()}}
                             for role, regs in self.register_map.items()},
            "conflicted_examples": [f"/*{f.offset:04x}*/ {f.text}" for f in self.ffmas if f.conflict][:8],
        }

    def render_text(self) -> str:
        m = self.model
        n = len(self.ffmas)
        lines = [f"register banks ({m.arch}: {m.banks} banks, conflict at {m.conflict_reads}+ non-cached reads "
                 f"in one bank; free reads: {m.free_reads}; {m.status})  scope: {self.scope}"]
        if not n:
            lines.append("  no FFMA in scope")
            return "\n".join(lines)
        lines.append(f"  FFMA {n}: conflicted {self.conflicts} ({100 * self.conflict_share:.1f}%); "
                     f"by model: " + ", ".join(f"{a} {c}" for a, c in self.other_archs.items()))
        lines.append(f"  source reads {self.reads}, flagged .reuse {self.reuse_flags}, served by the reuse cache "
                     f"{self.reuse_hits} ({100 * self.reuse_hits / max(1, self.reads):.1f}%)")
        totals = self.bank_read_totals()
        lines.append(f"  register-file reads per bank {list(totals)}: bank-read bound {self.bank_bound:.3f} "
                     f"cycles/FFMA per sub-partition (per-instruction estimate {self.per_instruction_cycles:.3f})")
        hist = self.histogram()
        lines.append("  most non-cached reads in one bank: " +
                     ", ".join(f"{k}: {v} FFMA" for k, v in hist.items()))
        for role in ("accumulators", "A fragments (slot a)", "B fragments (slot b)", "ambiguous"):
            regs = self.register_map.get(role, [])
            if regs:
                banks = ", ".join(f"bank {b}: {c}" for b, c in self.banks_of(role).items())
                lines.append(f"  {role:<21} {len(regs):3d} regs ({banks}): {_ranges(regs)}")
        if self.mismatches:
            lines.append(f"  ENCODING MISMATCHES {len(self.mismatches)}: first {self.mismatches[0]}")
        ex = [f for f in self.ffmas if f.conflict][:3]
        for f in ex:
            lines.append(f"  e.g. /*{f.offset:04x}*/ {f.text}   non-cached reads per bank {list(f.bank_reads)}")
        return "\n".join(lines)


def _ranges(regs: Sequence[int]) -> str:
    regs = sorted(regs)
    out, start, prev = [], None, None
    for r in regs + [None]:
        if start is None:
            start = prev = r
        elif r is not None and r == prev + 1:
            prev = r
        else:
            out.append(f"R{start}" if start == prev else f"R{start}-R{prev}")
            start = prev = r
    return " ".join(out)


def _walk(instrs: Sequence[Instruction], labels: Sequence[int], model: ArchModel, clear_on_yield: bool = True,
          cyclic: bool = False):
    """Run the reuse cache over the instructions; yield (instruction, reads, cached, free).

    `free` marks the reads that the model's free-read rule serves without a bank read
    (never one the reuse cache already serves).  `cyclic`: the instructions are a loop
    body, so a "recent:N" window at its top starts with the body's last N instructions."""
    label_offsets = set(labels)
    cache: Dict[Tuple[str, int], int] = {}
    rule, window = _parse_free_reads(model.free_reads)
    history: List[Optional[int]] = []  # slotted destination (or None) of each earlier instruction
    if rule == "recent" and cyclic:
        history = [_slotted_dest(i) for i in instrs[-window:]]
    for ins in instrs:
        if ins.offset in label_offsets:
            cache.clear()
        reads = source_reads(ins)
        if reads is not None:
            cached = tuple(cache.get((r.slot, model.bank(r.reg))) == r.reg for r in reads)
            dest = _slotted_dest(ins)
            if rule == "own-accumulator":
                free = tuple(not c and r.slot == "c" and r.reg == dest for r, c in zip(reads, cached))
            elif rule == "recent":
                recent = set(history[-window:])
                free = tuple(not c and r.reg in recent for r, c in zip(reads, cached))
            else:
                free = (False,) * len(reads)
            yield ins, reads, cached, free
            for r in reads:
                key = (r.slot, model.bank(r.reg))
                if r.reuse:
                    cache[key] = r.reg
                else:
                    cache.pop(key, None)
        if rule == "recent":
            history.append(_slotted_dest(ins))
            del history[:-window]
        if ins.base in CLEARS_AFTER or (clear_on_yield and yields(ins)):
            cache.clear()


def _slotted_dest(ins: Instruction) -> Optional[int]:
    """The register an ALU (slotted) instruction writes; None for anything else."""
    if ins.base not in SLOTTED or not ins.operands:
        return None
    m = _REG.match(ins.operands[0])
    if not m or m.group("n") == "Z":
        return None
    return int(m.group("n"))


def _ffma_banks(ins: Instruction, reads, cached, free, model: ArchModel) -> FfmaBanks:
    per_bank: Dict[int, set] = {b: set() for b in range(model.banks)}
    for r, hit, fr in zip(reads, cached, free):
        if not hit and not fr:
            per_bank[model.bank(r.reg)].add(r.reg)
    counts = tuple(len(per_bank[b]) for b in range(model.banks))
    dest = _REG.match(ins.operands[0]).group("n")
    return FfmaBanks(ins.offset, ins.text, isa.RZ if dest == "Z" else int(dest), reads, cached, counts,
                     max(counts) >= model.conflict_reads, tuple(free))


def _register_map(ffmas: Sequence[FfmaBanks]) -> Dict[str, List[int]]:
    slot_use: Dict[int, Counter] = {}
    for f in ffmas:
        for r in f.reads:
            if r.slot in ("a", "b"):
                slot_use.setdefault(r.reg, Counter())[r.slot] += 1
    acc = sorted({f.dest for f in ffmas})
    a = sorted(r for r, c in slot_use.items() if c["a"] > c["b"])
    b = sorted(r for r, c in slot_use.items() if c["b"] > c["a"])
    amb = sorted(r for r, c in slot_use.items() if c["a"] == c["b"])
    return {"accumulators": acc, "A fragments (slot a)": a, "B fragments (slot b)": b, "ambiguous": amb}


def analyze(func: SassFunction, arch: str, clear_on_yield: bool = True,
            model: Optional[ArchModel] = None) -> RegBankReport:
    """Register-bank report of `func`'s main loop under `arch`'s model (or `model`,
    e.g. arch_model(arch).with_free_reads("own-accumulator") to try another rule)."""
    model = model or arch_model(arch)
    instrs = func.loop_instructions()
    scope = "main loop"
    cyclic = bool(instrs)
    if not instrs:
        instrs, scope = list(func.instructions), "whole function (no loop found)"
    ffmas, other, mismatches = [], 0, []
    hits = flags = nreads = 0
    for ins, reads, cached, free in _walk(instrs, func.labels.values(), model, clear_on_yield, cyclic):
        mismatches += [(ins.offset, f"{ins.text}: {w}") for w in encoding_mismatches(ins, reads)]
        if ins.base != "FFMA":
            other += 1
            continue
        ffmas.append(_ffma_banks(ins, reads, cached, free, model))
        nreads += len(reads)
        flags += sum(r.reuse for r in reads)
        hits += sum(cached)
    others = {}
    for a in ARCH_MODELS:
        m = arch_model(a)
        others[a] = sum(_ffma_banks(i, r, c, f, m).conflict
                        for i, r, c, f in _walk(instrs, func.labels.values(), m, clear_on_yield, cyclic)
                        if i.base == "FFMA")
    return RegBankReport(arch, model, scope, ffmas, other, hits, flags, nreads, mismatches,
                         _register_map(ffmas), others)
