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
  (inferred from one FFMA issued per cycle per sub-partition; no published
  measurement: tools/regbank_calib.py measures it, CALIBRATION below takes the result).

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

Encodings (sm_70+; notes, "The sm_90 instruction fields")
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
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from .sass import Instruction, SassFunction

SLOTS = ("a", "b", "c")
REUSE_BIT = {"a": 58, "b": 59, "c": 60}  # in the high 64-bit word
CONTROL_SHIFT = 41
FFMA_RRR = 0x223  # low 12 bits of FFMA Rd, Ra, Rb, Rc

# Instructions whose sources go through the operand slots, with how many sources
# (operands after the destination).  FFMA is the one the report is about.
SLOTTED = {"FFMA": 3, "IMAD": 3, "FMUL": 2, "FADD": 2, "FMNMX": 2, "IADD3": 3}
# Instructions after which the reuse cache is assumed lost.
CLEARS_AFTER = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BSYNC", "WARPSYNC", "BAR", "YIELD"}

_REG = re.compile(r"^[-|!~]*R(?P<n>\d+|Z)(?P<mods>(?:\.\w+)*)\|?$")


@dataclass(frozen=True)
class ArchModel:
    arch: str
    banks: int
    conflict_reads: int  # non-cached distinct reads in one bank that make a conflict
    status: str  # "published" or "inferred, to calibrate" or "calibrated"
    source: str
    # Extra issue cycles per conflicted FFMA, once measured (tools/regbank_calib.py).
    penalty_cycles: Optional[float] = None

    def bank(self, reg: int) -> int:
        return reg % self.banks


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

# Calibrated numbers go here, keyed by arch, from `regbank_calib --time` on the
# machine itself, e.g. {"sm_90": {"conflict_reads": 2, "penalty_cycles": 1.0,
# "measured": "H100 SXM, 2026-..., table in shared/notes"}}.  Empty until measured.
CALIBRATION: Dict[str, dict] = {}


def arch_model(arch: str) -> ArchModel:
    if arch not in ARCH_MODELS:
        raise ValueError(f"no register-bank model for {arch!r}; known: {', '.join(ARCH_MODELS)}")
    m = ARCH_MODELS[arch]
    cal = CALIBRATION.get(arch)
    if cal:
        m = ArchModel(arch, m.banks, cal.get("conflict_reads", m.conflict_reads), "calibrated",
                      cal.get("measured", m.source), cal.get("penalty_cycles", m.penalty_cycles))
    return m


# ---- reading one instruction ---------------------------------------------------------
@dataclass(frozen=True)
class SourceRead:
    slot: str
    reg: int
    reuse: bool  # from the operand text


def yields(ins: Instruction) -> bool:
    """The yield hint of the control code (bit 4 of hi >> 41; set when 0)."""
    return ((ins.hi >> CONTROL_SHIFT) >> 4) & 1 == 0


