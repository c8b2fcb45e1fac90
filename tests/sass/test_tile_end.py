"""The tile-end step of the SASS pass (sass/tile_end.py) on real sm_90 cubins, without a GPU.

Checked from the SASS alone: the bunch of fragment loads before the next tile's shared stores is broken up, no
two loads of the window issue closer than ptxas keeps them, and, independently of the step's own checks, every
path from a load of the window to an instruction that reads or overwrites its destination passes a wait on its
write scoreboard.  Against the same pass without the step (slow tier): the same instructions, permuted inside
the window only, the FFMAs in their order, no load moved over an FFMA that touches its registers, and no FFMA
brought closer to one it feeds than it was or than FIXED_LATENCY cycles."""
import pytest
from compiled import built_member, unwaited
from tiers import tiered

from regtile.runtime.sass import function_of
from regtile.sass import isa, tile_end
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
    instructions with the FFMAs in their order, nothing outside it changed, no load passed an FFMA that reads or
    writes what it loads or writes what it reads, and no FFMA's reader came closer than it was and than
    FIXED_LATENCY cycles."""
    art, kernel, rep, after, window = _window(name, rows)
    _, before = function_of(run_pass(art.cubin_before_pass, kernel, spread_tile_end=False)[0], kernel)
    for k, (b, a) in enumerate(zip(before.instructions, after.instructions)):
        if k not in window:
            assert (a.lo, a.hi, a.text) == (b.lo, b.hi, b.text), a.text
    old = [before.instructions[k] for k in window]
    new = [after.instructions[k] for k in window]
    assert sorted(i.text for i in old) == sorted(i.text for i in new)
    assert [i.text for i in old if i.base == "FFMA"] == [i.text for i in new if i.base == "FFMA"]
    cfg_old = Cfg(old, {})
    where = {i.text: n for n, i in enumerate(new)}
    for x, ld in enumerate(old):
        if ld.base != "LDS":
            continue
        for y, f in enumerate(old):
            if f.base == "FFMA" and (x < y) != (where[ld.text] < where[f.text]):  # the load moved over f
                assert not (cfg_old.writes[x] & (cfg_old.reads[y] | cfg_old.writes[y])), (ld.text, f.text)
                assert not (cfg_old.reads[x] & cfg_old.writes[y]), (ld.text, f.text)

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


@pytest.mark.slow  # a compile of its own (sq-128x128 with the pass, ~7 s); the fast tier keeps the kernel with it
def test_kernels_without_the_pattern_are_left_alone():
    """The 128x128 member (its last loads already among the FFMAs): the step reports why and changes nothing."""
    art, _ = built_member("sq-128x128", "aligned")
    rep = art.sass_pass.tile_end
    assert rep["bunch_spread"] == 0 and rep["why_not"], rep
