"""Issue 20's shape heuristic (codegen/heuristic.py): pure, fast, and what it picks."""
import glob
import json
import math
import os
import random

import pytest

from regtile.codegen import heuristic as h
from regtile.codegen import heuristic_fit as hf
from regtile.codegen import layout_choice, layouts
from regtile.codegen.config import SgemmConfig
from regtile.codegen.presets import FAMILY, get_preset

SUITE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks",
                     "shapes.json")
# benchmarks/shapes.py FIT_GRIDS and the ragged grids (session 29): the fitted grids
FIT_GRIDS = sorted(glob.glob(os.path.join(os.path.dirname(SUITE), "shapes-fit-*.json")))


def test_pure_module_imports_no_runtime():
    """codegen never imports runtime: the heuristic, its fitting, the layouts and the operand forms import the
    standard library and codegen only."""
    import ast
    from regtile.codegen import batch_choice, operand_forms
    for module in (h, hf, layouts, layout_choice, operand_forms, batch_choice):
        tree = ast.parse(open(module.__file__).read())
        mods = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                mods.add("." * node.level + (node.module or ""))
        assert mods <= {"__future__", "functools", "json", "math", "os", "typing", ".batch_choice", ".config",
                        ".edges", ".hardware", ".heuristic", ".layout_choice", ".layouts", ".mapping", ".presets", ".sgemv_config", ".streamk"}, (module.__name__, mods)


def test_table_entries_name_family_members_and_cover_the_suite_and_the_grids():
    """The entries: every suite shape and every shape of the fitting grids (sessions 16-17 and 29), no other."""
    table = h.load_table()
    with open(SUITE) as f:
        suite = {(s["m"], s["n"], s["k"]) for s in json.load(f)}
    grid = set()
    for path in FIT_GRIDS:
        with open(path) as f:
            grid |= {(s["m"], s["n"], s["k"]) for s in json.load(f)}
    assert len(suite) >= 100 and len(grid) >= 300 and not suite & grid
    assert {(e["m"], e["n"], e["k"]) for e in table} == suite | grid
    sticky = h._table_data(h.TABLE_PATH).get("sticky", 0.0)  # a sticky refit keeps members within this of the fastest
    for e in table:
        assert e["best"] in FAMILY and all(n in FAMILY for n in e["rel"])
        assert min(e["rel"].values()) == 1.0 and e["rel"][e["best"]] <= 1.0 + sticky


def test_suite_shapes_take_their_measured_winner():
    for e in h.load_table():
        assert h.choose_member(e["m"], e["n"], e["k"], 132) == e["best"], e


