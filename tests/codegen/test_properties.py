"""Property-based (issue 8): every point of the SGEMM config space is either refused by
validation with a message that names a field or a constraint, or it generates, compiles
for sm_90 on both backends without spills (a backend that refuses the config with a
reason - PTX: frag_regs=False, split_k > 1 - counts as refused), and the static analyses'
invariants hold on it.

Hypothesis runs under the derandomized "ci" profile of tests/conftest.py: the same
examples on every run, so CI is deterministic (REGTILE_HYPOTHESIS=explore draws fresh
ones, more of them).  Validation's register rules come from a sweep of the space
(codegen/config.py, register_estimate); tests/codegen/test_config.py holds configs of that sweep
which spilled, and which validation must therefore refuse."""
import dataclasses
import os

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from regtile.codegen import mapping as mp
from regtile.codegen.config import FLAT_FIELDS, MAX_COPIES_PER_THREAD, ConfigError, SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.plan import ThreadVars, make_plan
from regtile.runtime.compiler import compile_source, spilled_bytes
from regtile.runtime.sass import function_of, instruction_mix

# REGTILE_HYPOTHESIS=explore (tests/conftest.py): ten times the examples, fresh ones
SCALE = 10 if os.environ.get("REGTILE_HYPOTHESIS") == "explore" else 1
FIELDS = set(FLAT_FIELDS)
CONSTRAINTS = {"threads", "shared memory", "registers", "warp", "global->shared copy", "tile divisibility"}
TILE = [16, 32, 64, 128, 256]
THREAD_TILE = [1, 2, 4, 8, 16]
POW2 = [1, 2, 4, 8, 16, 32]


def _free_fields():
    return {
        "bk": st.sampled_from([1, 2, 4, 8, 16, 32]),
        "mapping": st.sampled_from(["linear", "zorder"]),
        "split_tile": st.booleans(),
        "stages": st.sampled_from([0, 1, 2, 3, 4]),  # 3 / 4: the cp.async ring (PTX; TN's 4x4 members since session 37)
        "a_transposed": st.booleans(),
        "pad_a": st.sampled_from([0, 1, 4]),
        "pad_b": st.sampled_from([0, 4]),
        "vec": st.sampled_from([1, 4]),
        "frag_regs": st.booleans(),
        "reg_prefetch": st.booleans(),
        "min_blocks": st.sampled_from([1, 2, 3, 4]),
        "ffma_order": st.sampled_from(["zigzag", "colzig", "swirl", "rowmajor"]),
        "split_k": st.sampled_from([1, 2, 3, 8]),
        "sass_pass": st.booleans(),
    }


# The whole space: every field, with values on both sides of each constraint.
configs = st.fixed_dictionaries({
    "bm": st.sampled_from(TILE), "bn": st.sampled_from(TILE),
    "tm": st.sampled_from(THREAD_TILE), "tn": st.sampled_from(THREAD_TILE),
    "warps": st.one_of(st.none(), st.tuples(st.sampled_from(POW2), st.sampled_from(POW2))),
    **_free_fields(),
})

