"""The SASS register-bank pass (sass/bank_pass.py, applied by runtime/sass_stage.py) on real cubins, without a GPU:
every applicable preset and backend is rewritten for sm_90, disassembled again and
checked against what the pass promises; refusals are checked with their reasons."""
import collections
import dataclasses
import re

import pytest
from tiers import tiered

from regtile.codegen.config import SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.presets import PRESETS, get_preset
from regtile.runtime import cubin_info, reg_banks, sass_fields, sass_pass
from regtile.runtime.compiler import CompileError, compile_source
from regtile.runtime.sass import function_of

SGEMM_PRESETS = [name for name, p in PRESETS.items() if isinstance(p.config, SgemmConfig)]
CASES = [(name, "cuda") for name in SGEMM_PRESETS] + [
    (name, "ptx") for name in SGEMM_PRESETS if get_preset(name).config.frag_regs]


@pytest.fixture(scope="module")
def passed():
    """(name, backend) -> artifact with the pass applied (compiled once per module)."""
    cache = {}

    def get(name, backend):
        if (name, backend) not in cache:
            cfg = get_preset(name).config.replace(sass_pass=True)
            cache[(name, backend)] = compile_source(emit(cfg, backend), "sm_90")
        return cache[(name, backend)]
    return get


def _loop_ffmas(func):
    return [i for i in func.loop_instructions() if i.base == "FFMA"]


def _ffma_key(ins, rename=lambda r: r):
    """(dest, {a, b}, c) of an FFMA with its registers renamed back: what it computes."""
    regs = [int(x) for x in re.findall(r"(?<![A-Z])R(\d+)", " ".join(op.replace(".reuse", "") for op in ins.operands))]
    d, a, b, c = (rename(r) for r in regs[:4])
    return d, frozenset((a, b)), c


@pytest.mark.parametrize("name, backend", tiered(CASES, fast={("zorder", "ptx")}))
def test_pass_rewrites_every_preset(passed, name, backend):
    art = passed(name, backend)
    rep = art.sass_pass
    assert rep is not None and art.cubin_before_pass is not None
    _, before = function_of(art.cubin_before_pass, art.name)
    _, after = function_of(art.cubin, art.name)  # disassembles
    # same instructions, same count (the store step moves the tile's shared stores above the branch that skipped
    # them, in their order, and leaves a NOP for the branch); the register count in .nv.info is unchanged and
    # still covers every register the rewritten kernel names
    st = rep.stores
    branch, nop = ((int(st["at"], 16) + 16 * st["over_ffmas"], int(st["at"], 16) + 16 * (st["over_ffmas"] + st["stores_spread"]))
                   if st.get("stores_spread") else (-1, -1))
    assert [i.opcode for i in after.instructions if i.base not in ("FFMA", "STS") and i.offset != nop] == \
           [i.opcode for i in before.instructions if i.base not in ("FFMA", "STS") and i.offset != branch]
    assert [i.text for i in after.instructions if i.base == "STS"] == \
           [i.text for i in before.instructions if i.base == "STS"]
    assert len(after.instructions) == len(before.instructions)
    count = cubin_info.kernel_info(art.cubin, art.name).registers
    assert count == cubin_info.kernel_info(art.cubin_before_pass, art.name).registers == rep.registers
    fields = sass_fields.locate_all(after)
    used = {r for fs in fields.values() for f in fs for r in f.registers()}
    assert max(used) < count - sass_pass.RESERVED_REGISTERS
    # the analysis of the rewritten cubin: never more conflicted FFMAs than ptxas's, and
    # what the report says is what the cubin shows
    rb_before = reg_banks.analyze(before, "sm_90")
    rb_after = reg_banks.analyze(after, "sm_90")
    assert rb_after.conflicts <= rb_before.conflicts
    assert rep.after["conflicted_ffma"] == rb_after.conflicts
    assert rep.before["conflicted_ffma"] == rb_before.conflicts
    assert not rb_after.mismatches  # reuse bits and FFMA fields agree with the text
    # the loop computes the same FFMAs (as a multiset, registers renamed back)
    back = {new: old for old, new in rep.renaming.items()}
    assert collections.Counter(_ffma_key(i) for i in _loop_ffmas(before)) == \
           collections.Counter(_ffma_key(i, lambda r: back.get(r, r)) for i in _loop_ffmas(after))


