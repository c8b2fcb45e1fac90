"""The read-scoreboard step of the SASS pass (sass/scoreboards.py) on real sm_90 cubins, without a GPU.

The safety of the step is checked from the rewritten SASS alone, by a rule that ptxas's own output
obeys too: for every instruction that releases a read scoreboard, each path from it to an
instruction that overwrites one of its general source registers passes a wait on that scoreboard
(or the writer waits on it itself).  Uniform registers and guard predicates are read at issue: ptxas's
own loops overwrite them behind a read scoreboard without waiting (sass/scoreboards.py)."""
import pytest
from tiers import tiered

from regtile.codegen.emit import emit
from regtile.codegen.operand_forms import for_rows
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_source
from regtile.runtime.sass import function_of
from regtile.sass import isa
from regtile.sass.fields import locate_all
from regtile.sass import cubin as cubin_info
from regtile.sass.bank_pass import run_pass
from regtile.sass.reorder import Cfg
from regtile.sass.scoreboards import separate_load_reads


def unprotected_reads(func, his=None):
    """[(reader offset, writer offset, scoreboard)]: a source register of an instruction with a
    read scoreboard overwritten on some path before any wait on that scoreboard."""
    instrs = func.instructions
    his = his or [i.hi for i in instrs]
    cfg = Cfg(instrs, func.labels)
    bad = []
    for k, hi in enumerate(his):
        sb = isa.read_scoreboard(hi)
        if sb == isa.NO_SCOREBOARD or not cfg.reads[k]:
            continue
        stack, seen = list(cfg.succ[k]), set()
        while stack:
            j = stack.pop()
            if j in seen:
                continue
            seen.add(j)
            if isa.wait_mask(his[j]) >> sb & 1:
                continue
            if cfg.writes[j] & cfg.reads[k]:
                bad.append((instrs[k].offset, instrs[j].offset, sb))
                continue
            stack.extend(cfg.succ[j])
    return bad


def nearest_wait(func, k, sb):
    """The fewest instructions from instruction k to one that waits on scoreboard sb, over paths."""
    cfg = Cfg(func.instructions, func.labels)
    frontier, seen, d = list(cfg.succ[k]), set(), 1
    while frontier:
        nxt = []
        for j in frontier:
            if j in seen:
                continue
            seen.add(j)
            if isa.wait_mask(func.instructions[j].hi) >> sb & 1:
                return d
            nxt.extend(cfg.succ[j])
        frontier, d = nxt, d + 1
    return None


_BUILT = {}


def _unaligned(name):
    """(artifact, kernel name, the pass's cubin without the step) of a family member as regtile.sgemm
    builds it for lda 1023, ldb 1025."""
    if name not in _BUILT:
        src = emit(for_rows(FAMILY[name].config, "ptx", 1023, 1025), "ptx")
        art = compile_source(src, "sm_90")
        _BUILT[name] = art, src.name, run_pass(art.cubin_before_pass, src.name, separate_reads=False)[0]
    return _BUILT[name]


@pytest.mark.parametrize("name", tiered(["wide-128x256-noedge", "sq-128x128", "wide-64x128-k16"],
                                        fast={"wide-128x256-noedge"}))
def test_loads_release_their_reads_later_and_stay_safe(name):
    art, kernel, plain = _unaligned(name)
    rep = art.sass_pass.scoreboards
    _, ptxas = function_of(art.cubin_before_pass, kernel)
    _, before = function_of(plain, kernel)  # the pass without the step
    _, after = function_of(art.cubin, kernel)
    assert unprotected_reads(ptxas) == []  # the rule holds for ptxas's own scoreboards
    assert unprotected_reads(after) == [], rep
    # the member of the unaligned suite shapes (4099x4093x4091) must gain; elsewhere the step may find no later wait
    assert rep["loads_moved"] >= (12 if name == "wide-128x256-noedge" else 0), rep
    # only read scoreboards and wait masks changed, and every moved load's read is waited on later
    lo, hi = after.main_loop()
    step_bits = (0x7 << (isa.CONTROL_SHIFT + isa.READ_SB_CTL)) | (0x3F << (isa.CONTROL_SHIFT + isa.WAIT_CTL))
    moved, sums = 0, [0, 0]
    for k, (b, a) in enumerate(zip(before.instructions, after.instructions)):
        assert b.text == a.text and b.lo == a.lo and (b.hi ^ a.hi) & ~step_bits == 0, a.text
        if a.base == "LDG" and lo <= a.offset <= hi and isa.read_scoreboard(a.hi) != isa.read_scoreboard(b.hi):
            moved += 1
            assert isa.read_scoreboard(a.hi) not in {isa.write_scoreboard(i.hi) for i in after.instructions
                                                     if lo <= i.offset <= hi and i.base == "LDG"}
            now, then = nearest_wait(after, k, isa.read_scoreboard(a.hi)), nearest_wait(before, k, isa.read_scoreboard(b.hi))
            assert now >= then, a.text
            sums[0] += now
            sums[1] += then
    assert moved == rep["loads_moved"] and sums[0] >= 2 * sums[1], sums


def test_a_missing_wait_is_caught():
    """The check above can fail: drop each wait the step added and the overwritten address shows."""
    art, kernel, _ = _unaligned("wide-128x256-noedge")
    _, func = function_of(art.cubin_before_pass, kernel)
    new, rep = separate_load_reads(art.cubin_before_pass, func, locate_all(func))
    assert rep.waits_added, rep.to_dict()
    _, after = function_of(new, kernel)
    his = [i.hi for i in after.instructions]
    at = {i.offset: k for k, i in enumerate(after.instructions)}
    for line in rep.waits_added:
        k = at[int(line[2:6], 16)]
        sb = int(line.rsplit(" ", 1)[1])
        his[k] &= ~(1 << (isa.CONTROL_SHIFT + isa.WAIT_CTL + sb))
    assert unprotected_reads(after, his)


def test_the_step_after_the_pass_is_the_pass_with_the_step():
    """The pass without the step, then the step, gives the pass's own kernel byte for byte (the module's
    other kernel, a stream-K work list, aside); a kernel with nothing to move comes back unchanged."""
    art, kernel, plain = _unaligned("wide-128x256-noedge")
    _, func = function_of(plain, kernel)
    again, srep = separate_load_reads(plain, func, locate_all(func))
    assert srep.loads and srep.to_dict() == art.sass_pass.scoreboards
    text_offset, size = cubin_info.text_section(again, kernel)
    assert again[text_offset:text_offset + size] == art.cubin[text_offset:text_offset + size]
    _, func = function_of(again, kernel)
    third, rep3 = separate_load_reads(again, func, locate_all(func))
    assert third == again and rep3.unchanged and not rep3.loads


def test_a_kernel_without_loop_loads_comes_back_unchanged():
    """The zorder preset through the CUDA C backend: the step finds nothing to move (its loop's loads, if any,
    have no read scoreboard of their own) and hands the pass's cubin back unchanged, with the reason."""
    from regtile.codegen.presets import get_preset
    src = emit(get_preset("tile1d").config.replace(sass_pass=True), "cuda")
    art = compile_source(src, "sm_90")
    rep = art.sass_pass.scoreboards
    assert rep["unchanged"] and rep["loads_moved"] == 0, rep