# Block and thread tiles whose thread count is a whole number of warps (<= 1024): the rest
# of the space is refused by the first checks, so drawing from these reaches deeper.
_TILES = [(bm, bn, tm, tn) for bm in TILE for bn in TILE for tm in THREAD_TILE for tn in THREAD_TILE
          if bm % tm == 0 and bn % tn == 0 and ((bm // tm) * (bn // tn)) % 32 == 0
          and (bm // tm) * (bn // tn) <= 1024]


@st.composite
def near_valid_configs(draw):
    bm, bn, tm, tn = draw(st.sampled_from(_TILES))
    w = (bm // tm) * (bn // tn) // 32
    layouts = [(a, w // a) for a in range(1, w + 1) if w % a == 0]
    d = draw(st.fixed_dictionaries(_free_fields()))
    d.update(bm=bm, bn=bn, tm=tm, tn=tn, warps=draw(st.one_of(st.none(), st.sampled_from(layouts))))
    if draw(st.booleans()):
        # nudged towards what validation accepts (the other half explores the refusals)
        if d["vec"] == 4:
            d.update(a_transposed=True, pad_a=d["pad_a"] & ~3)
        if d["split_k"] > 1:
            d["stages"] = 2
        if d["stages"] in (3, 4):  # the ring: float4 copies prefetched into registers, an even k-tile, no SASS pass
            d.update(vec=4, a_transposed=True, pad_a=d["pad_a"] & ~3, reg_prefetch=True, frag_regs=True,
                     bk=max(2, d["bk"] & ~1), sass_pass=False)
        if d["reg_prefetch"]:
            d["frag_regs"] = True
        if d["stages"] == 0:
            d.update(vec=1, a_transposed=False, pad_a=0, pad_b=0, reg_prefetch=False)
        d["min_blocks"] = draw(st.sampled_from([1, 1, 2, d["min_blocks"]]))
    return d


@st.composite
def ring_configs(draw):
    """The cp.async ring (stages 3 / 4) with the fields it needs set (vec 4, register prefetch, an even k-tile, no SASS
    pass), in NN or TN (operand_forms.for_ring runs it in TN since session 37), with or without stream-K: the near-valid
    draws above rarely reach an accepted ring, so these reach it on purpose."""
    bm, bn, tm, tn = draw(st.sampled_from([t for t in _TILES if t[2] % 4 == 0 and t[3] % 4 == 0]))
    threads = bm * bn // (tm * tn)
    # k-tiles whose A and B tiles are whole float4 copies a thread (the copy rule), at most MAX_COPIES_PER_THREAD each
    bks = [bk for bk in (2, 4, 8, 16, 32) if (bm * bk) % (4 * threads) == 0 and (bn * bk) % (4 * threads) == 0
           and max(bm, bn) * bk <= MAX_COPIES_PER_THREAD * 4 * threads]
    assume(bks)
    return dict(bm=bm, bn=bn, tm=tm, tn=tn, stages=draw(st.sampled_from([3, 4])), bk=draw(st.sampled_from(bks)),
                mapping=draw(st.sampled_from(["linear", "zorder"])), vec=4, a_transposed=True,
                pad_a=draw(st.sampled_from([0, 4])), pad_b=draw(st.sampled_from([0, 4])), frag_regs=True,
                reg_prefetch=True, min_blocks=draw(st.sampled_from([1, 2])),
                ffma_order=draw(st.sampled_from(["zigzag", "colzig", "swirl", "rowmajor"])), sass_pass=False,
                trans_a=draw(st.booleans()), stream_k=draw(st.booleans()))


def _make(d):
    try:
        return SgemmConfig(**d)
    except ConfigError as e:
        msg = str(e)
        # the message names the offending field or the constraint's quantity
        assert any(name in msg for name in FIELDS | CONSTRAINTS), msg
        return None


@settings(max_examples=500 * SCALE)
@given(st.one_of(configs, near_valid_configs(), ring_configs()))
def test_validation_is_total_and_plan_invariants_hold(d):
    cfg = _make(d)
    if cfg is None:
        return
    assert cfg.register_estimate() <= cfg.register_cap()
    # every C element of the block tile is owned by exactly one thread
    owners = {}
    for tid in range(cfg.threads):
        r0, c0 = mp.thread_origin(cfg, tid)
        for i in range(cfg.tm):
            for j in range(cfg.tn):
                key = (mp.tile_row(cfg, r0, i), mp.tile_col(cfg, c0, j))
                assert key not in owners
                owners[key] = tid
    assert len(owners) == cfg.bm * cfg.bn
    plan = make_plan(cfg)
    # the copies cover each tile element exactly once (each vector's floats along the operand's unit stride: K or M
    # for A, N or K for B, mapping.a/b_copy_element), and shared offsets stay in the stage
    if cfg.stages:
        seen_a, seen_b = set(), set()
        for tid in range(cfg.threads):
            tv = ThreadVars.numeric(cfg, tid)
            for r, c in enumerate(plan.a_copies):
                assert c.coords(tv) == mp.a_copy_element(cfg, tid, r, 0)
                seen_a.update(mp.a_copy_element(cfg, tid, r, e) for e in range(c.width))
            for r, c in enumerate(plan.b_copies):
                assert c.coords(tv) == mp.b_copy_element(cfg, tid, r, 0)
                seen_b.update(mp.b_copy_element(cfg, tid, r, e) for e in range(c.width))
            for acc in plan.smem_accesses_per_ktile():
                off = acc.offset(tv)
                assert 0 <= off and off + acc.width <= cfg.smem_floats_per_stage
                assert off % acc.width == 0  # vector accesses naturally aligned
        assert len(seen_a) == cfg.bm * cfg.bk and len(seen_b) == cfg.bk * cfg.bn
    assert len(plan.regs.ffma_order) == cfg.tm * cfg.tn
    assert sorted(plan.regs.ffma_order) == [(i, j) for i in range(cfg.tm) for j in range(cfg.tn)]


@pytest.mark.slow  # ~30 compiles; tests/codegen/test_codegen.py and test_ptx_backend.py compile presets in the fast tier
@settings(max_examples=30 * SCALE, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(near_valid_configs())
def test_accepted_configs_compile_for_sm90_without_spills_on_both_backends(d):
    cfg = _make(d)
    assume(cfg is not None)
    for backend in ("cuda", "ptx"):
        try:
            src = emit(cfg, backend=backend)
        except ConfigError as e:  # the backend refuses the config, with its reason
            assert (backend == "ptx" and ("frag_regs" in str(e) or "split_k" in str(e))
                    or backend == "cuda" and cfg.stages in (3, 4) and "cp.async ring" in str(e)), e
            continue
        # The SASS register-bank pass rewrites ptxas's cubin afterwards and never adds
        # registers or spills (tests/sass/test_sass_pass.py); compiling without it keeps this
        # test cheap.  The source is the one the pass would get (sass_pass sets -0.0 inits).
        art = compile_source(dataclasses.replace(src, sass_pass=False), "sm_90")
        res = art.resources
        assert res.spill_free, (backend, cfg, res)
        ptxas_cap = min(255, 65536 // (256 * (cfg.threads // 32) * cfg.min_blocks) * 8)
        assert 0 < res.registers <= ptxas_cap, (backend, cfg, res)
        # every kernel of the module (split-K: the reduction too) without spills or stack
        assert spilled_bytes(art) == 0, art.log
        mix = instruction_mix(function_of(art.cubin, art.name)[1].instructions)
        assert mix.get("LDL", 0) + mix.get("STL", 0) == 0, (backend, cfg, mix)


@pytest.mark.slow  # ~15 PTX compiles
@settings(max_examples=15 * SCALE, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(ring_configs())
def test_accepted_ring_configs_compile_for_sm90_without_spills(d):
    """The ring's accepted configs (ring_configs), through the PTX backend (the only one that emits the ring):
    spill-free for sm_90, every kernel of the module (stream-K's ranges kernel too)."""
    cfg = _make(d)
    assume(cfg is not None)
    art = compile_source(emit(cfg, backend="ptx"), "sm_90")
    assert art.resources.spill_free and spilled_bytes(art) == 0, (cfg, art.resources)


@pytest.mark.slow
def test_register_sweep_tool(capsys):
    """lab/register_sweep.py (how docs/register-rule.md's holdout was measured) on a few
    configs: draws only accepted, distinct configs and compiles them with both backends."""
    import random
    from regtile.tools import register_sweep
    drawn = register_sweep.draw(random.Random(3), 4)
    assert len(drawn) == len(set(drawn)) == 4
    assert all(SgemmConfig.from_dict(c.to_dict()) == c for c in drawn)
    assert register_sweep.main(["--n", "3", "--seed", "3", "--jobs", "1"]) == 0
    assert "3 accepted configs" in capsys.readouterr().out
