"""The tile-end step of the SASS pass (sass/tile_end.py) on real sm_90 cubins, without a GPU.

Checked from the SASS alone: the bunch of fragment loads before the next tile's shared stores is broken up, no
two loads of the window issue closer than ptxas keeps them, and, independently of the step's own checks, every
path from a load of the window to an instruction that reads or overwrites its destination passes a wait on its
write scoreboard.  Against the same pass without the step (slow tier): the same instructions, permuted inside
the window only, the FFMAs in their order, no load moved over an FFMA that touches its registers, and no FFMA
brought closer to one it feeds than it was or than FIXED_LATENCY cycles."""
import dataclasses

import pytest
from compiled import built_member, unwaited
from tiers import tiered

from regtile.runtime.sass import function_of
from regtile.sass import cubin, isa, tile_end
from regtile.sass.fields import locate, registers_of, renamed_operand
from regtile.sass.bank_pass import run_pass
from regtile.sass.reorder import Cfg

CASES = [("wide-128x256-noedge", "aligned"), ("wide-128x256-noedge", "unaligned"), ("tall-256x128", "aligned")]


def _window(name, rows):
    """(artifact, kernel name, report, the pass's function, the window's indices)."""
    art, kernel = built_member(name, rows)
    rep = art.sass_pass.tile_end
    assert rep["bunch_spread"] > 0, rep
    _, after = function_of(art.cubin, kernel)
    k0 = next(k for k, i in enumerate(after.instructions) if i.offset == int(rep["at"], 16))
    return art, kernel, rep, after, range(k0, k0 + rep["window"])


def _longest_run_of_loads(instrs):
    best = run = 0
    for i in instrs:
        run = run + 1 if i.base == "LDS" else 0
        best = max(best, run)
    return best


@pytest.mark.parametrize("name, rows", tiered(CASES, fast={("wide-128x256-noedge", "aligned")}))
def test_the_bunch_is_broken_up_and_its_results_still_waited_for(name, rows):
    """Read off the rewritten SASS: the window ends at the guarded branch over the shared stores, its longest
    run of back-to-back loads is shorter than ptxas's bunch, two loads are at least LOAD_GAP cycles apart, and
    every load's results are waited for on every path."""
    art, kernel, rep, after, window = _window(name, rows)
    instrs = [after.instructions[k] for k in window]
    branch = after.instructions[window[-1] + 1]
    assert branch.base == "BRA" and isa.guard_of(branch.predicate) is not None
    assert after.instructions[window[-1] + 2].base == "STS"
    _, ptxas = function_of(art.cubin_before_pass, kernel)
    bunch = tile_end._bunch(ptxas.instructions, next(k for k, i in enumerate(ptxas.instructions)
                                                      if i.offset == branch.offset))
    ptxas_bunch = next(k for k, i in enumerate(ptxas.instructions) if i.offset == branch.offset) - bunch
    assert _longest_run_of_loads(instrs) < ptxas_bunch
    loads = [n for n, i in enumerate(instrs) if i.base == "LDS"]
    for a, b in zip(loads, loads[1:]):
        assert sum(isa.stall(instrs[m].hi) for m in range(a, b)) >= tile_end.LOAD_GAP, instrs[a].text
    cfg = Cfg(after.instructions, after.labels)
    for n in loads:
        k = window[n]
        ld = after.instructions[k]
        assert isa.write_scoreboard(ld.hi) != isa.NO_SCOREBOARD, ld.text  # else the walk below means nothing
        assert unwaited(after, cfg, k, isa.write_scoreboard(ld.hi), cfg.writes[k]) == [], ld.text


