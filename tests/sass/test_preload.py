"""The preload step of the SASS pass (sass/preload.py) on real sm_90 cubins, without a GPU.

Checked from the SASS alone: against the same pass without the step, the rewritten loop holds the same
instructions, only permuted inside the span and with the loads' and the branch's predicates and the loads'
stall counts changed; the loads take the negation of the branch's guard and the branch never branches; and,
independently of the step's own checks, every path from a moved load to an instruction that reads or
overwrites its destination passes a wait on its write scoreboard, and no FFMA it passed touches what it
writes."""
import pytest
from compiled import built_member, unwaited
from tiers import tiered

from regtile.runtime.sass import function_of
from regtile.sass import isa, preload
from regtile.sass.bank_pass import run_pass
from regtile.sass.reorder import Cfg

def unwaited_results(func, k):
    """[offset]: paths from instruction k (a variable-latency load) to an instruction that reads or overwrites one
    of its destination registers with no wait on its write scoreboard between (the reader's own wait counts)."""
    cfg = Cfg(func.instructions, func.labels)
    return unwaited(func, cfg, k, isa.write_scoreboard(func.instructions[k].hi), cfg.writes[k])


# tall-256x128 as the family builds it hoists its loop head (tile_config.hoist_head), after which ptxas interleaves
# the preloads itself (the step reports why not); without the hoist it still has the pattern
CASES = [("wide-128x256-noedge", "aligned"), ("wide-128x256-noedge", "unaligned"), ("tall-256x128", "top")]


def _spread(name, rows):
    """(report, ptxas's function, the pass's function, index of the first spread load, the span's indices)."""
    art, kernel = built_member(name, rows)
    rep = art.sass_pass.preload
    assert rep["loads_spread"] == 6 and rep["over_ffmas"] == 3 * 5 + 1, rep  # slice 0: 2 A + 4 B float4s
    _, ptxas = function_of(art.cubin_before_pass, kernel)
    _, after = function_of(art.cubin, kernel)
    k0 = next(k for k, i in enumerate(after.instructions) if i.offset == int(rep["at"], 16))
    return art, kernel, rep, ptxas, after, k0, range(k0, k0 + 6 + rep["over_ffmas"])


@pytest.mark.parametrize("name, rows", tiered(CASES, fast={("wide-128x256-noedge", "aligned")}))
def test_the_preload_is_spread_and_its_results_still_waited_for(name, rows):
    """Read off the rewritten SASS alone: the branch never branches, the loads take its guard negated, three
    FFMAs apart at S01, each moved load's results still waited for on every path, and no FFMA it passed touches
    what it loads or reads.  (The pass moves no branch: ptxas's cubin holds the branch at the same offset.)"""
    _, _, rep, ptxas, after, k0, span = _spread(name, rows)
    branch = after.instructions[k0 - 1]
    branch_ptxas = next(i for i in ptxas.instructions if i.offset == branch.offset)
    assert branch_ptxas.base == "BRA" and isa.guard_of(branch_ptxas.predicate) is not None
    assert branch.predicate == "@!PT" and branch.text == branch_ptxas.text
    loads = [k for k in span if after.instructions[k].base == "LDS"]
    assert [k - k0 for k in loads] == [0, 4, 8, 12, 16, 20]  # three FFMAs between, as ptxas spaces LDS.128
    index, negated = isa.guard_of(branch_ptxas.predicate)
    guard = f"@{'' if negated else '!'}P{index}"
    cfg = Cfg(after.instructions, after.labels)
    for n, k in enumerate(loads):
        ld = after.instructions[k]
        assert ld.predicate == guard and isa.stall(ld.hi) == 1, ld
        assert unwaited_results(after, k) == [], ld.text
        passed = [j for j in span if j < k and after.instructions[j].base == "FFMA"]
        assert len(passed) == 3 * n
        for j in passed:
            assert not (cfg.writes[k] & (cfg.reads[j] | cfg.writes[j])) and not (cfg.reads[k] & cfg.writes[j])


@pytest.mark.slow
@pytest.mark.parametrize("name, rows", CASES)
def test_only_the_span_changes_against_the_pass_without_the_step(name, rows):
    """Against the pass without the step (a second pass run, hence the slow tier): the same instructions,
    permuted inside the span only, the branch's control code kept, nothing else changed; ptxas's placement of
    the loads obeys the rule the fast test checks."""
    art, kernel, rep, _, after, k0, span = _spread(name, rows)
    _, before = function_of(run_pass(art.cubin_before_pass, kernel, spread_preloads=False)[0], kernel)
    branch_before, branch = before.instructions[k0 - 1], after.instructions[k0 - 1]
    assert branch_before.base == "BRA" and isa.guard_of(branch_before.predicate) is not None
    assert branch.predicate == "@!PT" and branch.text == branch_before.text and branch.hi == branch_before.hi
    moved = [after.instructions[k] for k in span]
    assert sorted((i.text, i.base) for i in moved) == sorted((before.instructions[k].text, before.instructions[k].base)
                                                             for k in span)
    for k, (b, a) in enumerate(zip(before.instructions, after.instructions)):
        if k not in span and k != k0 - 1:
            assert (a.lo, a.hi, a.text) == (b.lo, b.hi, b.text), a.text  # nothing else changed
    for k in (k for k, i in enumerate(before.instructions) if i.base == "LDS" and k in span):
        assert unwaited_results(before, k) == []


def test_a_load_does_not_pass_an_ffma_that_reads_what_it_loads():
    """preload.passes, the step's check, on the flagship kernel's own instructions: a preload and the next
    tile's first FFMA that reads its registers (the loop's top) may not pass each other; an FFMA of the last
    slice (other registers) may."""
    art, kernel = built_member("wide-128x256-noedge", "aligned")
    _, func = function_of(art.cubin, kernel)
    loop = func.loop_instructions()
    cfg = Cfg(loop, func.labels)
    loads = [k for k, i in enumerate(loop) if i.base == "LDS" and isa.guard_of(i.predicate) is not None]
    ld = loop[loads[0]]
    readers = [loop[j] for j in range(len(loop)) if loop[j].base == "FFMA" and cfg.reads[j] & cfg.writes[loads[0]]]
    others = [loop[j] for j in range(loads[0] + 1, loads[0] + 4) if loop[j].base == "FFMA"]
    assert readers and others
    assert not preload.passes(ld, readers[0])
    assert all(preload.passes(ld, f) for f in others)


@pytest.mark.slow  # a compile of its own (wide-64x128-k16 with the pass, ~7 s); the fast tier keeps the kernel with it
def test_kernels_without_the_pattern_are_left_alone():
    """A two-stage k16 member (its preload interleaved by ptxas already): the step reports why and changes
    nothing."""
    art, kernel = built_member("wide-64x128-k16", "aligned")
    rep = art.sass_pass.preload
    assert rep["loads_spread"] == 0 and rep["why_not"], rep