def test_choice_is_a_valid_config_for_any_shape_and_needs_no_measurement(monkeypatch):
    """Any shape gets a valid member from the committed table and the model alone: no file is
    opened and no process started after the table is loaded (the speed is benchmarked, not
    timed here)."""
    import builtins
    import subprocess
    h.load_table()
    rng = random.Random(20)
    shapes = [tuple(int(2 ** rng.uniform(0, 17)) for _ in range(3)) for _ in range(300)]
    # and thin ones in every layout, m or n of 1-40 (session 34: 76x9x474 in TN raised, its only candidate a fused
    # member whose stand-in on A^T was none)
    thin = [(int(2 ** rng.uniform(0, 17)), rng.randint(1, 40), int(2 ** rng.uniform(0, 17))) for _ in range(60)]
    thin += [(n, m, k) for m, n, k in thin] + [(76, 9, 474), (106, 6, 16634)]
    layouts = ((False, False), (False, True), (True, False), (True, True))
    cases = [(s, (False, False)) for s in shapes] + [(s, lay) for s in thin for lay in layouts]

    def refuse(*a, **k):
        raise AssertionError("the heuristic opened a file or started a process")
    monkeypatch.setattr(builtins, "open", refuse)
    monkeypatch.setattr(subprocess, "run", refuse)
    first = []
    for (m, n, k), (ta, tb) in cases:
        cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, ta, tb)
        assert isinstance(cfg, SgemmConfig) and backend in ("cuda", "ptx", "fusedk")
        assert not (backend == "cuda" and cfg.stream_k) and not (backend == "ptx" and cfg.split_k > 1)
        assert 1 <= cfg.split_k <= max(1, -(-k // cfg.bk)), (m, n, k, ta, tb, cfg.split_k)
        first.append((cfg, backend))
    assert [h.choose_kernel(m, n, k, "sm_90", 132, ta, tb) for (m, n, k), (ta, tb) in cases] == first  # deterministic


def test_large_shapes_keep_the_large_kernel_and_other_archs_keep_todays():
    for s in (4096, 8192):
        cfg, backend = h.choose_kernel(s, s, s, "sm_90", 132)
        # the 128x256 kernel or its 256x128 transpose (within 1-2% of each other there: the
        # table keeps whichever a sweep measured faster)
        assert (backend, cfg.bm * cfg.bn, cfg.sass_pass, cfg.stream_k) == ("ptx", 128 * 256, True, True)
    for arch in ("sm_80", "sm_86", "sm_89"):
        assert h.choose_kernel(16, 4096, 4096, arch, 108) == (get_preset("zorder").config, "cuda")


def test_skinny_shapes_get_narrow_tiles():
    for m, n, k in ((4, 8192, 8192), (16, 4096, 16384), (8192, 8, 8192), (20000, 16, 50000)):
        cfg, _ = h.choose_kernel(m, n, k, "sm_90", 132)
        assert min(cfg.bm, cfg.bn) <= 32, (m, n, k, cfg.describe())


def test_skinny_members_hold_the_thin_side_whole():
    """A skinny member is a candidate only where its thin tile holds all of m (n): two tile rows would
    stream the big operand twice.  The fastest member of every suite shape obeys this (the table)."""
    for m, n, k in ((20, 3584, 18944), (17, 8191, 4099), (33, 4096, 4096), (8192, 24, 8192), (4096, 40, 4096)):
        for name in h.candidate_names(m, n, k):
            c = FAMILY[name].config
            if name.startswith("skinny-m"):
                assert m <= c.bm, (m, n, k, name)
            if name.startswith("skinny-n"):
                assert n <= c.bn, (m, n, k, name)
    assert "skinny-m16-k32" in h.candidate_names(16, 4096, 4096)
    assert "skinny-m16-k32" not in h.candidate_names(20, 3584, 18944)
    assert "skinny-m32" in h.candidate_names(20, 3584, 18944)
    for e in h.load_table():
        if e["best"].startswith("skinny-m"):
            assert e["m"] <= FAMILY[e["best"]].config.bm, e
        if e["best"].startswith("skinny-n"):
            assert e["n"] <= FAMILY[e["best"]].config.bn, e


def test_split_for_fills_the_sms_and_keeps_k_ranges_long():
    assert h.split_for(4096, 4096, 4096, 128, 128, 8, 132) == 1  # 1024 tiles fill the SMs
    s = h.split_for(16, 2048, 2048, 32, 128, 16, 132)
    assert 16 * s >= 132 and 2048 // 16 // s >= 8
    assert h.split_for(16, 2048, 64, 32, 128, 16, 132) == 1  # 4 k-tiles: nothing to split
    assert h.split_for(1, 128, 10**6, 32, 128, 16, 132, fill=4) <= 32
    cfg, backend = h.member_config("splitk-32x128", 16, 2048, 2048, 132)
    assert backend == "cuda" and cfg.split_k == s


def test_model_ranks_big_tiles_first_on_big_shapes_and_small_tiles_on_small_ones():
    big = min(h.candidate_names(20000, 20000, 20000), key=lambda n: h.model_time(n, 20000, 20000, 20000, 132))
    assert FAMILY[big].config.bm * FAMILY[big].config.bn >= 128 * 128
    small = min(h.candidate_names(200, 200, 200), key=lambda n: h.model_time(n, 200, 200, 200, 132))
    assert FAMILY[small].config.bm * FAMILY[small].config.bn <= 64 * 64


def test_fixup_term_prices_the_tree_s_critical_path():
    """255x257x65537 on tall-128x64-k16: 10 tiles on 132 ranges, 13 pieces a tile; piece 0 adds
    3 slots at stride 1 and 3 at stride 4 (streamk.fixup_children), so the term is 1 + 6 slot
    transfers at one SM's share of the copy bandwidth - not the flat chain's 2 x 12."""
    slot_us = 4.0 * 128 * 64 / (h.COPY_TBPS * 1e6 / 132)
    assert h.fixup_us("tall-128x64-k16", 255, 257, 65537, 132) == pytest.approx(7 * slot_us)
    assert h.fixup_us("tall-128x64-k16", 4096, 4096, 4096, 132) == 0.0  # tiles fill the SMs
    assert h.fixup_us("splitk-64x64", 255, 257, 65537, 132) == 0.0  # not stream-K
    # deeper trees cost more, but only by a level of at most 3 slots per x4 pieces
    ks = [h.fixup_us("skinny-m32-256", 32, 1024, k, 132) for k in (4096, 16384, 131072, 10 ** 6)]
    assert ks == sorted(ks) and ks[-1] <= 10 * slot_us * (32 * 256) / (128 * 64)


def test_layout_flags_pass_through_only_where_the_config_has_them(monkeypatch):
    from regtile.codegen.batch_choice import choose_batched
    cfg, _ = choose_batched(512, 512, 512, 4, "sm_90", 132, trans_a=True, trans_b=True)
    assert cfg == h.choose_kernel(512, 512, 512, "sm_90", 132)[0] or getattr(cfg, "trans_a", True)


def test_default_sgemm_kernel_is_the_heuristic():
    from regtile.runtime.choice import default_sgemm_kernel
    for m, n, k in ((8192, 8192, 8192), (16, 2048, 2048), (700, 35, 2048)):
        assert default_sgemm_kernel(m, n, "sm_90", 132, k) == h.choose_kernel(m, n, k, "sm_90", 132)


HELD_OUT_CANDIDATES = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "data", "session16", "f_176430a",
                                   "shape-candidates-session16-heldout12_176430a.json")
HELD_OUT_RUNS = [HELD_OUT_CANDIDATES] + [
    os.path.join(os.path.dirname(HELD_OUT_CANDIDATES), f"shape-candidates-session16-heldout{i}_176430a.json") for i in (3, 4)] + [
    os.path.join(os.path.dirname(HELD_OUT_CANDIDATES), "..", "h_ac2bc3c", "shape-candidates-session16-heldout5_ac2bc3c.json")]


def test_off_suite_shapes_leave_one_out():
    """Each suite shape left out of the table in turn: the heuristic's pick from the other
    shapes (or the model) is within 8% of that shape's fastest member, geometric mean
    (3.6% when fitted, docs/shapes.md)."""
    table = h.load_table()
    with open(SUITE) as f:
        suite = {(s["m"], s["n"], s["k"]) for s in json.load(f)}
    rels = []
    for i, e in enumerate(table):
        q = (e["m"], e["n"], e["k"])
        if q not in suite:
            continue
        names = h.candidate_names(*q)
        pick = h.table_choice(*q, names, table[:i] + table[i + 1:])
        pick = pick or min(names, key=lambda nm: h.model_time(nm, *q, 132))
        rels.append(e["rel"].get(pick, 2.0))
    assert math.exp(sum(map(math.log, rels)) / len(rels)) <= 1.08


def test_held_out_picks_near_the_fastest_member_with_the_model_transfer():
    """On shapes the table was not fitted on (held-out 1-5's candidates, every member timed on the H100 at 176430a and
    ac2bc3c), the whole choice picks within 2% of the fastest member (geometric mean; 1.4% with session 30's table),
    and the neighbours' ratios carried by the model do no worse than as measured (session 14 measured them 0.6% better
    on its table; with the fitting grids' entries the two are within 0.1% over the four sets, the transfer ahead on
    held-out 3-5 and 0.2% behind on 1+2: docs/shapes.md); 40x5120x5120 does not take wide-32x64 (two tile rows: B
    streamed twice, 100 against 76 us).  (Until session 30 this judged held-out 1+2 alone; the aligned grid's entries
    left the transfer 0.21% behind there, 0.16% before.)"""
    from regtile.tools.datafiles import load_json
    from regtile.tools.shape_sweep import gemv_routed
    over = {0: [], 132: []}
    for path in HELD_OUT_RUNS:
        rows = load_json(path)["rows"]  # docs/data stores files over 300 KB gzipped (NAME.gz)
        for r in rows:
            m, n, k = r["m"], r["n"], r["k"]
            if gemv_routed(m, n, k):
                continue
            timed = hf.timed_members(r)
            names = [nm for nm in h.candidate_names(m, n, k) if nm in timed]  # members added since: not judged here
            for tr in over:
                pick = h.table_choice(m, n, k, names, transfer_sms=tr) or h.model_choice(names, m, n, k, 132)
                over[tr].append(timed[pick] / min(timed.values()))
    geo = {tr: math.exp(sum(map(math.log, v)) / len(v)) for tr, v in over.items()}
    assert len(over[0]) >= 150 and geo[132] <= 1.02 and geo[132] <= geo[0] + 0.002, geo
    assert h.choose_member(40, 5120, 5120, 132) != "wide-32x64"


def test_describe_choice_says_what_choose_member_picks():
    """The sweep labels a plan "tuned" where describe_choice's member is not the plan's (session 14: it
    still chose without the transfer and mislabelled three held-out shapes)."""
    for m, n, k in ((1023, 4095, 2047), (2047, 4097, 1023), (5555, 555, 5555), (40, 5120, 5120), (4096, 4096, 4096),
                    (777, 7777, 777), (96, 4096, 11008)):
        assert h.describe_choice(m, n, k, "sm_90", 132)["member"] == h.choose_member(m, n, k, 132), (m, n, k)


def test_model_throughputs_are_fitted_for_every_sm_90_member():
    fitted = h.model_tflops()
    assert set(fitted) == set(FAMILY) - {"cuda-zorder"}
    assert fitted["wide-128x256"] > fitted["sq-64x64"] > fitted["plain-32x32"]  # bigger tiles, more FLOP/s


def test_one_table_neighbour_is_left_to_the_model():
    """MIN_NEIGHBOURS: a shape with one table shape within MAX_DISTANCE (not itself) gets no table pick; two give
    one; the shape itself takes its own member."""
    def entry(m, n, k, best):
        return {"m": m, "n": n, "k": k, "best": best, "rel": {best: 1.0, "sq-64x64": 1.5},
                "log2": (math.log2(m), math.log2(n), math.log2(k))}
    names = ["wide-64x128", "sq-64x64"]
    one = [entry(1024, 1024, 1024, "wide-64x128")]
    assert h.MIN_NEIGHBOURS == 2
    assert h.table_choice(1100, 1024, 1024, names, one) is None
    assert h.table_choice(1024, 1024, 1024, names, one) == "wide-64x128"
    two = one + [entry(1024, 1200, 1024, "wide-64x128")]
    assert h.table_choice(1100, 1024, 1024, names, two) == "wide-64x128"


def test_rows_aligned_reads_the_leading_dimensions():
    """The rows' class: A's, B's and C's rows 16-byte aligned; packed operands in the layouts by default."""
    assert h.rows_aligned(1024, 1024, 1024) and h.rows_aligned(1023, 1024, 1024)  # M is no row-major row length
    assert not h.rows_aligned(1024, 1023, 1024)  # N: B's and C's rows
    assert not h.rows_aligned(1024, 1024, 1023)  # K: A's rows
    assert not h.rows_aligned(1023, 1024, 1024, trans_a=True)  # A^T's rows are M long
    assert not h.rows_aligned(1024, 1024, 1023, trans_b=True, lda=1024)  # B^T's rows are K long: padding A is not enough
    assert h.rows_aligned(1024, 1024, 1023, trans_b=True, lda=1024, ldb=1024)
    assert h.rows_aligned(1024, 1023, 1024, ldb=1024, ldc=1024)  # padded views of a ragged N
    assert not h.rows_aligned(1024, 1024, 1024, ldc=1025)


def test_table_neighbours_of_the_querys_rows_class():
    """An unaligned query takes the member its unaligned neighbours measured fastest over an aligned neighbour's
    (CLASS_DISTANCE: an aligned entry counts further, and less), and the aligned ones' where none of its class is
    near; an aligned query never takes an unaligned entry's (ALIGNED_SEES_UNALIGNED): fewer than MIN_NEIGHBOURS
    aligned near leave it to the model."""
    def entry(m, n, k, best, other, other_rel=1.5):
        return {"m": m, "n": n, "k": k, "best": best, "rel": {best: 1.0, other: other_rel},
                "log2": (math.log2(m), math.log2(n), math.log2(k))}
    names = ["wide-64x128", "sq-64x64"]
    aligned = [entry(1024, 1024, 1024, "wide-64x128", "sq-64x64"), entry(1024, 1024, 1152, "wide-64x128", "sq-64x64")]
    ragged = [entry(1101, 1101, 1101, "sq-64x64", "wide-64x128"), entry(1101, 1101, 1001, "sq-64x64", "wide-64x128")]
    assert 0 < h.CLASS_DISTANCE < h.MAX_DISTANCE and not h.ALIGNED_SEES_UNALIGNED
    unaligned_q, aligned_q = (1060, 1061, 1061), (1060, 1060, 1060)  # the same place
    assert h.table_choice(*unaligned_q, names, aligned + ragged) == "sq-64x64"
    assert h.table_choice(*unaligned_q, names, aligned) == "wide-64x128"
    assert h.table_choice(*aligned_q, names, aligned + ragged) == "wide-64x128"
    assert h.table_choice(*aligned_q, names, aligned[:1] + ragged) is None
    assert h.table_choice(*aligned_q, names, ragged) is None
    assert h.table_choice(*unaligned_q, names, aligned + ragged, aligned=True) == "wide-64x128"  # padded views
    # an aligned entry still counts for an unaligned query, CLASS_DISTANCE further: two unaligned neighbours mildly
    # against wide-64x128 lose to one aligned one strongly against sq-64x64 (left out with the other class, they win)
    mild = [entry(1101, 1101, 1101, "sq-64x64", "wide-64x128", 1.1), entry(1101, 1101, 1001, "sq-64x64", "wide-64x128", 1.1)]
    strong = [entry(1060, 1024, 1060, "wide-64x128", "sq-64x64", 3.0)]
    assert h.table_choice(*unaligned_q, names, mild + strong) == "wide-64x128"


def test_an_unaligned_query_with_too_few_neighbours_near_takes_every_entry_at_its_own_distance():
    """Fewer than MIN_NEIGHBOURS near with the other class CLASS_DISTANCE further: the nearest of every entry at its
    own distance decide (as before session 29), not the model; an aligned table shape is no unaligned query's own
    measurement there, only its nearest neighbour."""
    def entry(m, n, k, best, other, other_rel=1.5):
        return {"m": m, "n": n, "k": k, "best": best, "rel": {best: 1.0, other: other_rel},
                "log2": (math.log2(m), math.log2(n), math.log2(k))}
    names = ["wide-64x128", "sq-64x64"]
    q = (1024, 1024, 1024)
    far = [entry(1024, 1024, 1560, "sq-64x64", "wide-64x128", 3.0), entry(1024, 1024, 1660, "sq-64x64", "wide-64x128", 3.0)]
    one = [entry(1030, 1031, 1031, "wide-64x128", "sq-64x64")]  # unaligned, 0.03 away
    assert h.table_choice(*q, names, one + far, aligned=False) == "sq-64x64"  # fallback: the two aligned decide
    assert h.table_choice(*q, names, one + far, aligned=True) == "sq-64x64"
    assert h.table_choice(*q, names, one, aligned=False) is None  # one neighbour: the model
    itself = [entry(1024, 1024, 1024, "wide-64x128", "sq-64x64")]  # the aligned entry of this very shape
    assert h.table_choice(*q, names, itself + far, aligned=True) == "wide-64x128"  # its own measurement
    assert h.table_choice(*q, names, itself + far, aligned=False) == "sq-64x64"  # a neighbour at distance 0
    assert h.table_choice(1031, 1031, 1031, names, one, aligned=False) is None
    assert h.table_choice(1030, 1031, 1031, names, one + far) == "wide-64x128"  # an unaligned table shape: its own


def test_the_rows_class_reaches_the_choice():
    """choose_kernel / describe_choice take the class (rows_aligned; by default of packed operands in the layouts,
    A^T's rows M long), through the cached choice and the unfused choice of a transposed layout; the committed table
    picks differently by class on these shapes."""
    assert h.choose_member(1000, 1000, 1000, 132) != h.choose_member(1000, 1000, 1000, 132, aligned=False)
    assert h.describe_choice(1000, 1000, 1000, "sm_90", 132, aligned=False)["member"] == \
        h.choose_member(1000, 1000, 1000, 132, aligned=False)
    plain, unaligned = (h.choose_kernel(1000, 1000, 1000, "sm_90", 132, aligned=a) for a in (None, False))
    assert plain == h.choose_kernel(1000, 1000, 1000, "sm_90", 132, aligned=True) and plain != unaligned
    ta = h.choose_kernel(3001, 1000, 1000, "sm_90", 132, trans_a=True)  # A^T's rows are 3001 floats long
    assert ta == h.choose_kernel(3001, 1000, 1000, "sm_90", 132, trans_a=True, aligned=False)
    assert ta != h.choose_kernel(3001, 1000, 1000, "sm_90", 132, trans_a=True, aligned=True)
    q = (1024, 192, 512)  # a fused member packed and on A^T's aligned rows; an unfused one on unaligned rows
    assert h.choose_member(*q, 132).startswith("fused-")
    cuts = [h.choose_kernel(*q, "sm_90", 132, trans_a=True, aligned=a) for a in (True, False)]
    assert [backend for _, backend in cuts] == [h.FUSED, "ptx"] and cuts[0][0].trans_a
    nn = dict(trans_a=False, trans_b=False)  # _choose's key: the class, then the layout
    assert h._choose(1000, 1000, 1000, "sm_90", 132, True, **nn) != h._choose(1000, 1000, 1000, "sm_90", 132, False, **nn)


def test_model_time_is_at_least_the_k_tile_chain():
    """KTILE_FLOOR_US: a long chain of k-tiles on few SMs is priced at a round trip a k-tile at least (held-out 5's
    50x50x50000 took splitk-32x32-f4's 98-k-tile splits, modelled 21 us, run 74), and the choice there is no longer
    a split-K member; a large square's model time stays its FLOPs'."""
    chain = h.ktile_chain("splitk-32x32-f4", 50, 50, 50000, 132)
    assert chain >= 90
    assert h.model_time("splitk-32x32-f4", 50, 50, 50000, 132) >= chain * h.KTILE_FLOOR_US + h.LAUNCH_US
    assert not h.choose_member(50, 50, 50000, 132).startswith("splitk-")
    n = 8192
    flops_us = 2.0 * n ** 3 / (h.model_tflops()["wide-128x256"] * 1e6)
    assert h.model_time("wide-128x256", n, n, n, 132) < 1.2 * flops_us


@pytest.mark.parametrize("m, n, k", [(32768, 32, 4096), (16384, 32, 16384)])
def test_a_skinny_fused_pick_runs_a_stream_k_skinny_member_in_transposed_layouts(m, n, k):
    """Row-major, the suite's two fused picks stay fused; in NT (no fused member: fuses) the stand-in is the stream-K
    member of the same tile, in TN and TT the 256 x 32 one (fused_stand_in), which every-member timing put 11-25%
    ahead of the unfused choice there (sessions 30-31) - not the model's pick among the unfused members."""
    from regtile.codegen.presets import get_member
    nn = h.describe_choice(m, n, k, "sm_90", 132)
    assert nn["member"].startswith("fused-128x32")
    for ta, tb in ((False, True), (True, False), (True, True)):
        cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, ta, tb)
        stand_in = get_member("skinny-n32-256" if ta else "skinny-n32")
        assert layout_choice.fused_stand_in(nn["member"], ta) == stand_in.name
        assert backend == stand_in.backend and (cfg.bm, cfg.bn) == (stand_in.config.bm, stand_in.config.bn)
        assert cfg.decomposition == h.member_config(stand_in.name, m, n, k, 132)[0].decomposition
        assert h.describe_choice(m, n, k, "sm_90", 132, fused=False, trans_a=ta) == \
            {"member": stand_in.name, "by": "stand-in", "candidates": h.candidate_names(m, n, k, 132, fused=False)}
    for fused_name, stand_in in layout_choice.FUSED_STAND_IN.items():  # on B^T, the same block tile
        a, b = get_member(fused_name).config, get_member(stand_in).config
        assert (a.bm, a.bn) == (b.bm, b.bn)
    assert layout_choice.fused_stand_in("fused-32x32-k8", False) is None and layout_choice.fused_stand_in("sq-64x64", True) is None


