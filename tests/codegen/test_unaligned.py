"""Unaligned rows (config.unaligned_rows, plan.float_copies, codegen/ptx_unaligned.py) without a GPU:
the option is opt-in (kernels without it keep their names, digests and text: the goldens), the
runtime asks for it only where a leading dimension is not a multiple of 4, the float copies move
every element of the tile once to where the vector copies put it with consecutive threads on
consecutive floats, and the SASS of the real cubin: the float path's loads carry no guard and
nothing between them but their address steps, where the edge path guards every float."""
import itertools

import pytest

from regtile.codegen.config import ConfigError, SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.operand_forms import for_columns, for_rows
from regtile.codegen.plan import ThreadVars, float_copies, make_plan
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_source, spilled_bytes
from regtile.runtime.sass import function_of


def test_opt_in_keeps_names_and_digests():
    cfg = FAMILY["tall-128x64"].config
    flagged = cfg.replace(unaligned_rows=True)
    assert "unaligned_rows" not in cfg.to_dict() and flagged.to_dict()["unaligned_rows"] is True
    assert SgemmConfig.from_dict(flagged.to_dict()) == flagged
    assert flagged.digest != cfg.digest
    assert "unaligned rows" in flagged.describe()


def test_refusals_name_the_constraint():
    with pytest.raises(ConfigError, match="unaligned_rows"):
        SgemmConfig(bm=32, bn=32, bk=16, tm=4, tn=4, stages=1, vec=1, unaligned_rows=True)
    with pytest.raises(ConfigError, match="unaligned_rows"):
        emit(FAMILY["splitk-64x64"].config.replace(unaligned_rows=True), "cuda")


def test_for_rows_asks_only_for_unaligned_leading_dimensions():
    cfg = FAMILY["wide-64x128"].config
    assert for_rows(cfg, "ptx", 1024, 1024) is cfg
    assert for_rows(cfg, "ptx", 1023, 1024).unaligned_rows and for_rows(cfg, "ptx", 1024, 1025).unaligned_rows
    assert for_rows(FAMILY["splitk-64x64"].config, "cuda", 1023, 1025) is FAMILY["splitk-64x64"].config
    # the 128x128 8x8 member at two blocks an SM has no registers left for the float copies, and
    # the 8x16 / 16x8 thread tiles ran slower with them: the unchecked vector floats instead
    for name in ("sq-128x128", "wide-128x256", "wide-128x256-noedge", "tall-256x128"):
        cfg = FAMILY[name].config
        assert for_rows(cfg, "ptx", 1023, 1025) == cfg.replace(unaligned_vectors=True)
        assert for_rows(cfg.replace(edge_clamp=False), "ptx", 1023, 1025) == cfg.replace(edge_clamp=False)
    # the k16 members: wide-64x128-k16 the vector floats, tall-128x64-k16 the float copies held at 168 registers
    # (three blocks an SM), unless the member already has a cap of its own
    wide, tall = FAMILY["wide-64x128-k16"].config, FAMILY["tall-128x64-k16"].config
    assert for_rows(wide, "ptx", 1023, 1025) == wide.replace(unaligned_vectors=True)
    assert for_rows(tall, "ptx", 1023, 1025) == tall.replace(unaligned_rows=True, max_registers=168)
    assert for_rows(tall, "ptx", 1024, 1024) is tall
    assert for_rows(tall.replace(max_registers=160), "ptx", 1023, 1024).unaligned_vectors
    # on A^T the tiles measured faster so (A_T_VECTOR_FLOATS_TILES) take the vector floats; the 4x4 ones and the
    # untimed skinny ones keep the float copies, and so does a tile without the edge clamp the vector floats need
    for name, vectors in (("wide-64x128", True), ("sq-64x64-4x8", True), ("sq-64x64", True), ("tall-128x64", True),
                          ("sq-64x64-4x8-k32", True), ("plain-64x64", True), ("wide-32x64", False),
                          ("sq-32x32", False), ("skinny-n32", False), ("skinny-m32", False)):
        cfg = FAMILY[name].config
        assert for_rows(cfg, "ptx", 1023, 1025).unaligned_rows  # row-major: the float copies, as before
        for ta, tb in ((True, False), (True, True), (False, True)):
            laid = cfg.replace(trans_a=ta, trans_b=tb)
            want = laid.replace(unaligned_vectors=True) if vectors and ta else laid.replace(unaligned_rows=True)
            assert for_rows(laid, "ptx", 1023, 1025) == want, (name, ta, tb)
    unclamped = FAMILY["wide-64x128"].config.replace(trans_a=True, edge_clamp=False)
    assert for_rows(unclamped, "ptx", 1023, 1025) == unclamped.replace(unaligned_rows=True)
    # by layout (k16_form, session 32): on A^T (TN, TT) both take the vector floats held, on B^T alone the float
    # copies held; a member with a cap of its own keeps it in every layout
    for cfg in (wide, tall):
        for ta, tb in ((True, False), (True, True)):
            laid = cfg.replace(trans_a=ta, trans_b=tb)
            assert for_rows(laid, "ptx", 1023, 1025) == laid.replace(unaligned_vectors=True, max_registers=168)
        nt = cfg.replace(trans_b=True)
        assert for_rows(nt, "ptx", 1023, 1025) == nt.replace(unaligned_rows=True, max_registers=168)
        for ta, tb in ((False, False), (True, False), (False, True)):
            own = cfg.replace(trans_a=ta, trans_b=tb, max_registers=160)
            assert for_rows(own, "ptx", 1023, 1025) == own.replace(unaligned_vectors=True)


