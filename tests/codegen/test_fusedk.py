"""The fused split-K kernel (backend "fusedk", codegen/emit_fusedk.py) on the CPU: what the
emitter refuses, what its text and launch geometry promise (one launch, the last split sums in
split order and zeroes its counter), the launch path's workspace, and the heuristic keeping
it off transposed layouts.  Compiled: one member in the fast tier (tests/codegen/test_family.py
compiles every member behind `slow`)."""
import pytest

from regtile.codegen.config import ConfigError
from regtile.codegen.emit import describe, emit
from regtile.codegen.emit_fusedk import FUSEDK_PARAMS, depth, stage_bytes
from regtile.codegen import heuristic, layout_choice
from regtile.codegen.heuristic import member_config, split_for
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_config
from regtile.runtime.sgemm_launch import workspace_bytes
from tiers import tiered

FUSED = [name for name, m in FAMILY.items() if m.backend == "fusedk"]


@pytest.mark.parametrize("name", FUSED)
def test_fused_members_emit_one_launch_within_shared_memory(name):
    cfg = FAMILY[name].config.replace(split_k=4)
    src = emit(cfg, "fusedk")
    assert src.params == FUSEDK_PARAMS and src.reduce is None and src.ranges is None
    g = src.geometry
    assert g.splits == 4 and g.grid(100, 70) == (-(-70 // cfg.bn), -(-100 // cfg.bm), 4)
    assert g.dynamic_smem_bytes == depth(cfg) * stage_bytes(cfg) <= 110 * 1024
    assert g.block[0] == (cfg.bm // cfg.tm) * (cfg.bn // cfg.tn)


def test_fused_kernel_is_programmatic_waits_first_and_never_triggers(monkeypatch):
    """The fused kernel is launched programmatic (emit_fusedk.PROGRAMMATIC, session 40): its geometry says so and its
    first line is the wait, before anything touches memory (the split counters included); it has no trigger of its
    own (emit_fusedk.ENTRY: the next call is scheduled as its blocks exit) and compiles for sm_90 without spills.
    With PROGRAMMATIC off, neither line and a plain launch."""
    from regtile.codegen import emit_fusedk
    cfg = FAMILY["fused-32x32"].config.replace(split_k=8)
    src = emit(cfg, "fusedk")
    body = src.text[src.text.index(f"{src.name}("):]
    body = body[body.index("{") + 1:]
    wait = body.index("griddepcontrol.wait")
    assert src.geometry.programmatic and wait < body.index("smem[]")
    before = body[:body.rindex("\n", 0, wait)]  # nothing before the wait's line but its #if
    assert all(not ln.strip() or ln.strip().startswith("#") for ln in before.splitlines()), before
    assert body.count("griddepcontrol") == 1 and "launch_dependents" not in src.text
    compile_config(cfg, "sm_90", backend="fusedk")  # SpillError or a compile error fails it
    monkeypatch.setattr(emit_fusedk, "PROGRAMMATIC", False)
    plain = emit(cfg, "fusedk")
    assert not plain.geometry.programmatic and "griddepcontrol" not in plain.text


def test_split_kernel_sums_in_split_order_and_zeroes_its_counter():
    text = emit(FAMILY["fused-32x32"].config.replace(split_k=8), "fusedk").text
    assert "atom.acq_rel.gpu.global.add.s32" in text and "atomicExch(counter, 0)" in text
    assert "for (int p = 1; p < SPLITS; ++p)" in text
    assert "atomicAdd(W" not in text and "atomicAdd(C" not in text  # no float atomics
    one = emit(FAMILY["fused-32x32"].config, "fusedk").text
    assert "atom." not in one and "atomic" not in one  # split 1: C written directly


def test_a_splits_arrival_is_a_release_acquire_rmw_between_barriers_in_the_sass():
    """Session 34 (docs/data/session34/k_741add2): thread 0's acquire-release add on the tile's counter, after a
    barrier over the block's partial stores, instead of __threadfence around the arrival (fence.sc.gpu in every
    thread: MEMBAR.SC.GPU, twice): 0.1-6.3% faster on 10 of 12 split shapes.  Read from the real cubin: one add on
    the counter, no sequentially consistent fence, a GPU-scope release before the add."""
    from regtile.sass.disasm import disassemble
    sass = disassemble(compile_config(FAMILY["fused-32x32"].config.replace(split_k=8), "sm_90", backend="fusedk").cubin)
    assert "__threadfence()" not in emit(FAMILY["fused-32x32"].config.replace(split_k=8), "fusedk").text
    assert "MEMBAR.SC" not in sass
    ops = [w for line in sass.splitlines() for w in ("BAR.SYNC", "MEMBAR.ALL.GPU", "ATOMG.E.ADD") if w in line]
    assert ops.count("ATOMG.E.ADD") == 1
    at = ops.index("ATOMG.E.ADD")  # a barrier, the release, the add, a barrier
    assert ops[at - 1] == "MEMBAR.ALL.GPU" and ops[at - 2] == "BAR.SYNC" and "BAR.SYNC" in ops[at + 1:]


@pytest.mark.parametrize("field", ["stream_k", "unaligned_rows"])
def test_fusedk_refuses_what_it_does_not_do(field):
    cfg = FAMILY["fused-64x64"].config.replace(**{field: True})
    with pytest.raises(ConfigError, match=f"{field}=True: backend 'fusedk' does not emit.*'ptx'"):
        emit(cfg, "fusedk")


def test_every_backend_field_is_refused_by_name_where_not_accepted():
    """emit.BACKEND_FIELDS: each field on, through each backend that does not accept it, is
    refused naming the field, the backend and the backends that accept it."""
    from regtile.codegen.emit import BACKEND_FIELDS, BACKENDS
    on = dict(split_k=2, stages=3, max_registers=168)
    needs = dict(unaligned_vectors=dict(edge_clamp=True))  # fields valid only beside another
    base = FAMILY["sq-64x64"].config.replace(stream_k=False, edge_split=False, edge_clamp=False)
    for field, offs, accepting, _ in BACKEND_FIELDS:
        assert getattr(base, field) in offs and on.get(field, True) not in offs
        assert set(accepting) < set(BACKENDS)
        cfg = base.replace(**{field: on.get(field, True)}, **needs.get(field, {}))
        for backend in set(BACKENDS) - set(accepting):
            with pytest.raises(ConfigError) as refused:
                emit(cfg, backend)
            msg = str(refused.value)
            assert msg.startswith(f"{field}=") and f"backend {backend!r}" in msg, msg
            assert all(repr(b) in msg for b in accepting), msg


def test_workspace_is_the_partials_only_with_splits():
    cfg = FAMILY["fused-128x32"].config
    assert workspace_bytes(emit(cfg, "fusedk"), 1000, 32, 4096) == 0
    assert workspace_bytes(emit(cfg.replace(split_k=4), "fusedk"), 1000, 32, 4096) == 4 * 4 * 1000 * 32


def test_split_respects_the_members_cap():
    m = FAMILY["fused-64x128"]
    assert split_for(48, 2048, 8192, 64, 128, 32, 132, m.fill, m.min_ktiles, m.max_split) == m.max_split
    cfg, backend = member_config("fused-64x128", 48, 2048, 8192, 132)
    assert backend == "fusedk" and cfg.split_k == m.max_split


def test_transposed_layouts_run_the_fused_pick_but_a_skinny_n_ones_stand_in():
    """regtile.sgemm runs a fused pick in every layout, in the layout's form (session 33: A^T and B^T by float4),
    except a skinny-n fused pick (layout_choice.FUSED_STAND_IN), which a stream-K skinny-n member runs there, or where
    none holds n whole the unfused members' best (and in TN a short-K fused-32x32-k8 pick whose one-pass member fills
    a wave: layout_choice.ring_stand_in, tested in test_heuristic.py; 2048x96x1024's K is above its bound)."""
    for m, n, k in ((2048, 96, 1024), (8192, 32, 384), (768, 256, 512)):
        nn_cfg, nn_backend = heuristic.choose_kernel(m, n, k, "sm_90", 132)
        assert nn_backend == "fusedk" and layout_choice.fused_stand_in(
            heuristic.choose_member(m, n, k, 132), False) is None
        for ta, tb in ((True, False), (False, True), (True, True)):
            cfg, backend = heuristic.choose_kernel(m, n, k, "sm_90", 132, ta, tb)
            assert backend == "fusedk" and (cfg.trans_a, cfg.trans_b) == (ta, tb)
            assert (cfg.bm, cfg.bn, cfg.bk, cfg.split_k) == (nn_cfg.bm, nn_cfg.bn, nn_cfg.bk, nn_cfg.split_k)
    m, n, k = 32768, 32, 4096
    assert heuristic.choose_kernel(m, n, k, "sm_90", 132)[1] == "fusedk"
    for ta, tb in ((True, False), (False, True), (True, True)):
        assert heuristic.choose_kernel(m, n, k, "sm_90", 132, ta, tb)[1] == "ptx"
        assert heuristic.describe_choice(m, n, k, "sm_90", 132, trans_a=ta, trans_b=tb)["by"] == "stand-in"
    m, n, k = 16384, 64, 512  # a skinny-n fused pick no stand-in holds whole (n 64): the unfused members' best
    assert heuristic.choose_member(m, n, k, 132) in layout_choice.FUSED_STAND_IN
    for ta, tb in ((True, False), (False, True), (True, True)):
        name = heuristic.choose_member(m, n, k, 132, trans_a=ta, trans_b=tb)
        assert FAMILY[name].backend != "fusedk" and name == heuristic.choose_member(m, n, k, 132, fused=False)


def test_transposed_operands_are_copied_by_float4_into_their_own_forms():
    """A^T lands as BK rows of BM floats (unpadded, a thread's rows ty * TM + i, float4 fragments along M), B^T as
    BN rows of BK floats with swizzled 16-byte chunks; both copied by float4 where the rows are aligned, by load_tile
    and by the lean copies (session 33: B^T went a float at a time before, and A^T was refused); the row-major
    kernel's text keeps its own forms."""
    cfg = FAMILY["fused-128x32-f1"].config
    nn = emit(cfg, "fusedk").text
    assert "#define A_AT(r, c) (r) * SA + c" in nn and "#define B_AT(r, c) (r) * BN + c" in nn
    assert "#define ROW(i) (i) * MRG + ty" in nn and "lean_n" in nn and "SWZ" not in nn
    for ta, tb in ((True, False), (False, True), (True, True)):
        text = emit(cfg.replace(trans_a=ta, trans_b=tb), "fusedk").text
        assert "lean_n" in text
        # B^T's two lean copies (32 x 32 floats: 256 float4s over 128 threads), each with its own place
        assert ("lb_dst1 = " in text) == tb and "lb_dst2" not in text
        assert ("#define ROW(i) ty * TM + (i)" in text) == ta and ("#define A_AT(r, c) (r) * BM + c" in text) == ta
        assert ("#define SWZ 7" in text) == tb  # BK 32: eight chunks a row
        assert text.count("cp_async16(") == 3  # load_tile's float4 copy of each operand, and its definition


@pytest.mark.parametrize("ta, tb", tiered([(True, False), (False, True), (True, True)], fast={(True, True)}))
def test_every_layout_of_a_fused_member_compiles_without_spilling(ta, tb):
    art = compile_config(FAMILY["fused-128x32-f1"].config.replace(trans_a=ta, trans_b=tb), "sm_90", backend="fusedk")
    assert art.resources.spill_free


@pytest.mark.parametrize("bk", [8, 16, 32, 64])
def test_b_t_swizzle_puts_a_quarter_warps_reads_on_distinct_chunks(bk):
    """The B^T stage's index as the template emits it (its B_AT macro, evaluated here: its operators read the same in
    Python): a bijection of each row's BK floats, within the stage; the eight lanes of a quarter warp read the float4
    of one k at columns tx*4 + e for eight consecutive tx (a row each), in min(BK/4, 8) distinct bank groups."""
    import re
    cfg = FAMILY["fused-32x32"].config.replace(bk=bk, trans_b=True)
    text = emit(cfg, "fusedk").text
    body = re.search(r"^#define B_AT\(r, c\) (.*)$", text, flags=re.M).group(1)
    swz = int(re.search(r"^#define SWZ (\d+)$", text, flags=re.M).group(1))
    at = eval(f"lambda r, c: {body}", {"BK": bk, "SWZ": swz})
    rows = cfg.bn
    for r in range(rows):
        assert sorted(at(r, c) for c in range(bk)) == list(range(r * bk, (r + 1) * bk))
    for e in range(4):
        for kk in range(0, bk, 4):
            assert len({(at(tx * 4 + e, kk) // 4) % 8 for tx in range(8)}) == min(bk // 4, 8)


def test_b_t_swizzle_refuses_a_row_of_chunks_not_a_power_of_two():
    """XOR within a row keeps a chunk in it only where the row's chunks are a power of two (review, session 33: BK
    24 and 48 wrote past the stage)."""
    for bk in (24, 48):
        with pytest.raises(ConfigError, match=rf"trans_b: BK / 4 \({bk // 4}\) must be a power of two"):
            emit(FAMILY["fused-32x32"].config.replace(bk=bk, trans_b=True), "fusedk")
        emit(FAMILY["fused-32x32"].config.replace(bk=bk, trans_a=True), "fusedk")  # A^T has no swizzle


def test_b_t_lean_copies_stop_where_their_addresses_would_spill():
    """B^T's lean copies hold an address each (the swizzle moves with the row): past B_T_LEAN_COPIES a thread the
    kernel takes load_tile alone (fused-64x128 in NT: 8, which spilled)."""
    from regtile.codegen.emit_fusedk import B_T_LEAN_COPIES, spread
    cfg = FAMILY["fused-64x128"].config
    assert cfg.bk * cfg.bn // 4 // cfg.threads > B_T_LEAN_COPIES
    assert spread(cfg, cfg.threads) and spread(cfg.replace(trans_a=True), cfg.threads)
    assert spread(cfg.replace(trans_b=True), cfg.threads) == ()
    assert "lean_n" not in emit(cfg.replace(trans_b=True), "fusedk").text


def test_a_transposed_needs_float4_rows_a_thread():
    with pytest.raises(ConfigError, match=r"trans_a: TM \(2\) must be a multiple of 4"):
        emit(FAMILY["fused-32x32"].config.replace(tm=2, warps=(4, 1), vec=1, bk=4, trans_a=True), "fusedk")


def test_a_fused_member_compiles_without_spills():
    cfg, backend = member_config("fused-32x32", 65, 33, 4097, 132)
    art = compile_config(cfg, "sm_90", backend=backend)
    assert cfg.split_k > 1 and art.resources.spill_free


def test_heuristic_names_the_backend_of_the_emitter():
    from regtile.codegen.emit_fusedk import BACKEND
    assert heuristic.FUSED == BACKEND and {FAMILY[n].backend for n in FUSED} == {BACKEND}


def test_fused_members_on_unaligned_rows_only_for_tiny_outputs():
    """Round 5 (docs/shapes-history.md): with the stepped per-float copies the fused members came within
    0-12% of the best member on tiny unaligned outputs (offered there; the table decides) and
    stayed 10-50% slower on bigger unaligned shapes (not offered)."""
    def fused(m, n, k):
        return [c for c in heuristic.candidate_names(m, n, k) if FAMILY[c].backend == "fusedk"]
    assert "fused-128x32-f1" in fused(32768, 32, 4096)
    assert "fused-32x32" in fused(65, 33, 4097) and "fused-32x32" in fused(700, 35, 2048)
    assert fused(32768, 33, 4096) == [] and fused(1009, 1013, 1019) == [] and fused(513, 129, 16383) == []
    assert fused(65, 33, 255) == []  # K too short to split


@pytest.mark.parametrize("name", FUSED)
def test_per_float_copies_step_a_pointer(name):
    """Every member's threads are a multiple of BK and BN: the per-float copies take a fixed column
    and step the source pointer by a row stride (no division per copy); the partials are laid out
    with float4 groups aligned whatever N is (the tail columns after them)."""
    cfg = FAMILY[name].config.replace(split_k=4)
    text = emit(cfg, "fusedk").text
    assert text.count("src += step;") == 2 and "row = c / BK" not in text and "row = c / BN" not in text
    assert "const int NF = N & ~3, NT = N & 3;" in text and "(zrow + row) * NF + col" in text


def test_lean_copies_are_dealt_over_the_k_steps_in_a_loop_of_their_own():
    """emit_fusedk.spread: every float4 copy of a k-tile placed once, A's and B's, over the BK / 4 steps; the text
    runs them in a loop before load_tile's, and a tile whose copies do not divide the threads has none."""
    from regtile.codegen.emit_fusedk import spread
    cfg = FAMILY["fused-128x32-f1"].config
    slots = spread(cfg, cfg.threads)
    assert len(slots) == cfg.bk // 4
    placed = [c for slot in slots for c in slot]
    assert placed == [("A", i) for i in range(8)] + [("B", i) for i in range(2)]
    assert max(len(s) for s in slots) - min(len(s) for s in slots) <= 1
    text = emit(cfg, "fusedk").text
    assert text.count("cp_async16_full(") == 1 + len(placed)  # the helper and one call a copy
    lean, rest = text.index("for (; it < lean_n - (DEPTH - 1); ++it)"), text.index("for (; it < nk; ++it)")
    assert lean < rest
    assert spread(cfg, 96) == ()  # 1024 float4s of A over 96 threads


def test_lean_copies_come_off_where_no_block_can_run_them():
    """operand_forms.for_lean_copies: the fused members carry the loop; a plan gets the kernel without it unless
    every block can run it - rows aligned, M and N whole tiles (with edge blocks on load_tile's loop in the same
    launch the kernel ran 3-40% slower: docs/data/session25/e_3ba3d89)."""
    from regtile.codegen.operand_forms import for_operands, member_for_shape
    cfg, backend = member_for_shape("fused-128x32-f1", 32768, 32, 4096, 132)
    assert cfg.lean_copies and "lean_n" in emit(cfg, backend).text
    for m, n, k in ((8192, 24, 8192), (100, 32, 4096), (32768, 32, 4097), (32768, 33, 4096), (16384, 48, 4096),
                    (1000, 32, 16384)):
        cfg, backend = member_for_shape("fused-128x32-f1", m, n, k, 132)
        assert not cfg.lean_copies and "lean_n" not in emit(cfg, backend).text, (m, n, k)
    member = FAMILY["fused-128x32-f1"].config
    assert for_operands(member, "fusedk", 4096, 32, 32768, 32).lean_copies
    assert not for_operands(member, "fusedk", 4096, 34, 32768, 32).lean_copies  # B's rows 8 bytes off
    assert not for_operands(member, "fusedk", 4096, 32, 127, 32).lean_copies  # no block inside M
    assert not for_operands(member, "fusedk", 4096, 64, 32768 + 64, 64).lean_copies  # an M edge block
    assert for_operands(member, "fusedk", 4096, 96, 16384, 96).lean_copies  # three whole tile columns
    # B^T: only where a split runs B_T_LEAN_MIN_KTILES k-tiles or more (k given); A^T as row-major A
    from regtile.codegen.operand_forms import B_T_LEAN_MIN_KTILES
    tt = member.replace(trans_a=True, trans_b=True, split_k=2)
    long_k = 2 * B_T_LEAN_MIN_KTILES * tt.bk
    assert for_operands(tt, "fusedk", 32768, long_k, 32768, 32, k=long_k).lean_copies
    short = long_k - tt.bk  # a split one k-tile short
    assert not for_operands(tt, "fusedk", 32768, short, 32768, 32, k=short).lean_copies
    assert not for_operands(tt, "fusedk", 32768, long_k, 32768, 32).lean_copies  # k not given
    assert for_operands(member.replace(trans_a=True), "fusedk", 32768, 32, 32768, 32).lean_copies
    assert not for_operands(member.replace(trans_a=True), "fusedk", 32770, 32, 32768, 32).lean_copies  # A^T's rows
    assert not FAMILY["wide-64x128"].config.lean_copies  # the field is the fused kernel's alone


def test_lean_loop_in_the_cubin_is_the_ffmas_the_lds_and_one_copy_a_float4():
    """The sm_90 SASS of fused-128x32-f1 (read from the cubin): its main loop - the loop of most FFMAs, here the
    lean copies' - holds a k-tile's 1024 FFMAs, 96 LDS.128 and its ten float4 copies (LDGSTS), with no other load;
    the predicated-off `@!PT LDS` ptxas puts before each LDGSTS are not counted (sass.disasm.instruction_mix)."""
    from regtile.runtime.sass import function_of, instruction_mix
    cfg, backend = member_config("fused-128x32-f1", 32768, 32, 4096, 132)
    src = emit(cfg, backend)
    art = compile_config(cfg, "sm_90", backend=backend)
    func = function_of(art.cubin, src.name)[1]
    assert instruction_mix(func.loop_instructions()) == {"BAR": 1, "FFMA": 1024, "LDGSTS": 10, "LDS.128": 96}
    assert any(i.predicate == "@!PT" and i.base == "LDS" for i in func.loop_instructions())  # there, not counted


def test_a_fused_config_is_described_as_the_fused_kernel_runs_it():
    """emit.describe(cfg, "fusedk"): the ring the kernel derives (depth, stage bytes), each operand's stage form in its
    layout and the split's in-kernel sum; not SgemmConfig.describe's words for the register-staged emitters (stages 1,
    z-order lanes, a reduce kernel), which the fused template does not read or launch."""
    cfg = FAMILY["fused-128x16"].config.replace(split_k=16)
    text = describe(cfg, "fusedk")
    assert f"a cp.async ring of {depth(cfg)} stages of {stage_bytes(cfg)} bytes" in text
    assert "A as 128 rows of 32 floats, 36 apart; B as 32 rows of 16 floats" in text and "K in 16 splits" in text
    assert "reduce kernel" not in text and "stages 1" not in text and "zorder" not in text
    assert "reduce kernel" in cfg.describe()  # what it replaces
    t = describe(cfg.replace(trans_a=True, trans_b=True, split_k=1), "fusedk")
    assert "A^T as 32 rows of 128 floats; B^T as 16 rows of 32 floats, 16-byte chunks XOR-swizzled" in t and "K whole" in t
    assert describe(cfg, "ptx") == cfg.describe()
    # lean copies named only where the emitter places them (fused-64x128 on B^T: 8 copies a thread, none lean)
    nt = FAMILY["fused-64x128"].config.replace(trans_b=True)
    assert nt.lean_copies and "lean copies" not in describe(nt, "fusedk") and "lean copies" in text