@pytest.mark.parametrize("name, backend", tiered([("zorder", "ptx"), ("pad", "cuda")], fast={("zorder", "ptx")}))
def test_pass_cuts_conflicts_where_ptxas_left_many(passed, name, backend):
    rep = passed(name, backend).sass_pass
    assert rep.after["conflicted_ffma"] < 0.6 * rep.before["conflicted_ffma"], rep.render_text()


@pytest.mark.parametrize("name, backend", tiered([("zorder", "ptx"), ("zorder-256x128", "cuda")],
                                                fast={("zorder", "ptx")}))
def test_every_reuse_flag_is_served_and_never_stale(passed, name, backend):
    """Read off the rewritten SASS alone: each .reuse on a loop FFMA is followed, in
    straight-line code, by a read of the same register in the same slot before any
    slotted read of that slot and bank, and nothing writes the register in between."""
    art = passed(name, backend)
    _, func = function_of(art.cubin, art.name)
    fields = sass_fields.locate_all(func)
    labels = set(func.labels.values())
    loop = func.loop_instructions()
    checked = 0
    for i, ins in enumerate(loop):
        for f in fields[ins.offset]:
            if f.written or f.slot is None or ".reuse" not in ins.operands[f.operand]:
                continue
            assert f.reg not in {r for g in fields[ins.offset] if g.written for r in g.registers()}
            served = False
            for nxt in loop[i + 1:]:
                assert nxt.offset not in labels, f"{ins.text}: reuse across a label"
                reads = [g.reg for g in fields[nxt.offset] if not g.written and g.slot == f.slot]
                if f.reg in reads:
                    served = True
                    break
                assert not (nxt.base in reg_banks.SLOTTED and any(r % 2 == f.reg % 2 for r in reads)), \
                    f"{ins.text}: entry taken by {nxt.text} first"
                assert f.reg not in {r for g in fields[nxt.offset] if g.written for r in g.registers()}, \
                    f"{ins.text}: R{f.reg} written by {nxt.text} before the reuse"
                assert nxt.base not in reg_banks.CLEARS_AFTER
            assert served, f"/*{ins.offset:04x}*/ {ins.text}: .reuse never served"
            checked += 1
    assert checked > 100


def test_renaming_that_breaks_a_vector_operand_is_refused(passed):
    art = passed("zorder", "ptx")
    _, func = function_of(art.cubin_before_pass, art.name)
    fields = sass_fields.locate_all(func)
    instrs = {i.offset: i for i in func.instructions}
    quad = next(f for fs in fields.values() for f in fs if f.count == 4)
    scalar = next(r for r in range(2, 100) if all(r not in f.registers() for fs in fields.values()
                                                   for f in fs if f.count > 1))
    # swap the second register of an LDS.128 destination with a scalar register
    perm = {quad.reg + 1: scalar, scalar: quad.reg + 1}
    with pytest.raises(sass_pass.SassPassRefused, match="consecutive registers starting at a multiple of 4"):
        sass_pass.check_renaming(fields, perm, art.resources.registers, instrs)
    # a whole quad moved to another aligned quad keeps the operand legal
    free = [q for q in range(0, 120, 4) if all(r not in f.registers() for fs in fields.values()
                                               for f in fs for r in range(q, q + 4))]
    if free:
        q = free[0]
        ok = {quad.reg + i: q + i for i in range(4)}
        ok.update({q + i: quad.reg + i for i in range(4)})
        sass_pass.check_renaming(fields, ok, art.resources.registers, instrs)
    # not a permutation; a register past what the kernel may use
    with pytest.raises(sass_pass.SassPassRefused, match="not a permutation"):
        sass_pass.check_renaming(fields, {5: 7}, art.resources.registers, instrs)
    top = art.resources.registers - 1
    with pytest.raises(sass_pass.SassPassRefused, match="outside the kernel"):
        sass_pass.check_renaming(fields, {5: top, top: 5}, art.resources.registers, instrs)


