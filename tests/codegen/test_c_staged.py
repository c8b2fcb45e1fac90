"""C's unaligned rows stored through shared memory (config.c_staged, codegen/ptx_c_staged.py), on the PTX
interpreter (tests/codegen/ptx_sim.py: buffers hold exactly the matrices, every access bounds-checked, shared-memory
races between barriers checked) against float64, C NaN-poisoned: ldc off 4, C's pointer off 16 bytes, ldc aligned
(the float4 stores still), alpha and beta, ragged M / N / K, the layouts, the generic path (fewer threads than BN);
the rule that asks for it (operand_forms.for_c) and the config's validation."""
import numpy as np
import pytest

import ptx_sim
from regtile.codegen.config import ConfigError
from regtile.codegen.emit_ptx import emit_sgemm_ptx
from regtile.codegen.operand_forms import for_c, for_operands
from regtile.codegen.presets import FAMILY
from regtile.codegen import mapping as mp
from tiers import tiered


def _run(name, m, n, k, alpha=0.75, beta=0.0, **kw):
    cfg = FAMILY[name].config.replace(c_staged=True, stream_k=False, edge_split=False, sass_pass=False,
                                      **{f: kw.pop(f) for f in ("trans_a", "trans_b") if f in kw})
    c, ref, _, _ = ptx_sim.run_sgemm(emit_sgemm_ptx(cfg), m, n, k, alpha, beta,
                                     trans_a=cfg.trans_a, trans_b=cfg.trans_b, **kw)
    c = c[..., :n]
    assert not np.isnan(c).any(), "unwritten elements"
    err = np.abs(c - ref).max() / np.abs(ref).max()
    assert err < 1e-5, (name, m, n, k, err)


CASES = [("sq-32x32", 33, 35, 20, (("ldc", 37),)), ("sq-32x32", 40, 70, 37, (("ldc", 71), ("beta", 0.5))),
         ("sq-32x32", 40, 64, 16, ()), ("sq-32x32", 40, 64, 16, (("misalign", (0, 0, 1)),)),
         ("sq-32x32", 45, 66, 33, (("ldc", 67), ("trans_a", True), ("trans_b", True), ("alpha", -1.0), ("beta", 2.0))),
         ("wide-64x128-k16", 70, 130, 17, (("ldc", 131), ("beta", -1.0))), ("wide-128x256", 130, 258, 9, (("ldc", 259),)),
         ("tall-256x128", 257, 129, 9, (("ldc", 133), ("beta", 0.5))), ("skinny-n16", 130, 15, 17, (("ldc", 15),)),
         ("skinny-m48", 50, 65, 25, (("ldc", 67),)), ("wide-64x256", 65, 258, 9, (("ldc", 259), ("beta", 0.25)))]


@pytest.mark.parametrize("name, m, n, k, kw", tiered(CASES, fast={CASES[1], CASES[4], CASES[9]}))
def test_the_staged_epilogue_on_the_interpreter(name, m, n, k, kw):
    _run(name, m, n, k, **dict(kw))


@pytest.mark.parametrize("name", sorted(n for n, m in FAMILY.items() if m.backend == "ptx"))
def test_a_pass_stores_every_staged_float_once_a_warp_on_consecutive_columns(name):
    """mapping.c_stage_element over every thread and float: each (row, column) of the staging rows once; a
    thread on one row; a warp's store q on runs of BN / TN consecutive columns; every staged float written
    by exactly one thread's accumulator row (c_stage_slot, tile_col) in the pass."""
    cfg = FAMILY[name].config.replace(c_staged=True)
    rows, per_row = cfg.bm // cfg.tm, cfg.bn // cfg.tn
    read = [mp.c_stage_element(cfg, t, q) for t in range(cfg.threads) for q in range(cfg.tn)]
    assert sorted(read) == [(r, c) for r in range(rows) for c in range(cfg.bn)]
    for t in range(cfg.threads):
        assert len({mp.c_stage_element(cfg, t, q)[0] for q in range(cfg.tn)}) == 1
    for w in range(0, cfg.threads, 32):
        cols = [mp.c_stage_element(cfg, t, 0)[1] for t in range(w, w + 32)]
        assert all(cols[i + 1] == cols[i] + 1 for i in range(31) if (i + 1) % per_row)
    written = [(mp.c_stage_slot(cfg, t), mp.tile_col(cfg, mp.thread_origin(cfg, t)[1], j))
               for t in range(cfg.threads) for j in range(cfg.tn)]
    assert sorted(written) == sorted(read)


def _wavefronts(offsets, width):
    """Shared-memory wavefronts of one warp access (float offsets, a lane each): 32-bit - one pass over the
    32 banks, a bank's distinct words each a wavefront; 128-bit - four quarter-warp phases of 8 lanes over 8
    groups of 4 banks, likewise."""
    if width == 1:
        words = {}
        for o in offsets:
            words.setdefault(o % 32, set()).add(o)
        return max(map(len, words.values()))
    total = 0
    for p in range(4):
        groups = {}
        for o in offsets[8 * p: 8 * p + 8]:
            groups.setdefault(o // 4 % 8, set()).add(o // 4)
        total += max(map(len, groups.values()))
    return total


@pytest.mark.parametrize("name", sorted(n for n, m in FAMILY.items() if m.backend == "ptx"))
def test_the_staging_rows_banks(name):
    """The read-back (32-bit, a warp on runs of consecutive columns) is conflict-free; the float4 writes of the
    thread tiles' rows take at most twice their ideal 4 wavefronts (config.c_stage_pad)."""
    cfg = FAMILY[name].config.replace(c_staged=True)
    for w in range(0, cfg.threads, 32):
        lanes = range(w, w + 32)
        for q in range(cfg.tn):
            assert _wavefronts([mp.c_stage_offset(cfg, *mp.c_stage_element(cfg, t, q)) for t in lanes], 1) == 1
        for j in range(0, cfg.tn, 4):
            offs = [mp.c_stage_offset(cfg, mp.c_stage_slot(cfg, t), mp.tile_col(cfg, mp.thread_origin(cfg, t)[1], j))
                    for t in lanes]
            assert _wavefronts(offs, 4) <= 8, (j, offs)


def test_for_c_asks_for_unaligned_c_rows():
    cfg = FAMILY["wide-128x256"].config
    assert for_c(cfg, "ptx", 3001).c_staged
    assert not for_c(cfg, "ptx", 3000).c_staged  # aligned rows: the float4 stores
    assert for_c(cfg, "cuda", 3001) == cfg
    with_col = for_operands(FAMILY["sq-32x32"].config, "ptx", 64, 65, 64, 65)
    assert with_col.last_col and not with_col.c_staged  # the last column's sums share the staging memory


def test_the_config_names_what_the_staged_c_needs():
    with pytest.raises(ConfigError, match="c_staged"):
        FAMILY["sq-32x32"].config.replace(c_staged=True, last_col=True)
