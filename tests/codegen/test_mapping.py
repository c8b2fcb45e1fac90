"""Index functions: the numbers the analysis uses and the C text the emitter prints agree."""
import itertools
import re

import pytest

from regtile.codegen import mapping as mp
from regtile.codegen.expr import Sym, c_expr
from regtile.codegen.plan import ThreadVars, make_plan
from regtile.codegen.presets import get_preset, preset_names


def _eval_c(text: str, **env) -> int:
    """Evaluate a printed C index expression of non-negative ints, as C would."""
    py = re.sub(r"(?<![/])/(?![/])", "//", text)
    return eval(py, {}, env)


@pytest.mark.parametrize("name", preset_names())
def test_each_thread_tile_is_covered_exactly_once(name):
    cfg = get_preset(name).config
    seen = set()
    for tid in range(cfg.threads):
        r0, c0 = mp.thread_origin(cfg, tid)
        for i, j in itertools.product(range(cfg.tm), range(cfg.tn)):
            seen.add((mp.tile_row(cfg, r0, i), mp.tile_col(cfg, c0, j)))
    assert seen == set(itertools.product(range(cfg.bm), range(cfg.bn)))


def test_zorder_matches_maxas_lane_layout():
    cfg = get_preset("zorder").config
    # maxas: mma_tid_x = (lane / 2) % 8, mma_tid_y = (lane / 16) * 2 + (lane % 2)
    for lane in range(32):
        assert mp.lane_coords(cfg, lane) == ((lane // 16) * 2 + lane % 2, (lane // 2) % 8)
    # thread tile: 4x4 pieces at +0 and +16 rows, +0 and +32 columns (warp tile 32x64)
    assert [mp.tile_row(cfg, 0, i) for i in range(8)] == [0, 1, 2, 3, 16, 17, 18, 19]
    assert [mp.tile_col(cfg, 0, j) for j in range(8)] == [0, 1, 2, 3, 32, 33, 34, 35]


@pytest.mark.parametrize("name", ["tile2d", "vec4", "pad", "zorder"])
def test_printed_addresses_equal_evaluated_addresses(name):
    """Every shared-memory access: the C text the kernel holds, evaluated for each
    thread, equals the number the analysis computes."""
    cfg = get_preset(name).config
    plan = make_plan(cfg)
    sym = ThreadVars.symbolic()
    row0_text = c_expr(mp.thread_origin(cfg, Sym("tid"))[0])
    col0_text = c_expr(mp.thread_origin(cfg, Sym("tid"))[1])
    for access in plan.smem_accesses_per_ktile():
        text = c_expr(access.offset(sym))
        for tid in range(0, cfg.threads, 7):
            tv = ThreadVars.numeric(cfg, tid)
            assert _eval_c(row0_text, tid=tid) == tv.row0
            assert _eval_c(col0_text, tid=tid) == tv.col0
            assert _eval_c(text, tid=tid, row0=tv.row0, col0=tv.col0) == access.offset(tv), access.what


def test_sym_folds_constants_and_identities():
    t = Sym("tid")
    assert c_expr(t * 1 + 0) == "tid"
    assert c_expr(t * 0 + 5) == "5"
    assert c_expr((t + 3) * 4) == "(tid + 3) * 4"
    assert c_expr(t % 1) == "0"
