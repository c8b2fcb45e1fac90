"""C's last column fused into the last tile column (config.last_col, codegen/ptx_last_col.py) on the
GPU against float64: every PTX family member that can take it, on fresh random data with C
NaN-poisoned (every element checked written), N one past whole tile columns (the case the runtime
gives it: operand_forms.for_columns) and not, rows unaligned and aligned, K ragged, a K long enough for
stream-K's split tiles (their partial slots carry the column's sums), alpha and beta; the layouts;
and regtile.sgemm choosing it for the suite's shapes."""
import pytest

from regtile.codegen.config import ConfigError
from regtile.codegen.operand_forms import LAST_COL_HELD_MAX_TILE_COLUMNS, for_columns, for_operands
from regtile.codegen.presets import FAMILY
from gpu_helpers import check_config, check_host_sgemm
from test_layouts_gpu import IDS, LAYOUTS, run_layout

pytestmark = pytest.mark.gpu


def _with_last_col(name):
    try:
        return FAMILY[name].config.replace(last_col=True)
    except ConfigError:
        return None


MEMBERS = sorted(n for n, m in FAMILY.items() if m.backend == "ptx" and _with_last_col(n) is not None)


def _shapes(bn):
    # (one past whole tile columns, unaligned rows, K ragged), (two tile columns and a partial one
    # plus the column, aligned B rows), (a long K: stream-K's split tiles), (N = 2: the kernel's N is 1)
    return [(255, bn + 1, 1031), (130, 2 * bn + 37, 516), (200, bn + 1, 16400), (67, 2, 300)]


@pytest.mark.parametrize("name", MEMBERS)
def test_members_with_the_last_column(name):
    cfg = _with_last_col(name)
    for m, n, k in _shapes(cfg.bn):
        check_config(cfg, m, n, k, backend="ptx", what=f"{name} last_col")
    check_config(cfg, 129, cfg.bn + 1, 520, alpha=1.5, beta=-0.5, backend="ptx", what=f"{name} last_col")


@pytest.mark.parametrize("name", ["tall-128x64-k16", "wide-64x128-k16", "sq-32x32", "wide-128x256-noedge"])
def test_the_runtime_s_unaligned_paths_with_the_last_column(name):
    bn = FAMILY[name].config.bn
    cfg = for_operands(FAMILY[name].config, "ptx", 1031, bn + 1, 255, bn + 1)
    assert cfg.last_col and (cfg.unaligned_rows or cfg.unaligned_vectors)
    for m, n, k in ((255, cfg.bn + 1, 1031), (300, 3 * cfg.bn + 1, 8200)):
        check_config(cfg, m, n, k, backend="ptx", what=f"{name} last_col, unaligned rows")


@pytest.mark.parametrize("name", ["tall-128x64-k16", "wide-64x128-k16"])
def test_the_held_kernels(name):
    """The k16 members' fused-column kernels as for_columns gives them, held at 168 registers
    (config.max_registers): beside one and LAST_COL_HELD_MAX_TILE_COLUMNS tile columns, stream-K's
    split tiles, unaligned rows, alpha and beta."""
    bn = FAMILY[name].config.bn
    for q, m, k, lda in ((1, 255, 1031, 1031), (LAST_COL_HELD_MAX_TILE_COLUMNS, 1023, 1023, 1023),
                         (2, 200, 16400, 16400), (LAST_COL_HELD_MAX_TILE_COLUMNS, 130, 520, 520)):
        n = q * bn + 1
        cfg = for_operands(FAMILY[name].config, "ptx", lda, n, m, n)
        assert cfg.last_col and cfg.max_registers == 168, cfg.describe()
        check_config(cfg, m, n, k, backend="ptx", what=f"{name} last_col held, q={q}")
    cfg = for_columns(FAMILY[name].config, "ptx", 3 * bn + 1)
    check_config(cfg, 129, 3 * bn + 1, 520, alpha=1.5, beta=-0.5, backend="ptx", what=f"{name} held, beta")


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
def test_the_last_column_in_every_layout(ta, tb):
    run_layout(_with_last_col("tall-128x64-k16"), "ptx", 255, 65, 1031, ta, tb, 1.0, 0.0, 1)
    run_layout(_with_last_col("sq-32x32"), "ptx", 70, 33, 64, ta, tb, 0.5, -1.5, 3)


def test_regtile_sgemm_takes_it_where_n_is_one_past_a_few_tile_columns():
    """The suite's shapes whose N is one past at most LAST_COL_MAX_TILE_COLUMNS tile columns of
    their member, or LAST_COL_HELD_MAX_TILE_COLUMNS on the k16 members (operand_forms.for_columns), and
    one past more (not taken)."""
    from regtile.runtime.plans import GemmPlan
    for m, n, k in ((255, 257, 65537), (513, 129, 16383), (1023, 1025, 1023)):
        plan = GemmPlan(m, n, k, False, False, k, n, n)
        assert plan.backend == "ptx" and plan.config.last_col, (m, n, k, plan.config)
        check_host_sgemm(m, k, n, 1.5, 0.5)
    assert GemmPlan(1023, 1025, 1023, False, False, 1023, 1025, 1025).config.max_registers == 168  # 8 tile columns
    assert not GemmPlan(8191, 8193, 1025, False, False, 1025, 8193, 8193).config.last_col  # 32 tile columns
    assert not GemmPlan(1024, 1024, 1024, False, False, 1024, 1024, 1024).config.last_col
