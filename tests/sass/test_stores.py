"""The store step of the SASS pass (sass/stores.py) on real sm_90 cubins, without a GPU.

Read off the rewritten SASS of wide-64x128-k16 on B^T (24 stores behind the branch that skips them): the stores are
predicated, in ptxas's order, each followed by the step's spacing of FFMAs, a NOP takes the branch's slot right
before the barrier, and, independently of the step's own checks, no path from a global load to a store that reads
its data misses a wait on the load's scoreboard (slow tier: a compile of its own).  NN's 12 stores stay where ptxas
put them.  Against the pass without the step (slow tier): only the window changed, the FFMAs kept their order and
control codes."""
import pytest
from compiled import built_member, unwaited

from regtile.runtime.sass import function_of
from regtile.sass import isa, stores
from regtile.sass.bank_pass import run_pass
from regtile.sass.reorder import Cfg


def _window(name="wide-64x128-k16"):
    art, kernel = built_member(name, "nt")
    rep = art.sass_pass.stores
    assert rep["stores_spread"] >= stores.MIN_STORES, rep
    _, after = function_of(art.cubin, kernel)
    at = int(rep["at"], 16)
    k0 = next(k for k, i in enumerate(after.instructions) if i.offset == at)
    return art, kernel, rep, after, range(k0, k0 + rep["over_ffmas"] + rep["stores_spread"] + 1)


@pytest.mark.slow  # a compile of its own (B^T's 64x128 member with the pass: 8 s) that kept the fast tier over 2 minutes
def test_b_t_stores_are_spread_before_the_barrier_and_wait_for_their_loads():
    art, kernel, rep, after, window = _window()
    ins = [after.instructions[k] for k in window]
    step = rep["spacing"] + 1
    _, ptxas = function_of(art.cubin_before_pass, kernel)
    branch = next(i for i in ptxas.instructions if i.offset == int(rep["at"], 16) + 16 * rep["over_ffmas"])
    assert branch.base == "BRA" and branch.predicate.startswith("@P"), branch.text
    negated = "@!" + branch.predicate[1:]  # the stores run where the branch did not skip them
    for n in range(rep["stores_spread"]):
        st, *ffmas = ins[n * step:(n + 1) * step]
        assert st.base == "STS" and st.predicate == negated, (st.predicate, st.text)
        assert all(f.base == "FFMA" for f in ffmas), [f.text for f in ffmas]
    assert ins[-1].base == "NOP" and after.instructions[window[-1] + 1].base == "BAR"
    assert isa.wait_mask(ins[-1].hi), "the NOP keeps the branch's waits"
    loop_stores = [i for i in after.loop_instructions() if i.base == "STS"]
    assert all(i.predicate for i in loop_stores), "every store of the tile moved"
    cfg = Cfg(after.instructions, after.labels)
    spread = {after.instructions[k].offset for k in window if after.instructions[k].base == "STS"}
    loads = [k for k, i in enumerate(after.instructions) if i.base == "LDG"]
    assert loads
    for k in loads:
        sb = isa.write_scoreboard(after.instructions[k].hi)
        assert not spread & set(unwaited(after, cfg, k, sb, cfg.writes[k])), after.instructions[k].text


def test_nn_stores_stay_where_ptxas_placed_them():
    art, _ = built_member("wide-64x128-k16", "aligned")
    rep = art.sass_pass.stores
    assert rep["stores_spread"] == 0 and "12 stores" in rep["why_not"], rep


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wide-64x128-k16", "tall-128x64-k16"])
def test_only_the_window_changes_against_the_pass_without_the_step(name):
    art, kernel, rep, after, window = _window(name)
    _, before = function_of(run_pass(art.cubin_before_pass, kernel, spread_stores=False)[0], kernel)
    for k, (b, a) in enumerate(zip(before.instructions, after.instructions)):
        if k not in window:  # (the encodings: nvdisasm numbers its labels anew, one label fewer)
            assert (a.lo, a.hi) == (b.lo, b.hi), a.text
    old = [before.instructions[k] for k in window]
    new = [after.instructions[k] for k in window]
    assert [(i.lo, i.hi) for i in old if i.base == "FFMA"] == [(i.lo, i.hi) for i in new if i.base == "FFMA"]
    assert [i.text for i in old if i.base == "STS"] == [i.text for i in new if i.base == "STS"]
    branch = next(i for i in old if i.base == "BRA")
    assert new[-1].hi & ~isa.BODY_MASK_HI == branch.hi & ~isa.BODY_MASK_HI