def reuse_bits(ins: Instruction) -> Tuple[bool, bool, bool]:
    return tuple(bool((ins.hi >> REUSE_BIT[s]) & 1) for s in SLOTS)


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
    if ins.base == "FFMA" and (ins.lo & 0xFFF) == FFMA_RRR:
        fields = {"a": (ins.lo >> 24) & 0xFF, "b": (ins.lo >> 32) & 0xFF, "c": ins.hi & 0xFF}
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
    bank_reads: Tuple[int, ...]  # distinct non-cached registers per bank
    conflict: bool

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

    def histogram(self) -> Dict[int, int]:
        """FFMAs by the most non-cached reads any one bank gets (0..3)."""
        return dict(sorted(Counter(f.max_bank_reads for f in self.ffmas).items()))

    def banks_of(self, role: str) -> Dict[int, int]:
        return dict(sorted(Counter(self.model.bank(r) for r in self.register_map.get(role, [])).items()))

    def to_dict(self) -> dict:
        m = self.model
        return {
            "model": {"arch": m.arch, "banks": m.banks, "conflict_reads": m.conflict_reads,
                      "status": m.status, "source": m.source, "penalty_cycles": m.penalty_cycles},
            "scope": self.scope,
            "ffma": len(self.ffmas),
            "conflicted_ffma": self.conflicts,
            "conflict_share": round(self.conflict_share, 4),
            "conflicted_ffma_by_model": dict(self.other_archs),
            "max_bank_reads_histogram": {str(k): v for k, v in self.histogram().items()},
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
                 f"in one bank; {m.status})  scope: {self.scope}"]
        if not n:
            lines.append("  no FFMA in scope")
            return "\n".join(lines)
        lines.append(f"  FFMA {n}: conflicted {self.conflicts} ({100 * self.conflict_share:.1f}%); "
                     f"by model: " + ", ".join(f"{a} {c}" for a, c in self.other_archs.items()))
        lines.append(f"  source reads {self.reads}, flagged .reuse {self.reuse_flags}, served by the reuse cache "
                     f"{self.reuse_hits} ({100 * self.reuse_hits / max(1, self.reads):.1f}%)")
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


def _walk(instrs: Sequence[Instruction], labels: Sequence[int], model: ArchModel, clear_on_yield: bool = True):
    """Run the reuse cache over the instructions; yield (instruction, reads, cached)."""
    label_offsets = set(labels)
    cache: Dict[Tuple[str, int], int] = {}
    for ins in instrs:
        if ins.offset in label_offsets:
            cache.clear()
        reads = source_reads(ins)
        if reads is not None:
            cached = tuple(cache.get((r.slot, model.bank(r.reg))) == r.reg for r in reads)
            yield ins, reads, cached
            for r in reads:
                key = (r.slot, model.bank(r.reg))
                if r.reuse:
                    cache[key] = r.reg
                else:
                    cache.pop(key, None)
        if ins.base in CLEARS_AFTER or (clear_on_yield and yields(ins)):
            cache.clear()


def _ffma_banks(ins: Instruction, reads, cached, model: ArchModel) -> FfmaBanks:
    per_bank: Dict[int, set] = {b: set() for b in range(model.banks)}
    for r, hit in zip(reads, cached):
        if not hit:
            per_bank[model.bank(r.reg)].add(r.reg)
    counts = tuple(len(per_bank[b]) for b in range(model.banks))
    dest = _REG.match(ins.operands[0]).group("n")
    return FfmaBanks(ins.offset, ins.text, 255 if dest == "Z" else int(dest), reads, cached, counts,
                     max(counts) >= model.conflict_reads)


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


def analyze(func: SassFunction, arch: str, clear_on_yield: bool = True) -> RegBankReport:
    """Register-bank report of `func`'s main loop under `arch`'s model."""
    model = arch_model(arch)
    instrs = func.loop_instructions()
    scope = "main loop"
    if not instrs:
        instrs, scope = list(func.instructions), "whole function (no loop found)"
    ffmas, other, mismatches = [], 0, []
    hits = flags = nreads = 0
    for ins, reads, cached in _walk(instrs, func.labels.values(), model, clear_on_yield):
        mismatches += [(ins.offset, f"{ins.text}: {w}") for w in encoding_mismatches(ins, reads)]
        if ins.base != "FFMA":
            other += 1
            continue
        ffmas.append(_ffma_banks(ins, reads, cached, model))
        nreads += len(reads)
        flags += sum(r.reuse for r in reads)
        hits += sum(cached)
    others = {}
    for a in ARCH_MODELS:
        m = arch_model(a)
        others[a] = sum(_ffma_banks(i, r, c, m).conflict
                        for i, r, c in _walk(instrs, func.labels.values(), m, clear_on_yield) if i.base == "FFMA")
    return RegBankReport(arch, model, scope, ffmas, other, hits, flags, nreads, mismatches,
                         _register_map(ffmas), others)
