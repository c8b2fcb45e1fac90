"""Register-bank analysis on hand-built SASS (nvdisasm -c -hex text fed to the parser)
and on a compiled preset."""
import re

import pytest

from regtile.runtime import reg_banks
from regtile.runtime.reg_banks import analyze
from regtile.runtime.sass import parse

NO_YIELD_CONTROL = 0x000FE20000000000  # stall 1, yield bit set (no yield), no barriers


def _reg(op):
    op = op.replace(".reuse", "")
    return 255 if op == "RZ" else int(op[1:]) if re.fullmatch(r"R\d+", op) else None


def ffma(d, a, b, c, yield_=False, reuse_bits=None):
    """One FFMA as nvdisasm prints it: text, and an encoding built from the notes' fields
    (Rd lo[16:24], Ra lo[24:32], Rb lo[32:40], Rc hi[0:8], reuse hi bits 58-60)."""
    ops = (a, b, c)
    regs = [_reg(o) for o in ops]
    lo = 0x7223 | (_reg(d) << 16) | ((regs[0] or 0) << 24) | ((regs[1] or 0) << 32)
    if any(r is None for r in regs):
        lo = (lo & ~0xFFF) | 0x823  # another operand form: no register-field check
    hi = NO_YIELD_CONTROL | (regs[2] if regs[2] is not None else 0)
    flags = reuse_bits if reuse_bits is not None else [o.endswith(".reuse") for o in ops]
    for bit, f in zip((58, 59, 60), flags):
        hi |= int(f) << bit
    if yield_:
        hi &= ~(1 << 45)
    return f"FFMA {d}, {a}, {b}, {c}", lo, hi


def sass(*body, label_at=()):
    """A function whose body is one loop: label, the instructions, a branch back."""
    lines = ['\t.section\t.text.k,"ax",@progbits', ".L_x_0:"]
    off = 0
    for i, ins in enumerate(body):
        if i in label_at:
            lines.append(f".L_x_{i + 1}:")
        text, lo, hi = ins
        lines.append(f"        /*{off:04x}*/                   {text} ;   /* 0x{lo:016x} */")
        lines.append(f"                                                   /* 0x{hi:016x} */")
        off += 16
    lines.append(f"        /*{off:04x}*/                   BRA `(.L_x_0) ;   /* 0x{0xfffffffc00fc7947:016x} */")
    lines.append(f"                                                   /* 0x{NO_YIELD_CONTROL:016x} */")
    return parse("\n".join(lines))["k"]


def _conflicts(func, arch):
    return [f.conflict for f in analyze(func, arch).ffmas]


# ---- bank patterns, no reuse ------------------------------------------------------------------
def test_three_sources_in_one_bank_conflict_everywhere():
    f = sass(ffma("R10", "R2", "R4", "R6"))
    assert _conflicts(f, "sm_80") == [True] and _conflicts(f, "sm_90") == [True]
    assert analyze(f, "sm_90").ffmas[0].bank_reads == (3, 0)


def test_two_in_one_bank_conflict_only_on_sm90():
    f = sass(ffma("R10", "R2", "R4", "R5"), ffma("R11", "R3", "R4", "R5"), ffma("R12", "R3", "R5", "R4"))
    assert _conflicts(f, "sm_80") == [False, False, False]
    assert _conflicts(f, "sm_90") == [True, True, True]
    assert analyze(f, "sm_86").conflicts == 0 and analyze(f, "sm_89").conflicts == 0


@pytest.mark.parametrize("c", ["RZ", "R2"])
def test_one_read_per_bank_is_conflict_free(c):
    # c = RZ makes no read; c = a is the same register, read once
    f = sass(ffma("R10", "R2", "R3", c))
    assert _conflicts(f, "sm_80") == [False] and _conflicts(f, "sm_90") == [False]


def test_immediates_and_constants_make_no_read():
    f = sass(ffma("R10", "R2", "2", "R4"), ffma("R11", "R2", "c[0x0][0x160]", "R4"))
    r = analyze(f, "sm_90")
    assert [len(x.reads) for x in r.ffmas] == [2, 2] and r.conflicts == 2
    assert analyze(f, "sm_80").conflicts == 0


# ---- the reuse cache ----------------------------------------------------------------------------
def test_reuse_hit_removes_the_conflict():
    f = sass(ffma("R10", "R2.reuse", "R4", "R6"), ffma("R11", "R2", "R4", "R7"))
    r = analyze(f, "sm_90")
    assert [x.conflict for x in r.ffmas] == [True, False]
    assert r.ffmas[1].cached == (True, False, False) and r.reuse_hits == 1 and r.reuse_flags == 1