@pytest.mark.slow
def test_unknown_instruction_form_is_refused(passed, monkeypatch):
    art = passed("vec4", "cuda")
    monkeypatch.setattr(sass_fields, "KNOWN_OPCODES", sass_fields.KNOWN_OPCODES - {"LDS"})
    with pytest.raises(sass_pass.SassPassRefused, match=r"LDS.*not in the pass's table of known forms"):
        sass_pass.run_pass(art.cubin_before_pass, art.name)


@pytest.mark.slow
def test_field_map_is_proven_by_the_disassembler(passed):
    """A field map that puts a register in the wrong field fails the probe rewrite."""
    art = passed("zorder", "cuda")
    _, func = function_of(art.cubin_before_pass, art.name)
    fields = sass_fields.locate_all(func)
    off, _ = cubin_info.text_section(art.cubin_before_pass, art.name)
    sass_fields.prove(art.cubin_before_pass, art.name, off, func, fields)  # the real map holds
    ffma = next(i for i in func.instructions if i.base == "FFMA" and (i.lo & 0xFFF) == 0x223)
    wrong = dict(fields)
    wrong[ffma.offset] = tuple(dataclasses.replace(f, bit=32) if f.bit == 64 else f for f in fields[ffma.offset])
    with pytest.raises(sass_fields.UnknownForm, match="after rewriting its register fields"):
        sass_fields.prove(art.cubin_before_pass, art.name, off, func, wrong)


def test_imad_hi_addend_is_a_register_pair():
    """IMAD.HI's addend names two registers though nvdisasm prints one: ptxas's division step
    `IMAD.HI.U32 R3, R3, R7, R2` (R2 = 0) adds R3 through the pair R2:R3.  Session 12 on the H100:
    a renaming that moved R3 alone made the vec4 kernel wrong."""
    from regtile.runtime.sass import _make_instruction
    ins = _make_instruction(0x40, "IMAD.HI.U32 R3, R3, R7, R2", 0, 0)
    assert sass_fields.width(ins, "R2", 64, 3) == 2
    assert sass_fields.width(ins, "R7", 32, 2) == 1
    wide = _make_instruction(0x40, "I2F.F64.S64 R2, R4", 0, 0)
    with pytest.raises(sass_fields.UnknownForm, match="64-bit conversion"):
        sass_fields.width(wide, "R4", 32, 1)


def test_pass_never_splits_an_imad_hi_pair(passed):
    """vec4's PTX kernel divides K by ptxas's IMAD.HI idiom; the pass's renaming must leave both registers of
    every register-pair addend where they are (the pass pins multi-register operands)."""
    art = passed("vec4", "ptx")
    _, func = function_of(art.cubin_before_pass, art.name)
    fields = sass_fields.locate_all(func)
    pairs = [f for i in func.instructions if i.base == "IMAD" and "HI" in i.modifiers
             for f in fields[i.offset] if f.operand == 3 and f.reg != sass_fields.RZ]
    assert pairs and all(f.count == 2 for f in pairs)
    moved = art.sass_pass.renaming
    assert moved, "the pass renamed nothing: this test would not see a split pair"
    for f in pairs:
        assert all(moved.get(r, r) == r for r in f.registers()), f"R{f.reg}:R{f.reg + 1} moved: {moved}"


def test_instruction_the_pass_does_not_know_is_named():
    """By its offset and text, each time: locate remembers instruction forms, not refusals."""
    from regtile.runtime.sass import _make_instruction
    for offset in (0x40, 0x120):
        ins = _make_instruction(offset, "@P1 DFMA R2, R4, R6, R8", 0, 0)
        with pytest.raises(sass_fields.UnknownForm, match=rf"/\*{offset:04x}\*/ @P1 DFMA R2, R4, R6, R8: "):
            sass_fields.locate(ins)


def test_other_archs_are_refused_with_the_reason():
    cfg = get_preset("zorder").config.replace(sass_pass=True)
    with pytest.raises(CompileError, match="targets sm_90"):
        compile_source(emit(cfg, "ptx"), "sm_80")


