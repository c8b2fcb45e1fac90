"""Stream-K (codegen/streamk.py) without a GPU: the work list covers every (tile, k-tile)
exactly once and balances the last wave; the PTX work-list kernel and its reduction
build for every arch; the SASS pass still finds the k loop inside the item loop."""

import numpy as np
import pytest
from tiers import tiered

from regtile.codegen.config import ConfigError
from regtile.codegen.emit import emit
from regtile.codegen.presets import get_preset
from regtile.codegen.streamk import fixup_children, MAX_LAST_WAVE_FILL, MIN_ITERS, plan_stream_k
from regtile.runtime.compiler import compile_config
from regtile.runtime.sass import function_of

ZORDER = get_preset("zorder").config
BEST = ZORDER.replace(bn=256, tn=16, min_blocks=1, sass_pass=True)

SHAPES = [(4096, 4096, 4096), (3072, 3072, 3072), (8192, 8192, 8192), (4097, 4097, 4097), (1024, 1024, 1024),
          (127, 511, 257), (1, 1, 1), (129, 257, 4096), (2048, 2304, 512), (1000, 31, 0), (0, 64, 64)]


def _coverage(plan):
    seen = {}
    for tm, tn, k0, k1, slot, _, _ in plan.items:
        assert 0 <= k0 < k1 <= plan.k_tiles or (plan.k_tiles == 0 and k0 == k1 == 0)
        for kt in range(k0, k1):
            assert (tm, tn, kt) not in seen, f"k-tile {kt} of tile {(tm, tn)} computed twice"
            seen[(tm, tn, kt)] = slot
    return seen


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("bm, bn, bk, slots", [(128, 256, 8, 132), (128, 128, 8, 264), (64, 64, 16, 132), (128, 256, 8, 7)])
def test_every_k_tile_of_every_tile_once_and_the_last_wave_even(m, n, k, bm, bn, bk, slots):
    plan = plan_stream_k(m, n, k, bm, bn, bk, slots)
    tiles = [(tm, tn) for tm in range(-(-m // bm)) for tn in range(-(-n // bn))]
    whole = plan.whole_tiles
    seen = _coverage(plan)
    # the whole-tile launch takes tiles 0 .. whole-1 (tile_n fastest: the one-pass grid's
    # order), the ranges every k-tile of the others, once
    if plan.k_tiles:
        assert set(seen) == {(tm, tn, kt) for tm, tn in tiles[whole:] for kt in range(plan.k_tiles)}
    assert plan.starts[0] == 0 and plan.starts[-1] == len(plan.items)
    assert all(a < b for a, b in zip(plan.starts, plan.starts[1:]))  # no empty range
    if plan.stream_k_tiles:
        assert whole % slots == 0  # the whole tiles fill whole waves
        loads = [sum(it[3] - it[2] for it in plan.items[plan.starts[c]:plan.starts[c + 1]])
                 for c in range(plan.ranges)]
        assert max(loads) - min(loads) <= 1, "stream-K ranges differ by more than one k-tile"
        assert min(loads) >= MIN_ITERS
        assert plan.stream_k_tiles < plan.ranges <= slots
        assert plan.ranges * MIN_ITERS <= plan.stream_k_tiles * plan.k_tiles
    else:
        assert whole == len(tiles) and plan.ranges == 0 and not plan.items
    rem = len(tiles) % slots
    if plan.k_tiles >= 2 * MIN_ITERS and 0 < rem <= MAX_LAST_WAVE_FILL * slots:
        assert plan.stream_k_tiles == rem  # the rule takes every eligible tail
    # slots: numbered 0.., one per later piece of a split tile, consecutive per tile and in K
    # order; the tile's first piece (k-tile 0) adds exactly those, and is its range's last item
    later = {}
    for tm, tn, k0, k1, slot, first, count in plan.items:
        if k0 > 0:
            assert slot >= 0 and count == 0
            later.setdefault((tm, tn), []).append((k0, slot))
        else:
            assert slot == -1
    assert sorted(s for v in later.values() for _, s in v) == list(range(plan.slots))
    for c in range(plan.ranges):
        for w in range(plan.starts[c], plan.starts[c + 1]):
            tm, tn, k0, k1, slot, first, count = plan.items[w]
            if k0 == 0 and k1 < plan.k_tiles:
                ks = [s for _, s in sorted(later[(tm, tn)])]
                assert (first, count) == (ks[0], len(ks)) and ks == list(range(first, first + count))
                assert w == plan.starts[c + 1] - 1, "a first piece that is not its range's last item"
            else:
                assert count == 0
    assert plan.split_tiles == len(later)


@pytest.mark.parametrize("fanout", [2, 4])
def test_the_fixup_tree_adds_every_piece_once_from_later_ranges(fanout):
    """streamk.fixup_children (the rule ptx_streamk.gather runs): for 1..300 pieces every later piece
    has one parent, an earlier piece; a node adds at most F - 1 a level; piece 0 waits
    ceil(log_F(pieces)) levels deep."""
    import math
    for count in range(0, 300):
        parent = {}
        for i in range(count + 1):
            levels = fixup_children(i, count, fanout)
            assert all(0 < len(kids) < fanout for kids in levels)
            for kid in (k for kids in levels for k in kids):
                assert kid > i and kid not in parent
                parent[kid] = i
        assert sorted(parent) == list(range(1, count + 1))
        depth = len(fixup_children(0, count, fanout))
        assert fanout ** depth >= count + 1 and (depth == 0 or fanout ** (depth - 1) < count + 1), (count, depth)
        assert depth == (math.ceil(math.log(count + 1, fanout) - 1e-9) if count else 0)


def test_a_piece_waits_only_for_pieces_of_later_ranges():
    """The tree's waits cannot deadlock: a split tile's piece i runs in an earlier range (block) than its
    children (every range is resident at once: one wave)."""
    plan = plan_stream_k(255, 256, 65537, 128, 64, 16, 396)
    block = {}
    for c in range(plan.ranges):
        for w in range(plan.starts[c], plan.starts[c + 1]):
            block[w] = c
    pieces = {}
    for w, (tm, tn, k0, _, _, _, _) in enumerate(plan.items):
        pieces.setdefault((tm, tn), []).append((k0, block[w]))
    assert len(pieces) == 8 and all(len(p) > 40 for p in pieces.values())
    for p in pieces.values():
        blocks = [b for _, b in sorted(p)]  # piece i = the i-th in K order
        for i in range(len(blocks)):
            for kid in (k for kids in fixup_children(i, len(blocks) - 1) for k in kids):
                assert blocks[kid] > blocks[i]
    assert "a fix-up tree 3 levels deep" in plan.describe()


def test_work_ints_layout():
    plan = plan_stream_k(2048, 2304, 512, 128, 256, 8, 132)
    ints = plan.work_ints()
    assert ints.dtype == np.int32
    items = ints[:8 * len(plan.items)].reshape(-1, 8)
    split = {(tm, tn): (f, c) for tm, tn, _, _, _, f, c in plan.items if c > 0}
    assert split and any(s >= 0 for *_, s, _, _ in plan.items)
    for row, (tm, tn, k0, k1, s, f, c) in zip(items, plan.items):
        # (first, count): the split tile's slots on each of its pieces, (0, 0) on a whole tile
        assert tuple(row) == ((tm << 16) | tn, k0, k1, s) + split.get((tm, tn), (0, 0)) + (0, 0)
        assert (f, c) == (split[(tm, tn)] if s < 0 and (tm, tn) in split and k0 == 0 else (0, 0))
        if s >= 0:
            assert row[4] <= s < row[4] + row[5]  # a later piece: piece s - first + 1 of its tile's tree
    starts = ints[plan.starts_offset // 4:plan.starts_offset // 4 + plan.ranges + 1]
    assert tuple(starts) == plan.starts
    assert plan.starts_offset % 16 == 0  # items are read as int4 (32 bytes each)
    flags = ints[plan.flags_offset // 4:]
    assert len(flags) == plan.slots and not flags.any()  # the kernel leaves them at 0 too
    assert plan.workspace_bytes == 4 * plan.slots * 128 * 256


def test_a_nearly_full_last_wave_stays_whole():
    """2048^3 in 128x256 tiles: 128 tiles on 132 slots, 97% full - stream-K lost 13% there;
    4096^3's 88% takes it (0.6% faster with the fix-up)."""
    plan = plan_stream_k(2048, 2048, 2048, 128, 256, 8, 132)
    assert plan.whole_tiles == 128 and plan.ranges == 0
    assert plan_stream_k(4096, 4096, 4096, 128, 256, 8, 132).ranges == 132
    plan = plan_stream_k(3072, 3072, 3072, 128, 256, 8, 132)  # 24 of 132: 18% full
    assert plan.whole_tiles == 264 and plan.ranges == 132


def test_whole_waves_need_no_stream_k():
    plan = plan_stream_k(128 * 12, 256 * 11, 4096, 128, 256, 8, 132)  # 132 tiles: one wave
    assert plan.stream_k_tiles == 0 and plan.slots == 0 and plan.whole_tiles == 132 and plan.ranges == 0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="slots_per_wave"):
        plan_stream_k(64, 64, 64, 64, 64, 8, 0)
    with pytest.raises(ValueError, match="16 bits"):
        plan_stream_k(1 << 23, 64, 64, 64, 64, 8, 132)


def test_config_rules():
    with pytest.raises(ConfigError, match="split_k"):
        ZORDER.replace(stream_k=True, split_k=2)
    with pytest.raises(ConfigError, match="stages"):
        get_preset("naive").config.replace(stream_k=True)
    with pytest.raises(ConfigError, match="backend ptx"):
        emit(ZORDER.replace(stream_k=True), "cuda")
    assert "stream_k" not in ZORDER.to_dict()  # one-pass configs keep their names and digests
    assert ZORDER.replace(stream_k=True).to_dict()["stream_k"] is True


@pytest.mark.parametrize("name, arch", tiered([(n, a) for n in ("zorder", "vec4", "tile1d")
                                                for a in ("sm_80", "sm_86", "sm_89", "sm_90")],
                                               fast={("zorder", "sm_90"), ("tile1d", "sm_80")}))
def test_work_list_kernel_builds_without_spills(name, arch):
    cfg = get_preset(name).config.replace(stream_k=True)
    art = compile_config(cfg, arch, backend="ptx")
    assert art.resources.spill_store_bytes == 0 and art.resources.spill_load_bytes == 0
    src = art.source
    assert src.geometry.stream_k and src.ranges is not None
    for name_ in (src.name, src.ranges.name):
        assert f".entry {name_}(" in src.text
        function_of(art.cubin, name_)  # both kernels are in the cubin and disassemble


@pytest.mark.slow
def test_pass_rewrites_both_loops_and_finds_the_k_loop_inside_the_item_loop():
    art = compile_config(BEST.replace(stream_k=True), "sm_90", backend="ptx")
    one_pass = compile_config(BEST, "sm_90", backend="ptx")
    rep = art.sass_pass.to_dict()
    # the whole-tile kernel is the one-pass kernel but for its first lines: same allocation
    assert rep["ffma_in_loop"] == BEST.tm * BEST.tn * BEST.bk
    assert rep["conflicted_after"] == one_pass.sass_pass.to_dict()["conflicted_after"]
    assert art.resources.registers == one_pass.resources.registers
    ranges = rep["other_kernels"][art.source.ranges.name]
    assert ranges["ffma_in_loop"] == BEST.tm * BEST.tn * BEST.bk  # the k loop, not the loop over items
    assert ranges["conflicted_after"] <= ranges["conflicted_before"]
    assert f"also rewritten: {art.source.ranges.name}" in art.sass_pass.render_text()  # what inspect prints
    func = function_of(art.cubin, art.source.ranges.name)[1]
    start, end = func.main_loop()
    loops = [(func.labels[i.branch_target()], i.offset) for i in func.instructions
             if i.base == "BRA" and i.branch_target() in func.labels and func.labels[i.branch_target()] <= i.offset]
    assert len(loops) >= 2  # the item loop and the k loop
    assert not any(start <= s and e <= end and (s, e) != (start, end) for s, e in loops)


@pytest.mark.slow
def test_pass_rewrites_the_zorder_work_list_kernel():
    """Its R2UR UR15, R0 (a uniform destination) once made the field map take the uniform
    register for source slot a and put R0 in the b field; the proof refused the kernel."""
    art = compile_config(ZORDER.replace(sass_pass=True, stream_k=True), "sm_90", backend="ptx")
    ranges = art.sass_pass.to_dict()["other_kernels"][art.source.ranges.name]
    assert ranges["conflicted_after"] < ranges["conflicted_before"]
    func = function_of(art.cubin, art.source.ranges.name)[1]
    r2ur = [i for i in func.instructions if i.base == "R2UR"]
    assert r2ur
    from regtile.runtime.sass_fields import locate
    for ins in r2ur:
        (f,) = locate(ins)
        assert f.bit == 24 and not f.written


def test_tune_offers_stream_k_where_the_last_wave_is_partial():
    from regtile.tools.tune import candidate_configs, stream_k_options
    best = ZORDER.replace(bn=256, tn=16, min_blocks=1)
    assert stream_k_options(best, 3072, 3072, 3072) == (False, True)  # 288 tiles: 2.18 waves
    assert stream_k_options(best, 1536, 2816, 4096) == (False,)  # 132 tiles: one whole wave
    assert stream_k_options(best, 2048, 2048, 2048) == (False,)  # 128 of 132: 97% full
    with_sk = candidate_configs(3072, 3072, 3072, 132, split_k=False, stream_k=True)
    plain = candidate_configs(3072, 3072, 3072, 132, split_k=False)
    assert not any(c.stream_k for c in plain)
    assert {c.replace(stream_k=False) for c in with_sk} == set(plain)
    assert any(c.stream_k for c in with_sk) and all(c.split_k == 1 for c in with_sk)
