"""Shared-memory bank model: the rules on synthetic accesses, the seed's measured
numbers on the presets, and agreement with the addresses the kernel prints."""
import pytest

from regtile.codegen.config import SgemmConfig
from regtile.codegen.expr import c_expr
from regtile.codegen.plan import SmemAccess, ThreadVars, make_plan
from regtile.codegen.presets import get_preset, preset_names
from regtile.codegen.smem_access import warp_access
from regtile.codegen.smem_banks import NCU_CONFLICTS, NCU_INST, NCU_WAVEFRONTS, analyze
from regtile.codegen.smem_vectorize import merge_chains, vectorize

LD_WF, ST_WF = NCU_WAVEFRONTS["LDS"], NCU_WAVEFRONTS["STS"]
LD_BC, ST_BC = NCU_CONFLICTS["LDS"], NCU_CONFLICTS["STS"]
# Seed 001's Nsight Compute tables, M = N = K = 4096, 128x128x8 blocks of 8 warps.
WARP_KTILES_4096 = (4096 // 128) ** 2 * 8 * (4096 // 8)


def _acc(op, width, offsets):
    return warp_access(SmemAccess(op, "B", width, "synthetic", None, ()), offsets)


# ---- the model on synthetic accesses ----------------------------------------------------------
@pytest.mark.parametrize("stride, wavefronts", [(1, 1), (2, 2), (4, 4), (32, 32), (33, 1), (0, 1)])
def test_32bit_strides(stride, wavefronts):
    a = _acc("LDS", 1, [lane * stride for lane in range(32)])
    assert (a.wavefronts, a.ideal, a.grouping) == (wavefronts, 1, "warp")


def test_32bit_store_to_one_word_is_one_wavefront():
    assert _acc("STS", 1, [7] * 32).wavefronts == 1


def test_128bit_contiguous_is_four_quarter_warps():
    a = _acc("LDS", 4, [4 * lane for lane in range(32)])
    assert (a.wavefronts, a.ideal, a.conflicts, a.grouping) == (4, 4, 0, "quarter-warps")


@pytest.mark.parametrize("pair", [1, 2])
def test_128bit_loads_pack_lane_pairs(pair):
    # lane n reads what lane n^pair reads (the lane number with that bit dropped gives
    # 16 contiguous float4s): the warp is served as two conflict-free half-warps
    key = [((lane >> pair) << (pair - 1)) | (lane & (pair - 1)) for lane in range(32)]
    assert all(key[n] == key[n ^ pair] for n in range(32))
    a = _acc("LDS", 4, [4 * k for k in key])
    assert (a.wavefronts, a.ideal, a.grouping) == (2, 2, "half-warps (pair packing)")


def test_128bit_broadcast_of_one_address_is_two_wavefronts():
    assert _acc("LDS", 4, [0] * 32).wavefronts == 2


def test_128bit_stores_never_pack():
    a = _acc("STS", 4, [4 * (lane // 2) for lane in range(32)])
    assert (a.wavefronts, a.ideal) == (4, 4)


def test_128bit_conflict_inside_a_quarter_warp():
    # 8 lanes 32 bytes apart: lanes l and l+4 hit the same 4 banks
    a = _acc("LDS", 4, [8 * lane for lane in range(32)])
    assert (a.wavefronts, a.ideal, a.conflicts) == (8, 4, 4)


# ---- the presets against seed 001's measurements --------------------------------------------
def _report(name, m=4096, n=4096, k=4096, sass=False):
    widths = H100[name][0] if sass else None
    return analyze(make_plan(get_preset(name).config), m, n, k, widths)


@pytest.mark.parametrize("name", ["vec4", "dbuf"])
def test_transposed_a_stores_conflict_two_way(name):
    r = _report(name)
    a_stores = [a for a in r.accesses if a.op == "STS" and a.operand == "A"]
    assert len(a_stores) == 4 and all((a.wavefronts, a.ideal, a.conflicts) == (2, 1, 1) for a in a_stores)
    # the seed's table for the unpadded kernel: 50,331,648 store wavefronts, 16,777,216 conflicts
    assert r.totals[ST_WF] == 50_331_648 == 12 * WARP_KTILES_4096
    assert r.totals[ST_BC] == 16_777_216 == 4 * WARP_KTILES_4096


def test_padding_removes_the_store_conflicts():
    r = _report("pad")
    assert r.totals[ST_BC] == 0
    assert r.totals[ST_WF] == 33_554_432  # 4 STS.32 at 1 + one STS.128 at 4


def test_zorder_has_no_conflicts_and_matches_the_seed():
    r = _report("zorder")
    assert r.totals[LD_BC] == 0 and r.totals[ST_BC] == 0
    loads = [a for a in r.accesses if a.op == "LDS"]
    assert {(a.sass, a.wavefronts, a.grouping) for a in loads} == {("LDS.128", 2, "half-warps (pair packing)")}
    # seed: 134,217,728 LDS.128, 268,441,315 wavefronts (2.0 each); 33,554,432 store wavefronts
    assert r.totals[NCU_INST["LDS"]] == 134_217_728
    assert r.totals[LD_WF] == 268_435_456
    assert abs(r.totals[LD_WF] - 268_441_315) / 268_441_315 < 1e-4
    assert r.totals[ST_WF] == 33_554_432


def test_linear_vec4_fragment_loads():
    """Linear lanes, 16 along N, 8x8 thread tiles.  A: the 16 lanes of a half-warp read
    one address (pairs repeat), so 2 wavefronts and no conflict.  B: a quarter-warp's 8
    lanes read 16 bytes each, 32 bytes apart: lanes l and l+4 are 128 bytes apart, same
    4 banks, so each quarter-warp takes 2 wavefronts: 8 for 4 ideal."""
    r = _report("vec4")
    a = {x.wavefronts for x in r.accesses if x.op == "LDS" and x.operand == "A"}
    b = {(x.wavefronts, x.ideal, x.conflicts) for x in r.accesses if x.op == "LDS" and x.operand == "B"}
    assert a == {2} and b == {(8, 4, 4)}
    assert r.per_warp_ktile()["LDS"] == {"instructions": 32, "wavefronts": 160, "ideal": 96, "conflicts": 64}


def test_double_buffering_stores_each_tile_once():
    assert _report("dbuf").totals == _report("vec4").totals


def test_stages0_has_no_shared_accesses():
    r = _report("naive")
    assert r.accesses == () and all(v == 0 for v in r.totals.values())
    assert "no shared-memory accesses" in r.render_text()


def test_edge_tiles_count_as_whole_blocks():
    r = _report("zorder", 4097, 130, 9)
    assert (r.blocks, r.warps_per_block, r.k_tiles) == (33 * 2, 8, 2)
    assert r.totals[NCU_INST["STS"]] == 5 * r.warp_ktiles


def test_report_dict_and_text():
    r = _report("zorder")
    d = r.to_dict()
    assert d["totals"][LD_WF] == r.totals[LD_WF] and len(d["accesses"]) == 37
    assert d["instructions_per_ktile"] == {"LDS.128": 32, "STS.128": 1, "STS.32": 4}
    text = r.render_text()
    assert LD_BC in text and "pair packing" in text


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_analyses(name):
    r = _report(name, 1000, 1000, 1000)
    assert all(a.wavefronts >= a.ideal >= 1 for a in r.accesses)


# ---- the analysis evaluates the same index expressions the kernel prints ----------------------
@pytest.mark.parametrize("name", ["vec4", "pad", "zorder", "tile2d"])
def test_model_addresses_are_the_printed_expressions(name):
    """Each access's offset function printed as C (what the emitter does) and evaluated
    as Python gives the number the model uses, for every thread."""
    cfg = get_preset(name).config
    plan = make_plan(cfg)
    sym = ThreadVars.symbolic()
    for access in plan.smem_accesses_per_ktile():
        py = c_expr(access.offset(sym)).replace("/", "//")  # non-negative ints: C's / is Python's //
        for tid in range(0, cfg.threads, 5):
            tv = ThreadVars.numeric(cfg, tid)
            assert eval(py, {"tid": tv.tid, "row0": tv.row0, "col0": tv.col0}) == access.offset(tv)


def test_custom_config_with_padding_b():
    cfg = SgemmConfig(bm=64, bn=64, bk=16, tm=4, tn=4, vec=4, a_transposed=True, pad_b=4)
    r = analyze(make_plan(cfg), 256, 256, 256)
    assert r.totals[LD_WF] >= r.totals["model.ideal_wavefronts_ld"]


# ---- pictures and `regtile banks` ---------------------------------------------------------------
def test_pictures_linear_vs_zorder():
    from regtile.tools import pictures
    lin = pictures.render_all(make_plan(get_preset("vec4").config))
    zo = pictures.render_all(make_plan(get_preset("zorder").config))
    # linear: lanes 0..15 along the first row of thread tiles; z-order: lane 1 under lane 0
    assert "row   0    0   1   2   3" in lin and "row   0    0   2   4   6" in zo and "row   4    1   3" in zo
    # the B fragment loads of vec4 serialize 2-way in each quarter-warp, z-order's do not
    assert "|2222.... 2222.... 2222.... 2222....| 2" in lin
    assert "8 wavefronts (ideal 4, 4 conflicts)" in lin and "conflicts)" in zo
    assert "1 conflicts" not in zo and "4 conflicts" not in zo


def test_cli_banks(capsys):
    import json
    from regtile.tools.cli import main
    assert main(["banks", "--preset", "zorder", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["smem_banks"]["totals"][LD_BC] == 0 and len(d["lane_grid"]) == 8
    assert main(["banks", "--preset", "vec4", "--kslice", "8"]) == 2
    assert main(["banks", "--preset", "pad", "--kslice", "3", "--warp", "1"]) == 0
    assert "k-slice 3" in capsys.readouterr().out


def test_cli_banks_png(tmp_path, capsys):
    from regtile.tools.cli import main
    out = tmp_path / "z.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert main(["banks", "--preset", "zorder", "--png", str(out)]) == 2
        assert "matplotlib" in capsys.readouterr().err
        return
    assert main(["banks", "--preset", "zorder", "--png", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


# ---- ptxas's vectorization of scalar shared loads, against the H100 (docs/data/ncu_smem_2026-11-22.csv) ----
# Per warp k-tile = counter / (blocks x warps x k-tiles), M = N = K = 4096:
#   smem   (32x32x32, 32 warps):  128*128 blocks * 32 * 128 = 67,108,864 warp k-tiles
#   tile1d (64x64x8, 16 warps):    64*64 blocks * 16 * 512 = 33,554,432
#   tile2d (128x128x8, 8 warps):   32*32 blocks *  8 * 512 =  4,194,304
# "ideal" = wavefronts - conflicts as ncu counts them; the excess both counters share is
# not from addresses (docs/bank-conflicts.md).
H100 = {  # preset: (SASS main-loop LDS/STS, warp k-tiles, ld instructions, ld wavefronts, ld conflicts)
    "smem": ({"LDS.128": 8, "LDS.32": 32, "STS.32": 2}, 67_108_864, 2_684_354_560, 3_221_752_372, 526_900),
    "tile1d": ({"LDS.128": 16, "LDS.32": 15, "STS.32": 2}, 33_554_432, 1_040_187_392, 1_577_166_856, 108_552),
    "tile2d": ({"LDS.128": 32, "STS.32": 8}, 4_194_304, 134_217_728, 671_088_640, 268_435_456),
}


@pytest.mark.parametrize("name", sorted(H100))
def test_vectorized_scalar_presets_match_the_h100(name):
    widths, warp_ktiles, inst, wf, bc = H100[name]
    r = analyze(make_plan(get_preset(name).config), 4096, 4096, 4096, widths)
    assert r.warp_ktiles == warp_ktiles
    assert r.vectorization.source == "sass" and r.instructions_per_ktile() == widths
    assert r.totals[NCU_INST["LDS"]] == inst
    assert r.totals["model.ideal_wavefronts_ld"] == wf - bc  # exact
    assert abs(r.totals[LD_WF] - wf) / wf < 2e-4  # the rest: ncu's excess, counted as conflicts


def test_tile2d_merges_into_the_vec4_loads():
    # measured on the H100: 160 load wavefronts and 64 conflicts per warp k-tile, as vec4
    r = _report("tile2d", sass=True)
    assert r.per_warp_ktile()["LDS"] == {"instructions": 32, "wavefronts": 160, "ideal": 96, "conflicts": 64}
    assert r.per_warp_ktile()["LDS"] == _report("vec4").per_warp_ktile()["LDS"]
    merged = [a for a in r.accesses if a.merged_from]
    assert len(merged) == 32 and all(a.sass == "LDS.128" and len(a.merged_from) == 4 for a in merged)
    # A: 4 k-slices of one row; B: 4 columns of one k-slice
    a0 = next(a for a in merged if a.operand == "A")
    assert a0.merged_from == tuple(f"A fragment 0, k-slice {kk}" for kk in range(4))
    b0 = next(a for a in merged if a.operand == "B")
    assert b0.merged_from == tuple(f"B fragment {j}, k-slice 0" for j in range(4))
    text = r.render_text()
    assert "following ptxas's vectorization seen in the SASS" in text and "128 plan accesses into 32 LDS.128" in text
    assert r.to_dict()["vectorization"]["merged"][0]["sass"] == "LDS.128"


def test_plan_widths_without_sass():
    r = _report("tile2d")
    assert r.vectorization.source == "plan" and r.instructions_per_ktile() == {"LDS.32": 128, "STS.32": 8}
    assert "the plan's widths" in r.render_text() and "no SASS given" in r.render_text()
    # what the unmerged plan would cost (the H100 measured 160 and 64)
    assert r.per_warp_ktile()["LDS"] == {"instructions": 128, "wavefronts": 384, "ideal": 128, "conflicts": 256}


def test_tile1d_reloads_are_counted():
    r = analyze(make_plan(get_preset("tile1d").config), 4096, 4096, 4096, H100["tile1d"][0])
    v = r.vectorization
    assert v.reloads == {"LDS.32": 7} and not v.shortfall and not v.exact
    reloads = [a for a in r.accesses if a.reload_of]
    assert len(reloads) == 7 and all(a.operand == "A" and a.wavefronts == 1 for a in reloads)
    assert r.per_warp_ktile()["LDS"] == {"instructions": 31, "wavefronts": 47, "ideal": 47, "conflicts": 0}
    assert "re-loads" in r.render_text()


def test_merge_needs_alignment_for_every_thread():
    # As rows of BK + 2 = 10 floats: a thread's 8 A floats start 8-byte aligned for
    # every thread but 16-byte aligned only on even rows; ptxas (sm_90) issues 28 LDS.128
    # and 8 LDS.64 for it, which is what the rule gives
    cfg = get_preset("tile2d").config.replace(pad_a=2)
    plan = make_plan(cfg)
    out, parts, v = vectorize(plan, {"LDS.128": 28, "LDS.64": 8, "STS.32": 8})
    assert v.exact and v.model_counts == {"LDS.128": 28, "LDS.64": 8, "STS.32": 8}
    for a, p in zip(out, parts):
        for tid in range(cfg.threads):
            off = a.offset(ThreadVars.numeric(cfg, tid))
            assert off % a.width == 0  # naturally aligned for every thread
        if p:
            offs = [[x.offset(ThreadVars.numeric(cfg, t)) for x in p] for t in range(0, cfg.threads, 7)]
            assert all(o == list(range(o[0], o[0] + len(p))) for o in offs)  # consecutive floats


def test_chains_need_consecutive_floats_for_every_thread():
    def acc(what, f):
        return SmemAccess("LDS", "A", 1, what, f, ())
    cfg = get_preset("tile2d").config
    plan = make_plan(cfg)
    # x and y are consecutive for every thread; z follows y only for even threads
    x = acc("x", lambda tv: 4 * tv.tid)
    y = acc("y", lambda tv: 4 * tv.tid + 1)
    z = acc("z", lambda tv: 4 * tv.tid + 2 + tv.tid % 2)
    assert merge_chains(plan, [x, y, z]) == [[0, 1]]


def test_no_policy_fits_reports_the_shortfall():
    r = analyze(make_plan(get_preset("tile2d").config), 256, 256, 256, {"LDS.128": 16, "STS.32": 8})
    assert r.vectorization.shortfall and "fewer" in r.render_text()


@pytest.mark.slow
def test_compiled_scalar_presets_follow_their_sass():
    from regtile.tools.artifacts import build
    for name in ("smem", "tile2d-reg"):
        built = build(name, get_preset(name).config, "sm_90")
        r = analyze(make_plan(built.config), 1024, 1024, 1024, built.loop_mix())
        assert r.vectorization.exact, r.vectorization
        mix = {k: v for k, v in built.loop_mix().items() if k[:3] in ("LDS", "STS")}
        assert r.instructions_per_ktile() == mix


def test_inspect_passes_the_sass_mix(capsys):
    from regtile.tools.cli import main
    assert main(["inspect", "--preset", "tile2d"]) == 0
    assert "following ptxas's vectorization seen in the SASS" in capsys.readouterr().out


def test_the_ring_issues_no_shared_stores():
    """The cp.async ring (stages 4; TN's sq-32x32 as operand_forms.for_ring runs it) copies by LDGSTS: no STS in the
    model, op_st 0 as Nsight Compute measured it (H200, session 37, docs/data/session37/h_3d7a516: op_st 0 wavefronts,
    op_ld 1,052,601 against the 1,048,576 here), the loads those of the two-stage loop, and the copies named as not
    modelled."""
    from regtile.codegen.presets import FAMILY
    two = FAMILY["sq-32x32"].config.replace(trans_a=True)
    ring = two.replace(stages=4, hoist_head=False)
    reports = {cfg.stages: analyze(make_plan(cfg), 512, 512, 512, {"LDS.128": 32}) for cfg in (two, ring)}
    assert reports[4].totals[NCU_WAVEFRONTS["LDS"]] == reports[2].totals[NCU_WAVEFRONTS["LDS"]] == 1_048_576
    assert reports[4].totals[NCU_WAVEFRONTS["STS"]] == reports[4].totals[NCU_INST["STS"]] == 0
    assert reports[2].totals[NCU_WAVEFRONTS["STS"]] > 0
    assert "LDGSTS" in reports[4].not_modelled and not reports[2].not_modelled
    assert reports[4].vectorization.exact  # the SASS loop's 32 LDS.128 and no STS: what the model issues