def test_tn_runs_a_small_fused_pick_as_the_one_pass_member_on_its_ring():
    """Session 40 (layout_choice.ring_stand_in): in TN, with aligned rows, a fused-32x32-k8 pick gives way to
    plain-32x32, which TN's cp.async ring runs (6 TN shapes: 1.02x the fastest member against the fused pick's 1.20x),
    where K is RING_STAND_IN_MIN_K..MAX_K, N >= RING_STAND_IN_MIN_N and its 32x32 tiles at least one an SM and
    RING_STAND_IN_MIN_TILES; NN, NT and TT keep the fused pick, and so does TN outside those bounds or on unaligned
    rows."""
    from regtile.codegen.operand_forms import RING_TN_STAGES, for_operands
    for m, n, k in ((196, 1152, 384), (3136, 64, 576), (2048, 96, 384)):
        assert h.choose_member(m, n, k, 132) == "fused-32x32-k8"
        assert h.describe_choice(m, n, k, "sm_90", 132, trans_a=True)["by"] == "stand-in"
        cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, True, False)
        lda, ldb, ldc = h.leading_dims(m, n, k, True, False)
        ring = for_operands(cfg, backend, lda, ldb, m, n, ldc, k)
        assert backend == "ptx" and (cfg.bm, cfg.bn) == (32, 32) and ring.stages == RING_TN_STAGES
        for ta, tb in ((False, False), (False, True), (True, True)):
            assert h.choose_kernel(m, n, k, "sm_90", 132, ta, tb)[1] == "fusedk"
    for m, n, k in ((2048, 96, 1024), (2048, 64, 384), (8192, 32, 384), (1536, 96, 384), (2048, 96, 320)):
        # K above its bound; 128 tiles; n 32; 144 tiles (below 192, the fewest measured); K below its bound
        assert h.choose_member(m, n, k, 132) == "fused-32x32-k8"
        assert h.choose_kernel(m, n, k, "sm_90", 132, True, False)[1] == "fusedk"
    # the caller's rows: unaligned ones keep the fused pick (the ring's float copies were not measured)
    assert h.choose_kernel(3072, 64, 384, "sm_90", 132, True, False, aligned=False)[1] == "fusedk"
    assert layout_choice.ring_stand_in("fused-32x32-k8", 196, 1152, 384, 132, True, False, False) is None  # unaligned
    assert layout_choice.ring_stand_in("fused-32x32-k8", 196, 1152, 384, 132, True, False, True) == "plain-32x32"
    assert layout_choice.ring_stand_in("fused-32x32", 196, 1152, 384, 132, True, False, True) is None