def test_the_held_float_copies_keep_the_last_columns_held_rule():
    """for_columns after for_rows: tall-128x64-k16's cap from the float copies is the last column's own 168, so
    the column still goes with up to eight tile columns beside it, at that cap."""
    tall = FAMILY["tall-128x64-k16"].config
    cfg = for_columns(for_rows(tall, "ptx", 1023, 8 * 64 + 1), "ptx", 8 * 64 + 1)
    assert cfg.last_col and cfg.unaligned_rows and cfg.max_registers == 168
    assert not for_columns(tall.replace(max_registers=160), "ptx", 8 * 64 + 1).last_col  # another cap: four at most


@pytest.mark.parametrize("name, ta, tb", [("tall-128x64", False, False), ("wide-128x256", False, False),
                                          ("sq-32x32", False, False), ("tall-256x128", False, False),
                                          ("skinny-m16", False, False), ("tall-128x64", True, True),
                                          ("wide-64x128", False, True), ("wide-64x128", True, False)])
def test_float_copies_land_where_the_vector_copies_do(name, ta, tb):
    cfg = FAMILY[name].config.replace(unaligned_rows=True, trans_a=ta, trans_b=tb)
    plan = make_plan(cfg)
    for op, vectors, floats in (("A", plan.a_copies, plan.a_floats), ("B", plan.b_copies, plan.b_floats)):
        assert len(floats) == len(float_copies(cfg, op)) == 4 * len(vectors), (name, op)
        assert [f.regs[0] for f in floats] == [r for c in vectors for r in c.regs]  # the same staging registers
        by_vectors, by_floats = {}, {}
        for t in range(cfg.threads):
            tv = ThreadVars.numeric(cfg, t)
            for c in vectors:
                for s in c.stores:
                    for e, reg in enumerate(s.regs):
                        by_vectors[s.offset(tv) + e] = None
            for j, f in enumerate(floats):
                at = f.stores[0].offset(tv)
                assert at not in by_floats, (name, op, t, j)  # every element once
                by_floats[at] = f.coords(tv)
        assert set(by_floats) == set(by_vectors)  # the same shared-memory elements
        # consecutive threads on consecutive floats of a line (the operand's unit stride)
        step = (0, 1) if (op == "A") != ta else (1, 0)
        if op == "B":
            step = (1, 0) if tb else (0, 1)
        f = floats[0]
        a, b = f.coords(ThreadVars.numeric(cfg, 0)), f.coords(ThreadVars.numeric(cfg, 1))
        assert (b[0] - a[0], b[1] - a[1]) == step, (name, op, a, b)


def _loop(cfg):
    src = emit(cfg, "ptx")
    art = compile_source(src, "sm_90")
    assert art.resources.spill_store_bytes == 0
    return function_of(art.cubin, src.name)[1].loop_instructions()


def _ldg32(ins):
    return ins.base == "LDG" and not any(m in ("64", "128") for m in ins.modifiers)


def test_sass_float_path_loads_carry_no_guard():
    """plain-32x32 (no stream-K: one entry; 8 floats of A and 8 of B a thread a k-tile).  Without
    the option every 32-bit load of the main loop has a guard (a predicate, or a branch around
    it) and a zero beside it.  With it the loop also holds each operand's float path: 8
    unpredicated 32-bit loads in a row with nothing between them but their address steps (one
    IMAD.WIDE a float: the pointer stepped a line), no compare, select or zero."""
    cfg = FAMILY["plain-32x32"].config
    assert max(_free_runs(_loop(cfg)), default=0) <= 1
    runs = _free_runs(_loop(cfg.replace(unaligned_rows=True)))
    plan = make_plan(cfg.replace(unaligned_rows=True))
    assert sorted(runs)[-2:] == [len(plan.a_floats), len(plan.b_floats)] == [8, 8]


def _free_runs(loop):
    """The unpredicated 32-bit loads of each maximal run of loads and address arithmetic."""
    runs, count = [], 0
    for ins in loop:
        if _ldg32(ins) and not ins.predicate:
            count += 1
        elif ins.base in ("IMAD", "IADD3", "LEA", "MOV") and not ins.predicate:
            continue
        else:
            if count:
                runs.append(count)
            count = 0
    return runs + ([count] if count else [])


RING_MEMBERS = [name for name, mem in FAMILY.items() if mem.backend == "ptx"]


@pytest.mark.slow  # 16 compiles a member, about 3 minutes of CPU for the family
@pytest.mark.parametrize("name", RING_MEMBERS)
def test_the_ring_on_unaligned_rows_compiles_without_spills_where_validation_accepts_it(name):
    """Every PTX member as a cp.async ring (stages 3 and 4) with either unaligned form, in the four layouts: what
    validation accepts compiles for sm_90 without spills in any of its kernels (session 36's review: sq-128x128 at its 128-register cap spilled 16 bytes
    in its ranges kernel with the 4-byte copy a float, before the register rule counted it)."""
    from regtile.codegen.layouts import with_layout
    for ta in (False, True):
        for tb in (False, True):
            for form, stages in itertools.product(("unaligned_rows", "unaligned_vectors"), (3, 4)):
                try:
                    cfg = with_layout(FAMILY[name].config, ta, tb).replace(stages=stages, sass_pass=False,
                                                                            hoist_head=False, **{form: True})
                except ConfigError:
                    continue  # refused, with its reason (tile_config's messages are tested elsewhere)
                art = compile_source(emit(cfg, "ptx"), "sm_90")
                assert spilled_bytes(art) == 0, (name, ta, tb, form, stages, art.log)  # every kernel of the module
