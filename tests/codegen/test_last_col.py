"""C's last column fused into the last tile column (config.last_col, codegen/ptx_last_col.py), on the
PTX interpreter (tests/codegen/ptx_sim.py: its buffers hold exactly the matrices, every access
bounds-checked, shared-memory races checked) against float64, C NaN-poisoned: one and two groups of
threads a row, N one past whole tile columns and not, N = 2, K ragged, alpha and beta, the layouts,
unaligned rows; the rule that asks for it (operand_forms.for_columns), the config's validation, the
stream-K slots' size."""
import numpy as np
import pytest

import ptx_sim
from regtile.codegen.config import ConfigError
from regtile.codegen.emit_ptx import emit_sgemm_ptx
from regtile.codegen.operand_forms import for_columns
from regtile.codegen.presets import FAMILY, get_preset
from regtile.codegen.streamk import plan_stream_k
from tiers import tiered


def _run(cfg, m, n, k, alpha=0.75, beta=0.0, **kw):
    c, ref, _, _ = ptx_sim.run_sgemm(emit_sgemm_ptx(cfg), m, n, k, alpha, beta, **kw)
    c = c[..., :n]
    assert not np.isnan(c).any(), "unwritten elements"
    err = np.abs(c - ref).max() / np.abs(ref).max()
    assert err < 1e-5, (m, n, k, err, np.abs(c[..., -1] - ref[..., -1]).max())


# (member, one-pass): G = threads / BM groups a row: sq-32x32 2 (64 threads, BM 32), tall-128x64-k16 1
CASES = [("sq-32x32", 33, 33, 20, ()), ("sq-32x32", 40, 70, 37, (("beta", 0.5),)), ("sq-32x32", 9, 2, 16, ()),
         ("sq-32x32", 70, 65, 40, (("trans_a", True),)), ("sq-32x32", 70, 65, 40, (("trans_b", True),)),
         ("sq-32x32", 70, 65, 40, (("trans_a", True), ("trans_b", True), ("alpha", -1.0), ("beta", 2.0))),
         ("sq-32x32", 35, 33, 33, (("misalign", (1, 2, 3)),)),
         ("tall-128x64-k16", 130, 65, 35, (("beta", -1.0),)), ("wide-64x128-k16", 70, 129, 40, ())]


@pytest.mark.parametrize("name, m, n, k, kw", tiered(CASES, fast={CASES[5]}))
def test_the_last_column_on_the_interpreter(name, m, n, k, kw):
    kw = dict(kw)
    layout = {f: kw.pop(f) for f in ("trans_a", "trans_b") if f in kw}
    cfg = FAMILY[name].config.replace(last_col=True, stream_k=False, **layout)
    _run(cfg, m, n, k, **layout, **kw)


@pytest.mark.parametrize("path", tiered(["unaligned_rows", "unaligned_vectors"], fast={"unaligned_vectors"}))
def test_the_last_column_on_unaligned_rows(path):
    cfg = FAMILY["sq-32x32"].config.replace(last_col=True, stream_k=False, **{path: True})
    _run(cfg, 64, 33, 37, beta=0.5)  # lda 37, ldb 33: every row unaligned (M whole tiles: the float
    # copies leave the registers of floats outside M unwritten, which the interpreter refuses to read)


def test_for_columns_asks_only_where_n_is_one_past_whole_tile_columns():
    cfg = FAMILY["sq-32x32"].config
    assert for_columns(cfg, "ptx", 129).last_col and for_columns(cfg, "ptx", 33).last_col
    assert not for_columns(cfg, "ptx", 129).max_registers  # not a LAST_COL_HELD tile
    for n in (128, 130, 32, 1, 2, 32 * 5 + 1):  # 5 tile columns beside it: LAST_COL_MAX_TILE_COLUMNS
        assert for_columns(cfg, "ptx", n) is cfg
    assert for_columns(cfg, "cuda", 129) is cfg
    split = FAMILY["wide-128x256"].config  # the edge split: its strips have no last tile column
    assert split.edge_split and for_columns(split, "ptx", 257) is split


@pytest.mark.parametrize("name", ["tall-128x64-k16", "wide-64x128-k16"])
def test_for_columns_holds_the_k16_tiles_at_three_blocks_an_sm(name):
    """LAST_COL_HELD: the k16 members take the column beside up to LAST_COL_HELD_MAX_TILE_COLUMNS (8)
    tile columns, held at 168 registers (three blocks of 128 threads an SM)."""
    cfg = FAMILY[name].config
    for q in (1, 4, 8):
        fused = for_columns(cfg, "ptx", cfg.bn * q + 1)
        assert fused.last_col and fused.max_registers == 168 and fused.threads * 3 * 168 <= 65536
    assert for_columns(cfg, "ptx", cfg.bn * 9 + 1) is cfg


def test_the_config_names_what_the_last_column_needs():
    with pytest.raises(ConfigError, match="last_col"):
        get_preset("zorder").config.replace(stages=1, last_col=True)
    with pytest.raises(ConfigError, match="last_col.*split_k"):
        FAMILY["sq-64x64"].config.replace(split_k=2, stream_k=False, last_col=True)
    cfg = FAMILY["sq-32x32"].config
    assert cfg.replace(last_col=True).smem_bytes == cfg.smem_bytes + 4 * cfg.stages * cfg.bk
    assert "last_col" not in cfg.to_dict() and cfg.replace(last_col=True).to_dict()["last_col"] is True


def test_stream_k_slots_carry_the_column():
    plain = plan_stream_k(255, 256, 65537, 128, 64, 16, 264)
    fused = plan_stream_k(255, 256, 65537, 128, 64, 16, 264, last_col=True)
    assert fused.items == plain.items and fused.tile_floats == plain.tile_floats + 128
    assert fused.workspace_bytes == 4 * fused.slots * (128 * 64 + 128)


def test_the_bank_model_leaves_the_column_out_and_says_so():
    """The shared-memory model (codegen/smem_banks.py) takes the column's instructions out of the SASS mix
    before it matches ptxas's merges (they are not re-loads of the tile's floats), counts the grid of the
    kernel's N (one less), and names what it left out."""
    from collections import Counter
    from regtile.codegen.plan import make_plan
    from regtile.codegen.smem_banks import analyze, column_instructions
    cfg = FAMILY["tall-128x64-k16"].config
    plain = analyze(make_plan(cfg), 255, 257, 1024)
    fused_cfg = cfg.replace(last_col=True)
    mix = Counter(plain.instructions_per_ktile()) + Counter(column_instructions(fused_cfg))
    fused = analyze(make_plan(fused_cfg), 255, 257, 1024, sass_widths=dict(mix))
    assert column_instructions(fused_cfg) == {"LDS.32": 32, "STS.32": 1} and column_instructions(cfg) == {}
    assert not fused.vectorization.reloads and not fused.vectorization.shortfall
    assert fused.instructions_per_ktile() == plain.instructions_per_ktile()
    assert (plain.blocks, fused.blocks) == (2 * 5, 2 * 4)
    assert "last column" in fused.not_modelled and "not modelled" in fused.render_text() and not plain.not_modelled
