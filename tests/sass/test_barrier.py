"""The barrier step of the SASS pass (sass/barrier.py) on real sm_90 cubins, without a GPU.

Read off the rewritten SASS: in TN's 128x256 loop (ptxas if-converts the A^T tile's stores and sinks the barrier
below the last slice's FFMAs) the barrier now follows the last shared store, with the moved FFMAs after it up to
the next non-FFMA; in NN's loop (the barrier four FFMAs after the stores) nothing moves.  Against the pass without
the step: only the run and the barrier changed slots, the FFMAs kept their order and control codes.  All in the slow
tier (python3 -m pytest -m slow): each reads a compile of its own, 8-10 s."""
import pytest
from compiled import built_member

from regtile.runtime.sass import function_of
from regtile.sass import barrier, isa
from regtile.sass.bank_pass import run_pass


def _moved(name):
    """(artifact, kernel, report, the rewritten main loop, the barrier's index in it)."""
    art, kernel = built_member(name, "tn")
    rep = art.sass_pass.barrier
    assert rep["moved_over_ffmas"] >= barrier.MIN_RUN, rep
    _, after = function_of(art.cubin, kernel)
    loop = after.loop_instructions()
    b = next(k for k, i in enumerate(loop) if i.offset == int(rep["at"], 16))
    return art, kernel, rep, loop, b


@pytest.mark.slow  # a compile of its own (TN's 128x256 member with the pass: 10 s) that kept the fast tier over 2 minutes
def test_tn_barrier_follows_the_last_store_and_the_run_follows_it():
    _, _, rep, loop, b = _moved("wide-128x256-noedge")
    assert loop[b].base == "BAR" and loop[b - 1].base == "STS", (loop[b - 1].text, loop[b].text)
    run = loop[b + 1:b + 1 + rep["moved_over_ffmas"]]
    assert all(i.base == "FFMA" and not i.predicate for i in run)
    assert loop[b + 1 + len(run)].base != "FFMA"
    assert not any(i.base == "BAR" for i in loop[b + 1:]), "one barrier a k-tile"


@pytest.mark.slow  # a compile of its own in the fast tier's time (test_preload's builds the same kernel)
def test_nn_barrier_stays_where_ptxas_placed_it():
    art, kernel = built_member("wide-128x256-noedge", "aligned")
    rep = art.sass_pass.barrier
    assert rep["moved_over_ffmas"] == 0 and "4 FFMAs after the last STS" in rep["why_not"], rep
    assert all(o["barrier"]["moved_over_ffmas"] == 0 for o in art.sass_pass.others.values())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wide-128x256-noedge", "tall-256x128"])
def test_only_the_barrier_and_the_run_move_against_the_pass_without_the_step(name):
    art, kernel, rep, loop, b = _moved(name)
    _, before = function_of(run_pass(art.cubin_before_pass, kernel, hoist_barrier=False)[0], kernel)
    _, after = function_of(art.cubin, kernel)
    old = {i.offset: i for i in before.instructions}
    window = range(int(rep["at"], 16), int(rep["at"], 16) + 16 * (rep["moved_over_ffmas"] + 1), 16)
    unflagged = []
    for i in after.instructions:
        if i.offset not in window and (i.lo, i.hi) != (old[i.offset].lo, old[i.offset].hi):
            # only the last FFMA above the stores, its reuse flags cleared (nothing reused across the barrier)
            assert i.base == "FFMA" and (i.lo, i.hi) == (old[i.offset].lo, old[i.offset].hi & ~isa.REUSE_MASK_HI), i.text
            unflagged.append(i.offset)
    assert len(unflagged) <= 1 and all(o < int(rep["at"], 16) for o in unflagged)
    new_run = [after.instructions[k] for k, i in enumerate(after.instructions) if i.offset in window]
    old_run = [old[o] for o in window]
    assert old_run[-1].base == "BAR" and new_run[0].base == "BAR" and new_run[0].hi == old_run[-1].hi
    assert [(i.lo, i.hi) for i in new_run[1:-1]] == [(i.lo, i.hi) for i in old_run[:-2]]
    last_old, last_new = old_run[-2], new_run[-1]
    assert last_new.lo == last_old.lo
    assert isa.stall(last_new.hi) == isa.stall(last_old.hi) + rep["stall_added"]