def test_fused_128x16_splits_within_one_wave_and_holds_n_of_9_to_16():
    """Session 34: fused-128x16's split is the most (any count) whose blocks stay within two an SM, each split >= 4
    k-tiles, <= 32 (split_for within=True), not the fewest powers of two that fill the SMs (2048x16x32768: 32 splits,
    two waves, 47% slower); a candidate for n of 9-16 and m >= 128 only; on A^T skinny-n16-k32 stands in, on B^T it
    runs itself."""
    mem = FAMILY["fused-128x16"]
    assert mem.within_fill and mem.fill == 2
    assert h.member_config("fused-128x16", 2048, 16, 32768, 132)[0].split_k == 16  # 16 tiles x 16 = 256 <= 264
    assert h.member_config("fused-128x16", 11008, 16, 4096, 132)[0].split_k == 3  # 86 tiles x 3 = 258, not a power of 2
    assert h.member_config("fused-128x16", 32768, 16, 2048, 132)[0].split_k == 1  # 256 tiles: a wave already
    assert h.member_config("fused-128x16", 1000, 16, 65536, 132)[0].split_k == 32  # 8 tiles: 33 capped
    assert h.member_config("fused-128x16", 300, 16, 512, 132)[0].split_k == 4  # 16 k-tiles, >= 4 a split
    assert h.split_for(2048, 16, 32768, 128, 16, 32, 132, 2, 4) == 32  # the other rule
    names = lambda m, n, k: h.candidate_names(m, n, k, 132)  # noqa: E731
    assert "fused-128x16" in names(4096, 16, 4096) and "fused-128x16" in names(4096, 9, 4096)
    assert all("fused-128x16" not in names(*s) for s in ((4096, 8, 4096), (4096, 17, 4096), (100, 16, 4096),
                                                          (65536, 16, 1024)))  # n 8, n 17, m < 128, 512 tiles
    assert h.choose_member(8192, 16, 8192, 132) == "fused-128x16"
    assert h.choose_member(8192, 16, 8192, 132, trans_b=True) == "fused-128x16"
    for ta, tb in ((True, False), (True, True)):
        assert h.describe_choice(8192, 16, 8192, "sm_90", 132, trans_a=ta, trans_b=tb)["member"] == "skinny-n16-k32"