def test_three_in_one_bank_with_two_reused_is_free():
    f = sass(ffma("R10", "R2.reuse", "R4.reuse", "R6"), ffma("R11", "R2", "R4", "R6"))
    for arch in ("sm_80", "sm_90"):
        assert _conflicts(f, arch) == [True, False]


def test_three_in_one_bank_with_one_reused_still_conflicts_on_sm90():
    f = sass(ffma("R10", "R2.reuse", "R4", "R6"), ffma("R11", "R2", "R4", "R6"))
    assert _conflicts(f, "sm_80") == [True, False]
    assert _conflicts(f, "sm_90") == [True, True]


def test_reuse_of_another_register_misses():
    f = sass(ffma("R10", "R2.reuse", "R5", "R7"), ffma("R11", "R4", "R5", "R6"))
    r = analyze(f, "sm_90")
    assert r.ffmas[1].cached == (False, False, False) and r.ffmas[1].conflict


def test_one_entry_per_slot_and_bank():
    # R3 in slot a (bank 1) does not evict R2 (bank 0) from slot a
    f = sass(ffma("R10", "R2.reuse", "R5", "R7"), ffma("R11", "R3.reuse", "R4", "R9"),
             ffma("R12", "R2", "R4", "R7"))
    r = analyze(f, "sm_90")
    assert r.ffmas[2].cached[0] and not r.ffmas[2].conflict


def test_a_read_without_reuse_clears_its_entry():
    f = sass(ffma("R10", "R2.reuse", "R5", "R7"), ffma("R11", "R2", "R5", "R7"), ffma("R12", "R2", "R4", "R6"))
    r = analyze(f, "sm_90")
    assert r.ffmas[1].cached[0] and not r.ffmas[2].cached[0] and r.ffmas[2].conflict


def test_slots_are_separate():
    # R2 cached in slot a does not serve a read of R2 in slot b
    f = sass(ffma("R10", "R2.reuse", "R5", "R7"), ffma("R11", "R4", "R2", "R6"))
    assert analyze(f, "sm_90").ffmas[1].cached == (False, False, False)


def test_a_label_clears_the_cache():
    f = sass(ffma("R10", "R2.reuse", "R4", "R6"), ffma("R11", "R2", "R4", "R7"), label_at=(1,))
    assert analyze(f, "sm_90").ffmas[1].cached[0] is False


def test_a_yield_clears_the_cache_unless_told_not_to():
    f = sass(ffma("R10", "R2.reuse", "R4", "R6", yield_=True), ffma("R11", "R2", "R4", "R7"))
    assert analyze(f, "sm_90").ffmas[1].cached[0] is False
    assert analyze(f, "sm_90", clear_on_yield=False).ffmas[1].cached[0] is True


# ---- encodings, register map, report ------------------------------------------------------------
def test_reuse_flags_are_cross_checked_with_the_encoding():
    good = sass(ffma("R10", "R2.reuse", "R4", "R6"))
    assert analyze(good, "sm_90").mismatches == []
    bad = sass(ffma("R10", "R2.reuse", "R4", "R6", reuse_bits=(False, True, False)))
    what = [w for _, w in analyze(bad, "sm_90").mismatches]
    assert len(what) == 2 and "slot a" in what[0] and "slot b" in what[1]


def test_register_fields_are_cross_checked():
    text, lo, hi = ffma("R10", "R2", "R4", "R6")
    lo = (lo & ~(0xFF << 32)) | (8 << 32)  # Rb field says R8
    f = sass((text, lo, hi))
    assert any("field R8" in w for _, w in analyze(f, "sm_90").mismatches)


def test_register_map_and_report():
    f = sass(ffma("R10", "R2.reuse", "R4", "R10"), ffma("R11", "R2", "R5", "R11"), ffma("R12", "R3", "R5", "R12"))
    r = analyze(f, "sm_90")
    assert r.register_map["accumulators"] == [10, 11, 12]
    assert r.register_map["A fragments (slot a)"] == [2, 3]
    assert r.register_map["B fragments (slot b)"] == [4, 5]
    assert r.banks_of("accumulators") == {0: 2, 1: 1}
    d = r.to_dict()
    assert d["ffma"] == 3 and d["model"]["status"] == "calibrated" and d["model"]["free_reads"] == "none"
    assert set(d["conflicted_ffma_by_model"]) == set(reg_banks.ARCH_MODELS)
    assert "register banks (sm_90" in r.render_text()


