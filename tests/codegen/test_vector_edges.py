"""operand_forms.for_vector_edges: the edge vector path for the 128x256 members where an operand's rows are
16-byte aligned but its extent along the vectors is ragged (a strided view such as B[:, :4093] of a 4096-wide
buffer), and nowhere else - packed operands and the members that have the path keep their config and text."""
import pytest

from regtile.codegen.config import EDGE_TILE
from regtile.codegen.edges import plan_edges
from regtile.codegen.heuristic import choose_kernel
from regtile.codegen.operand_forms import for_operands, for_vector_edges, ragged_aligned_vectors
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_config
from tiers import tiered

BIG = ("wide-128x256", "wide-128x256-noedge")  # presets._NO_EDGE_VECTOR_PATH


@pytest.mark.parametrize("name", BIG)
def test_only_aligned_rows_with_a_ragged_extent_take_the_path(name):
    cfg = FAMILY[name].config
    assert not cfg.edge_vector_path
    m, n = 4095, 4095  # no edge split (edges.plan_edges): the main kernel runs the ragged tile column
    # B's rows aligned (ldb = 4096), N ragged: the edge tile column straddles N mid-vector
    assert for_vector_edges(cfg, "ptx", 4096, 4096, m, n).edge_vector_path
    # ... also beside A's unaligned rows (lda = K = 4095): B still has aligned rows
    assert for_vector_edges(cfg, "ptx", 4095, 4096, m, n).edge_vector_path
    # packed B (ldb = N): unaligned rows, the vector floats' path, not this one
    assert for_vector_edges(cfg, "ptx", 4096, n, m, n) is cfg
    # N a multiple of 4: every vector wholly inside or outside
    assert for_vector_edges(cfg, "ptx", 4096, 4096, m, 4096) is cfg
    # A^T (trans_a): its vectors run along M
    ta = cfg.replace(trans_a=True)
    assert for_vector_edges(ta, "ptx", 4096, 4096, m, 4096).edge_vector_path
    assert for_vector_edges(ta, "ptx", m, 4096, m, 4096) is ta
    # B^T (trans_b): its vectors run along K, which only the last k-tile meets
    tb = cfg.replace(trans_b=True)
    assert not ragged_aligned_vectors(tb, 4096, 4096, 4096, n)
    assert for_vector_edges(tb, "ptx", 4096, 4096, 4096, n) is tb


def test_where_the_edge_split_takes_the_ragged_strip_the_member_keeps_its_config():
    """8191x8193: the split's right strip is the one ragged column, so wide-128x256's own tiles are whole
    (the path only cost there: 2795.4 against 2721.6 us, H200); wide-128x256-noedge has no split."""
    assert plan_edges(8191, 8193, 128, 256, *EDGE_TILE).split
    cfg = FAMILY["wide-128x256"].config
    assert cfg.edge_split and for_vector_edges(cfg, "ptx", 1028, 8196, 8191, 8193) is cfg
    assert for_vector_edges(FAMILY["wide-128x256-noedge"].config, "ptx", 1028, 8196, 8191, 8193).edge_vector_path


def test_members_with_the_path_and_other_backends_keep_their_config():
    for name, member in FAMILY.items():
        got = for_vector_edges(member.config, member.backend, 4096, 4096, 4095, 4095)
        if member.backend == "ptx" and member.config.vec == 4 and name in BIG:
            assert got.edge_vector_path
        else:
            assert got is member.config, name


def test_the_plans_config_for_a_strided_view_and_for_packed_operands():
    cfg, backend = choose_kernel(1023, 4095, 2047, "sm_90", 132)
    assert (cfg.bm, cfg.bn) == (128, 256) and not cfg.edge_vector_path
    strided = for_operands(cfg, backend, 2048, 4096, 1023, 4095)  # A and B views of 2048- / 4096-wide buffers
    assert strided.edge_vector_path and not strided.unaligned_vectors
    packed = for_operands(cfg, backend, 2047, 4095, 1023, 4095)
    assert not packed.edge_vector_path and packed.unaligned_vectors


@pytest.mark.parametrize("name, ta", tiered([(n, ta) for n in BIG for ta in (False, True)],
                                            fast={("wide-128x256-noedge", False)}))
def test_the_path_compiles_without_spilling(name, ta):
    """233-255 registers with the path (sm_90, NVRTC 13.0): read from ptxas's own report."""
    cfg = for_vector_edges(FAMILY[name].config.replace(trans_a=ta), "ptx", 4096, 4096, 4095, 4096 if ta else 4095)
    assert cfg.edge_vector_path
    art = compile_config(cfg, "sm_90", backend="ptx")
    spills = [line for line in art.log.splitlines() if "spill" in line]
    assert spills and all(" 0 bytes spill stores, 0 bytes spill loads" in line for line in spills), spills