def test_members_the_layout_demotes_are_no_candidates_there():
    """demoted_in_layout: a PTX member whose layout form (with_layout) runs fewer blocks an SM than the member is no
    candidate in that layout - the 128x128 8x8 tiles on B^T, which with_layout takes to one block an SM (session 32:
    the next choice ran 37 of 37 NT shapes faster, 9% on average).  A CUDA C member keeps its place, and so does the
    tile on A^T alone; NT's choice on a shape whose row-major choice is sq-128x128 is another tile."""
    assert layout_choice.demoted_in_layout("sq-128x128", False, True) and layout_choice.demoted_in_layout("sq-128x128", True, True)
    assert not layout_choice.demoted_in_layout("sq-128x128", True, False) and not layout_choice.demoted_in_layout("sq-128x128", False, False)
    assert not layout_choice.demoted_in_layout("splitk-128x128", False, True)  # CUDA C, demoted the same way by with_layout
    assert not layout_choice.demoted_in_layout("wide-128x256", False, True) and not layout_choice.demoted_in_layout("tall-128x64-k16", True, True)
    for m, n, k in ((1919, 2929, 3939), (65536, 128, 128)):
        nn = h.describe_choice(m, n, k, "sm_90", 132, h.rows_aligned(m, n, k, False, True), False)
        assert nn["member"].startswith("sq-128x128"), nn["member"]  # the unfused choice, as NT's without the rule
        nt = h.describe_choice(m, n, k, "sm_90", 132, h.rows_aligned(m, n, k, False, True), False, False, True)
        assert nt["member"] != "sq-128x128" and not any(c.startswith("sq-128x128") for c in nt["candidates"])
        cfg, _ = h.choose_kernel(m, n, k, "sm_90", 132, False, True)
        assert (cfg.bm, cfg.bn) != (128, 128) or cfg.min_blocks == 2, (m, n, k)
        tn = h.describe_choice(m, n, k, "sm_90", 132, h.rows_aligned(m, n, k, True, False), False, True, False)
        assert "sq-128x128" in tn["candidates"]