def test_models_and_calibration_slot(monkeypatch):
    assert reg_banks.arch_model("sm_80").conflict_reads == 3
    assert reg_banks.arch_model("sm_90").conflict_reads == 2
    with pytest.raises(ValueError):
        reg_banks.arch_model("sm_70")
    monkeypatch.setitem(reg_banks.CALIBRATION, "sm_90", {"conflict_reads": 3, "penalty_cycles": 0.5,
                                                         "measured": "test"})
    m = reg_banks.arch_model("sm_90")
    assert (m.conflict_reads, m.penalty_cycles, m.status) == (3, 0.5, "calibrated")
    f = sass(ffma("R10", "R2", "R4", "R5"))
    assert _conflicts(f, "sm_90") == [False]


# ---- a compiled kernel ----------------------------------------------------------------------------
def test_compiled_zorder_kernel():
    from regtile.codegen.emit_cuda import kernel_name
    from regtile.codegen.presets import get_preset
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.sass import function_of
    cfg = get_preset("zorder").config
    _, func = function_of(compile_config(cfg, "sm_90").cubin, kernel_name(cfg))
    r = analyze(func, "sm_90")
    assert r.scope == "main loop" and len(r.ffmas) == cfg.bk * cfg.tm * cfg.tn
    assert r.mismatches == []  # the notes' reuse bits and register fields hold for this compiler
    assert r.reuse_hits > 0 and len(r.register_map["accumulators"]) >= cfg.tm * cfg.tn
    assert r.other_archs["sm_80"] <= r.other_archs["sm_90"]


# ---- free-read rules and the bank-read bound ------------------------------------------------------
def test_own_accumulator_rule_frees_only_the_c_read_of_the_destination():
    f = sass(ffma("R10", "R2", "R4", "R10"), ffma("R11", "R2", "R4", "R10"), ffma("R12", "R10", "R3", "R13"))
    base = reg_banks.arch_model("sm_90")
    assert base.free_reads == "none"
    assert [x.bank_reads for x in analyze(f, "sm_90").ffmas] == [(3, 0), (3, 0), (1, 2)]
    r = analyze(f, "sm_90", model=base.with_free_reads("own-accumulator"))
    # R10 in slot c of its own FFMA is free; R10 read by another FFMA, or in slot a, is not
    assert [x.bank_reads for x in r.ffmas] == [(2, 0), (3, 0), (1, 2)]
    assert r.ffmas[0].free == (False, False, True)


def test_recent_rule_frees_reads_of_registers_written_in_the_window():
    f = sass(ffma("R10", "R2", "R4", "R6"), ffma("R11", "R3", "R5", "R7"), ffma("R12", "R10", "R4", "R8"))
    base = reg_banks.arch_model("sm_90")
    # R10 written 2 instructions before FFMA 3: free under recent:2, not under recent:1
    assert analyze(f, "sm_90", model=base.with_free_reads("recent:2")).ffmas[2].bank_reads == (2, 0)
    assert analyze(f, "sm_90", model=base.with_free_reads("recent:1")).ffmas[2].bank_reads == (3, 0)
    # the loop is cyclic: R12, written at its bottom, is recent when read at its top
    g = sass(ffma("R10", "R12", "R4", "R6"), ffma("R12", "R3", "R5", "R7"))
    assert analyze(g, "sm_90", model=base.with_free_reads("recent:2")).ffmas[0].bank_reads == (2, 0)
    with pytest.raises(ValueError):
        base.with_free_reads("recent:0")
    with pytest.raises(ValueError):
        base.with_free_reads("sometimes")


def test_bank_bound_lets_alternating_conflicts_overlap():
    # each FFMA has two reads in one bank, the banks alternate: per instruction 2 cycles,
    # bank totals 1 read per FFMA each
    f = sass(ffma("R20", "R2", "R4", "RZ"), ffma("R21", "R3", "R5", "RZ"))
    r = analyze(f, "sm_90")
    assert r.conflicts == 2 and r.per_instruction_cycles == 2.0 and r.bank_bound == 1.0
    assert r.bank_read_totals() == (2, 2)
    g = sass(ffma("R20", "R2", "R4", "R6"), ffma("R21", "R3", "R5", "R6"))
    assert analyze(g, "sm_90").bank_bound == 2.0 and analyze(g, "sm_90").per_instruction_cycles == 2.5
    d = r.to_dict()
    assert d["bank_bound_cycles_per_ffma"] == 1.0 and d["per_instruction_cycles_per_ffma"] == 2.0
    assert "bank-read bound 1.000" in r.render_text()
