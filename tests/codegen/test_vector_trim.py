"""codegen/edges.vector_trim: where C's last column (N % 4 == 1; or an A^T's last row) runs as a GEMV of its own,
so that the chosen kernel's edge tiles keep whole vectors (clamp_setup).  The GPU side (the plans' outputs against
float64) is tests/gpu/test_unaligned_gpu.py."""
import pytest

from regtile.codegen.edges import VectorTrim, vector_trim
from regtile.codegen.heuristic import choose_member, member_config
from regtile.codegen.operand_forms import for_operands, same_tile
from regtile.codegen.presets import FAMILY


def _chosen(m, n, k):
    cfg, backend = member_config(choose_member(m, n, k, 132), m, n, k, 132)
    return for_operands(cfg, backend, k, n, m, n), backend


@pytest.mark.parametrize("m,n,k", [(1111, 3333, 2222), (1919, 2929, 3939), (2047, 4097, 1023), (1024, 50257, 768)])
def test_the_last_column_where_the_main_kernel_is_long(m, n, k):
    cfg, backend = _chosen(m, n, k)
    assert vector_trim(cfg, backend, m, n, k, 132) == VectorTrim("n", 1)


@pytest.mark.parametrize("m,n,k", [
    (5555, 555, 5555),  # the strip reads A's 123 MB once more: more than one wave's 4% of the main kernel
    (333, 777, 999), (129, 4097, 513),  # a launch costs more than the tiles' penalty
    (1024, 4096, 2048),  # N % 4 == 0: nothing straddles
    (1023, 4095, 2047), (4001, 4003, 4007), (1234, 5678, 910),  # 2 or 3 columns: no GEMV takes them
])
def test_none_where_the_strip_costs_more_or_nothing_straddles(m, n, k):
    cfg, backend = _chosen(m, n, k)
    assert vector_trim(cfg, backend, m, n, k, 132) is None


def test_the_rows_of_an_a_transposed_and_not_the_columns_of_a_b_transposed():
    cfg = FAMILY["wide-128x256-noedge"].config
    assert vector_trim(cfg.replace(trans_a=True), "ptx", 4097, 4096, 2047, 132) == VectorTrim("m", 1)
    assert vector_trim(cfg, "ptx", 4097, 4096, 2047, 132) is None  # A's vectors run along K
    assert vector_trim(cfg.replace(trans_b=True), "ptx", 1023, 4097, 2047, 132) is None  # B^T's along K too
    assert vector_trim(cfg.replace(trans_a=True, trans_b=True), "ptx", 1024, 4097, 2047, 132) is None


def test_only_single_ptx_float4_kernels_without_the_fused_last_column():
    cfg = FAMILY["wide-128x256-noedge"].config
    assert vector_trim(cfg, "ptx", 1023, 4097, 2047, 132) is not None
    assert vector_trim(cfg, "cuda", 1023, 4097, 2047, 132) is None
    assert vector_trim(cfg.replace(batched=True, stream_k=False), "ptx", 1023, 4097, 2047, 132) is None
    assert vector_trim(cfg.replace(last_col=True), "ptx", 1023, 4097, 2047, 132) is None


def test_the_saving_is_one_wave_s_share():
    """Eight times the waves, an eighth of the saving: 4097 columns over 1023 rows trim on 132 SMs, not on 16
    (9 waves of 128x256 tiles) where the strip's read and launch outweigh it."""
    cfg = FAMILY["wide-128x256-noedge"].config
    assert vector_trim(cfg, "ptx", 1023, 4097, 2047, 132) is not None
    assert vector_trim(cfg, "ptx", 1023, 4097, 2047, 16) is None


def test_same_tile_tells_members_apart_not_their_forms():
    wide, tall = FAMILY["wide-128x256-noedge"].config, FAMILY["tall-256x128"].config
    assert same_tile(wide, wide.replace(c_staged=True, unaligned_vectors=True))
    assert not same_tile(wide, tall)
    assert not same_tile(wide, FAMILY["wide-128x256"].config)  # the edge split's member