@pytest.mark.parametrize("m, n, k", [(8192, 128, 8192), (4096, 128, 4096), (4096, 128, 14336), (2048, 128, 8192),
                                     (16384, 128, 2048)])
def test_tt_runs_the_k16_pick_at_n_128_as_tall_128x64_k16(m, n, k):
    """Session 44 (layout_choice.tt_narrow_stand_in, docs/data/session44/h_f397433): on these five TT shapes
    tall-128x64-k16 ran 1.0-1.3% faster than the table's wide-64x128-k16.  The other layouts keep the pick (NT's ran
    1.007-1.088x cuBLAS there)."""
    from regtile.codegen.presets import get_member
    assert h.choose_member(m, n, k, 132) == "wide-64x128-k16"
    d = h.describe_choice(m, n, k, "sm_90", 132, trans_a=True, trans_b=True)
    assert (d["member"], d["by"]) == ("tall-128x64-k16", "stand-in"), d
    cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, True, True)
    want = get_member("tall-128x64-k16").config
    assert backend == "ptx" and (cfg.bm, cfg.bn, cfg.bk) == (want.bm, want.bn, want.bk)
    for ta, tb in ((False, False), (False, True), (True, False)):
        assert h.choose_member(m, n, k, 132, trans_a=ta, trans_b=tb) == "wide-64x128-k16", (ta, tb)