@pytest.mark.slow
@pytest.mark.parametrize("name, rows", CASES)
def test_only_the_window_changes_against_the_pass_without_the_step(name, rows):
    """Against the pass without the step (a second pass run, hence the slow tier): the window holds the same
    instructions with the FFMAs in their order (a freed load's registers read back as they were), nothing outside
    it changed but the freed loads' readers, no load passed an FFMA that reads or writes what it loads or writes
    what it reads, and no FFMA's reader came closer than it was and than FIXED_LATENCY cycles."""
    art, kernel, rep, after, window = _window(name, rows)
    _, before = function_of(run_pass(art.cubin_before_pass, kernel, spread_tile_end=False)[0], kernel)
    freed = {int(new): old for new, old in rep.get("renamed", {}).items()}
    back = [dataclasses.replace(a, text=tile_end.operand_text(a, [renamed_operand(op, lambda r: freed.get(r, r))
                                                                   for op in a.operands]))
            if (registers_of(locate(a), False) | registers_of(locate(a), True)) & set(freed) else a
            for a in after.instructions]
    for k, (b, a) in enumerate(zip(before.instructions, back)):
        if k not in window:  # outside it, only the renamed loads' readers changed, in those registers alone
            assert (a.hi, a.text) == (b.hi, b.text), a.text
            assert a.lo == b.lo or any(r in freed for r in registers_of(locate(a), False)), a.text
    old = [before.instructions[k] for k in window]
    new = [back[k] for k in window]
    assert sorted(i.text for i in old) == sorted(i.text for i in new)
    assert [i.text for i in old if i.base == "FFMA"] == [i.text for i in new if i.base == "FFMA"]
    cfg_old = Cfg(old, {})
    cfg_new = Cfg([after.instructions[k] for k in window], {})  # the registers as written (a freed load's own)
    where = {i.text: n for n, i in enumerate(new)}
    for x, ld in enumerate(old):
        if ld.base != "LDS":
            continue
        wrote, read = cfg_new.writes[where[ld.text]], cfg_new.reads[where[ld.text]]
        for y, f in enumerate(old):
            if f.base == "FFMA" and (x < y) != (where[ld.text] < where[f.text]):  # the load moved over f
                assert not (wrote & (cfg_old.reads[y] | cfg_old.writes[y])), (ld.text, f.text)
                assert not (read & cfg_old.writes[y]), (ld.text, f.text)

    def issue(instrs):
        at, t = {}, 0
        for i in instrs:
            at[i.text] = t
            t += isa.stall(i.hi)
        return at
    t_old, t_new = issue(old), issue(new)
    for x, f in enumerate(old):
        if f.base != "FFMA":
            continue
        for y in range(x + 1, len(old)):
            if cfg_old.reads[y] & cfg_old.writes[x]:
                gap_old, gap_new = t_old[old[y].text] - t_old[f.text], t_new[old[y].text] - t_new[f.text]
                assert gap_new >= min(gap_old, tile_end.FIXED_LATENCY), (f.text, old[y].text)


def test_kernels_without_the_pattern_are_left_alone():
    """The 128x128 member (its last loads already among the FFMAs): the step reports why and changes nothing."""
    art, _ = built_member("sq-128x128", "aligned")
    rep = art.sass_pass.tile_end
    assert rep["bunch_spread"] == 0 and rep["why_not"], rep


def test_the_freed_loads_own_their_registers():
    """wide-128x256's window: ptxas gave five of its loads registers the FFMAs above them still read; the step
    moved each to a quad no other instruction names - read only where that load wrote it, on every path, and
    written by nothing else - and raised the register count within the one block an SM the kernel had."""
    art, kernel = built_member("wide-128x256-noedge", "aligned")
    rep = art.sass_pass.tile_end
    freed = {int(new): old for new, old in rep["renamed"].items()}
    assert len(freed) == 4 * 5 and all(new % 4 == old % 4 for new, old in freed.items())  # same register banks
    _, after = function_of(art.cubin, kernel)
    count = cubin.kernel_info(art.cubin, kernel).registers
    assert count == rep["registers"] > max(freed) + isa.RESERVED_REGISTERS
    assert tile_end.blocks_by_registers(count, 256) == tile_end.blocks_by_registers(art.sass_pass.registers, 256) == 1
    cfg = Cfg(after.instructions, after.labels)
    for reg in freed:
        writers = [k for k in range(len(after.instructions)) if reg in cfg.writes[k]]
        assert len(writers) == 1 and after.instructions[writers[0]].base == "LDS"
        readers = [k for k in range(len(after.instructions)) if reg in cfg.reads[k]]
        assert readers
        for k in readers:  # walking back from each reader meets the load before the function's entry
            back, seen = list(cfg.pred[k]), set()
            while back:
                j = back.pop()
                if j in seen or j == writers[0]:
                    continue
                seen.add(j)
                assert cfg.pred[j], f"R{reg} read at /*{after.instructions[k].offset:04x}*/ before any write"
                back.extend(cfg.pred[j])