def test_accumulators_start_at_negative_zero_only_for_the_pass():
    cfg = get_preset("zorder").config
    for backend, zero in (("cuda", "-0.f"), ("ptx", "0f80000000")):
        assert zero not in emit(cfg, backend).text
        assert zero in emit(cfg.replace(sass_pass=True), backend).text


def test_cli_inspect_gen_and_refusal(tmp_path, capsys):
    import json
    from regtile.tools.cli import main
    assert main(["inspect", "--preset", "zorder", "--backend", "ptx", "--sass-pass", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rep = out["sass_pass"]
    assert rep["conflicted_after"] < rep["conflicted_before"]
    assert out["config"]["sass_pass"] is True
    assert rep["after"]["register_map"]["accumulators"]["registers"]
    assert main(["inspect", "--preset", "zorder", "--sass-pass", "true", "--arch", "sm_80"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "sm_90" in err[0] and "Traceback" not in err[0]
    assert main(["gen", "--preset", "zorder", "--backend", "ptx", "--sass-pass", "--out", str(tmp_path)]) == 0
    before = sorted(tmp_path.glob("*.ptxas.cubin"))
    assert len(before) == 1
    stem = before[0].name[:-len(".ptxas.cubin")]
    assert (tmp_path / f"{stem}.ptxas.sass").exists() and (tmp_path / f"{stem}.sass").exists()
    assert (tmp_path / f"{stem}.cubin").read_bytes() != before[0].read_bytes()
    for cmd in ("tune", "bench"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "--sass-pass" in capsys.readouterr().out


def test_default_kernel_rule():
    """regtile.sgemm's untuned default is the shape heuristic's choice (codegen/heuristic.py):
    on sm_90 the PTX 128x256 kernel with the pass and stream-K where its tiles fill the H100's
    132 SMs, a smaller stream-K family member below that; the CUDA C zorder preset on other
    archs."""
    from regtile.codegen.heuristic import choose_kernel
    from regtile.runtime.choice import default_sgemm_kernel
    cfg, backend = default_sgemm_kernel(4096, 4096, "sm_90", 132, 4096)
    assert (backend, cfg.bm, cfg.bn, cfg.tn, cfg.sass_pass, cfg.stream_k) == ("ptx", 128, 256, 16, True, True)
    for m, n, k in ((8192, 128, 8192), (1024, 1024, 1024)):  # fewer 128x256 tiles than SMs: K is split
        cfg, backend = default_sgemm_kernel(m, n, "sm_90", 132, k)
        assert (cfg, backend) == choose_kernel(m, n, k, "sm_90", 132)
        assert cfg.stream_k or cfg.split_k > 1
    cfg, backend = default_sgemm_kernel(4096, 4096, "sm_80", 132)
    assert backend == "cuda" and cfg == get_preset("zorder").config


# A CUDA C kernel whose reordering once moved FFMAs above the wait that guarded their
# fragments (ptxas let one scoreboard cover several LDS): 0.5% wrong on the H100.
ONCE_WRONG = dict(bm=128, bn=128, bk=8, tm=8, tn=16, warps=(4, 1), min_blocks=1)


@pytest.mark.parametrize("name, backend", tiered([("zorder", "ptx"), ("zorder-256x128", "cuda"), ("once-wrong", "cuda")],
                                                fast={("zorder", "ptx")}))
def test_reordered_ffmas_stay_below_the_waits_that_guarded_them(name, backend):
    """Read off the cubins: every loop FFMA that touches a register some variable-latency
    instruction touches is, after the pass, at or below every scoreboard wait that came
    before it in ptxas's order within its run; and runs hold the same FFMAs."""
    from regtile.runtime import ffma_reorder as fr
    cfg = get_preset("zorder").config.replace(**ONCE_WRONG) if name == "once-wrong" else get_preset(name).config
    art = compile_source(emit(cfg.replace(sass_pass=True), backend), "sm_90")
    # the pass without the store step, which moves the tile's stores into the FFMA runs this test reads by slot
    cubin, rep = sass_pass.run_pass(art.cubin_before_pass, art.name, spread_stores=False)
    back = {new: old for old, new in rep.renaming.items()}
    _, f0 = function_of(art.cubin_before_pass, art.name)
    _, f1 = function_of(cubin, art.name)
    vl = set()
    for ins in f0.instructions:
        if fr.variable_latency(ins):
            vl |= {r for f in sass_fields.locate(ins) for r in f.registers()}
    labels = set(f0.labels.values())
    start, end = f0.main_loop()
    lo = next(k for k, i in enumerate(f0.instructions) if i.offset == start)
    moved = 0
    for run in fr.runs(f0.instructions[lo:lo + len(f0.loop_instructions())], labels):
        run = [lo + k for k in run]
        old = {_ffma_key(f0.instructions[k]): k for k in run}
        new = {_ffma_key(f1.instructions[k], lambda r: back.get(r, r)): k for k in run}
        assert set(old) == set(new)
        waits = [k for k in run if fr.waits(f0.instructions[k])]
        for key, home in old.items():
            regs = {key[0], key[2], *key[1]}
            if regs & vl:
                floor = max([w for w in waits if w <= home], default=run[0])
                assert new[key] >= floor, f"{key} moved above the wait at index {floor}"
            moved += new[key] != home
    assert moved > 50


def test_split_k_kernel_with_the_pass_is_refused_or_rewrites_the_partial_kernel_only():
    """Split-K modules hold two kernels; the pass touches the named one.  Today ptxas puts a
    VIADDMNMX (not in the table, so never run on the GPU with the pass) in the partial kernel:
    the pass refuses it, naming the instruction."""
    from regtile.runtime.sass import disassemble, parse
    cfg = get_preset("zorder").config.replace(split_k=4, sass_pass=True)
    try:
        art = compile_source(emit(cfg, "cuda"), "sm_90")
    except sass_pass.SassPassRefused as e:
        assert "not in the pass's table of known forms" in str(e) and "/*" in str(e)
        return
    red = art.source.reduce.name
    before, after = parse(disassemble(art.cubin_before_pass)), parse(disassemble(art.cubin))
    assert [i.text for i in before[red].instructions] == [i.text for i in after[red].instructions]
    assert art.sass_pass.after["conflicted_ffma"] <= art.sass_pass.before["conflicted_ffma"]


def test_register_count_can_be_raised_in_the_cubin():
    """runtime/cubin_info.set_register_count: the attribute the driver allocates by."""
    from regtile.runtime import cubin_info
    from regtile.runtime.compiler import compile_config
    from regtile.codegen.presets import get_preset
    art = compile_config(get_preset("zorder").config, "sm_90", backend="ptx")
    before = cubin_info.kernel_info(art.cubin, art.name).registers
    raised = cubin_info.set_register_count(art.cubin, art.name, 200)
    assert before == art.resources.registers and cubin_info.kernel_info(raised, art.name).registers == 200
    assert len(raised) == len(art.cubin) and sum(a != b for a, b in zip(raised, art.cubin)) <= 4
    with pytest.raises(cubin_info.CubinError):
        cubin_info.set_register_count(art.cubin, "no_such_kernel", 200)


@pytest.mark.parametrize("backend", tiered(["ptx", "cuda"], fast={"ptx"}))
def test_disassembly_without_dataflow_analysis_prints_what_nvdisasm_prints_with_it(passed, backend):
    """sass/disasm.NVDISASM_FAST (-ndf, session 40): the text the pass parses and checks is nvdisasm's full one, here on
    the rewritten cubin and ptxas's of the z-order preset on each backend (a difference fails: drop the flag)."""
    import subprocess
    import tempfile
    from regtile.runtime.sass import disassemble
    from regtile.sass.disasm import find_tool
    art = passed("zorder", backend)
    for cubin in (art.cubin, art.cubin_before_pass):
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(cubin)
            f.flush()
            full = subprocess.run([find_tool("nvdisasm"), "-c", "-hex", f.name], capture_output=True, text=True)
        assert full.returncode == 0 and disassemble(cubin) == full.stdout