def test_tt_narrow_stand_in_bounds():
    """Outside what was measured the pick stays: n other than 128, m or K under 2048, unaligned rows, another pick,
    another layout."""
    stand_in = layout_choice.tt_narrow_stand_in
    assert stand_in("wide-64x128-k16", 2048, 128, 2048, True, True, True) == "tall-128x64-k16"  # on the bounds
    assert stand_in("wide-64x128-k16", 2047, 128, 8192, True, True, True) is None  # m
    assert stand_in("wide-64x128-k16", 8192, 128, 2047, True, True, True) is None  # K
    assert stand_in("wide-64x128-k16", 8192, 127, 8192, True, True, True) is None  # n below 128
    assert stand_in("wide-64x128-k16", 8192, 129, 8192, True, True, True) is None  # n above
    assert stand_in("wide-64x128-k16", 8192, 128, 8192, True, True, False) is None  # rows not aligned
    assert stand_in("sq-128x128", 8192, 128, 8192, True, True, True) is None  # another pick
    assert stand_in("wide-64x128-k16", 8192, 128, 8192, False, True, True) is None  # NT
    assert stand_in("wide-64x128-k16", 8192, 128, 8192, True, False, True) is None  # TN
    # B^T's rows unaligned
    assert h.choose_member(4096, 128, 4095, 132, trans_a=True, trans_b=True) == "wide-64x128-k16"
    assert h.choose_member(4095, 128, 4096, 132, trans_a=True, trans_b=True) == "wide-64x128-k16"  # A^T's
    # TT demotes the row-major pick sq-128x128-edges to wide-64x128-k16 here: not the measured case, no stand-in
    assert h.choose_member(6144, 128, 6144, 132) == "sq-128x128-edges"
    assert h.choose_member(6144, 128, 6144, 132, trans_a=True, trans_b=True) == "wide-64x128-k16"


def test_transposed_layouts_run_a_tall_skinny_n_pick_with_a_big_a_as_the_skinny_n_member():
    """Sessions 41-42 (layout_choice.skinny_stand_in): on tall skinny-n shapes with a big A the NN table's
    tall-64x32, tall-64x32-k32 or splitk-128x32 pick gives way, in TN, NT and TT, to the layout's skinny-n member
    (skinny-n32-256 on A^T, skinny-n32 on B^T only): the fastest of every member timed there (session 41's held-out
    shapes, session 42's probe from 36 MiB of A in NT / TT, from 48 MiB with m of 10240 up in TN).  NN keeps the pick,
    and so do the layouts below those bounds, where the pick measured as fast or faster."""
    from regtile.codegen.presets import get_member
    layouts = {(False, True): "skinny-n32", (True, False): "skinny-n32-256", (True, True): "skinny-n32-256"}
    everywhere = ((18944, 20, 3584), (10240, 28, 2560), (16384, 30, 4096), (13824, 24, 5120), (16384, 24, 1024),
                  (12288, 28, 1536), (65536, 32, 256), (49152, 32, 256), (16384, 32, 768))
    for m, n, k in everywhere:
        assert h.choose_member(m, n, k, 132) in layout_choice.SKINNY_STAND_IN_PICKS, (m, n, k)
        for (ta, tb), member in layouts.items():
            d = h.describe_choice(m, n, k, "sm_90", 132, trans_a=ta, trans_b=tb)
            assert (d["member"], d["by"]) == (member, "stand-in"), (m, n, k, ta, tb, d)
            cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, ta, tb)
            want = get_member(member).config
            assert backend == "ptx" and (cfg.bm, cfg.bn, cfg.bk) == (want.bm, want.bn, want.bk)
    # NT and TT only: 36-64 MiB of A with m of 4096-8192 (TN: the pick 1.007-1.044x faster), 36-40 MiB (TN: mixed)
    for m, n, k in ((4096, 32, 4096), (8192, 32, 2048), (6144, 32, 2048), (12288, 32, 768), (10240, 24, 1024)):
        pick = h.choose_member(m, n, k, 132)
        assert pick in layout_choice.SKINNY_STAND_IN_PICKS, (m, n, k)
        assert h.choose_member(m, n, k, 132, trans_a=True, trans_b=False) == pick, (m, n, k)
        for ta, tb in ((False, True), (True, True)):
            assert h.choose_member(m, n, k, 132, trans_a=ta, trans_b=tb) == layouts[ta, tb], (m, n, k, ta, tb)
    # below the bounds (up to 32 MiB of A: the pick as fast or up to 1.44x faster), the pick stays in every layout
    for m, n, k in ((12288, 32, 128), (16384, 32, 192), (12544, 32, 144), (16384, 32, 256), (24576, 32, 256),
                    (32768, 32, 256), (16384, 32, 384), (8192, 32, 1024)):
        pick = h.choose_member(m, n, k, 132)
        assert pick in layout_choice.SKINNY_STAND_IN_PICKS, (m, n, k)
        for ta, tb in layouts:
            assert h.choose_member(m, n, k, 132, trans_a=ta, trans_b=tb) == pick, (m, n, k, ta, tb)
    big = (18944, 20, 3584)
    assert layout_choice.skinny_stand_in("tall-64x32-k32", *big, False, False) is None  # NN
    assert layout_choice.skinny_stand_in("tall-64x32-k32", 2048, 20, 8192, True, True) is None  # m below the bound
    assert layout_choice.skinny_stand_in("tall-64x32-k32", 18944, 40, 3584, True, True) is None  # n above 32
    assert layout_choice.skinny_stand_in("tall-64x32-k32", 18944, 16, 3584, True, True) is None  # n below 20
    assert layout_choice.skinny_stand_in("fused-128x32", *big, True, True) is None  # another pick
    assert layout_choice.skinny_stand_in("tall-64x32", 8192, 24, 2048, True, False) is None  # TN: m below 10240
    assert layout_choice.skinny_stand_in("tall-64x32", 8192, 24, 2048, False, True) == "skinny-n32"  # NT: m of 4096 up
