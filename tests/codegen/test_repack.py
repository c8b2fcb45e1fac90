"""Repacking (codegen/repack.py, sessions 42-43): where regtile.sgemm's plan copies operands with unaligned rows into
padded rows before the GEMM (NT, TT and NN), the copies' shapes and grid, and the copy kernel (codegen/emit_pack.py)
compiled for every arch regtile builds.  CPU only; tests/gpu/test_repack_gpu.py runs the plans."""
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.heuristic import leading_dims
from regtile.codegen.repack import (REPACK_MAX_BYTES, REPACK_RULES, OperandCopy, PackConfig, Repack, gemm_leading_dims,
                                    padded, repack_for, stored_rows)
from regtile.errors import ConfigError


def _packed(m, n, k, layout):
    ta, tb = layout[0] == "T", layout[1] == "T"
    lda, ldb, _ = leading_dims(m, n, k, ta, tb)
    return repack_for(m, n, k, ta, tb, lda, ldb)


# the suite's and held-out sets' shapes with m n / (m + n) of 1024-4096 whose rows are unaligned in NT, TT and NN
# (session 42's NT shapes below cuBLAS, docs/data/session42/f_8358846; session 43's TT and NN, session43/a_0eb71e7):
# repacked; TN (its ring) runs in place
LARGE_UNALIGNED = [(2049, 2047, 1025), (3333, 2222, 1111), (2047, 4097, 1023), (1919, 2929, 3939), (6143, 2047, 3071),
                   (4001, 4003, 4007), (4099, 4093, 4091), (8191, 8193, 1025)]


@pytest.mark.parametrize("m, n, k", LARGE_UNALIGNED)
@pytest.mark.parametrize("layout", ["NT", "TT", "NN"])
def test_large_shapes_with_both_operands_rows_unaligned_are_repacked(m, n, k, layout):
    r = _packed(m, n, k, layout)
    assert r is not None and m * n >= REPACK_RULES[layout].min_harmonic * (m + n)
    (rows_a, len_a), (rows_b, len_b) = stored_rows(m, n, k, layout[0] == "T", layout[1] == "T")
    assert r.a == OperandCopy(rows_a, len_a, len_a, padded(len_a)) and r.b == OperandCopy(rows_b, len_b, len_b,
                                                                                            padded(len_b))
    assert r.leading_dims(len_a, len_b) == (padded(len_a), padded(len_b))
    assert "A and B repacked into padded rows first" in r.describe()


@pytest.mark.parametrize("m, n, k", LARGE_UNALIGNED)
def test_tn_runs_in_place(m, n, k):
    """TN reads its unaligned rows through its ring; copies were slower on two of three shapes (session 43)."""
    assert _packed(m, n, k, "TN") is None


def test_the_stored_rows_of_each_layout():
    """A's rows run along K (NN, NT) or M (A^T); B's along N (NN, TN) or K (B^T)."""
    assert stored_rows(2, 3, 5, False, False) == ((2, 5), (5, 3))
    assert stored_rows(2, 3, 5, False, True) == ((2, 5), (3, 5))
    assert stored_rows(2, 3, 5, True, False) == ((5, 2), (5, 3))
    assert stored_rows(2, 3, 5, True, True) == ((5, 2), (3, 5))


def test_tt_and_nn_need_both_rows_unaligned():
    assert _packed(4000, 4003, 4007, "TT") is None  # A^T's rows (along M) aligned
    assert _packed(4001, 4003, 4008, "TT") is None  # B^T's (along K)
    assert _packed(4001, 4004, 4007, "NN") is None  # B's (along N)
    assert _packed(4001, 4003, 4008, "NN") is None  # A's (along K)


# session 43's f_9be9b3f: with m n / (m + n) of 706-968 NT and TT ran 22 of 24 shape-layouts faster repacked (the
# held-out sets' four here, eight of the ragged fitting grids'); NN lost on two of four there (d_118489a)
BELOW_1000 = [(1111, 3333, 2222), (1023, 4095, 2047), (1531, 2039, 1021), (777, 7777, 777), (4343, 1090, 2174),
              (12287, 770, 770)]


@pytest.mark.parametrize("m, n, k", BELOW_1000)
def test_nt_and_tt_repack_from_700_nn_from_1000(m, n, k):
    assert 700 <= m * n / (m + n) < 1000
    assert _packed(m, n, k, "NT") is not None and _packed(m, n, k, "TT") is not None
    assert _packed(m, n, k, "NN") is None


@pytest.mark.parametrize("m, n, k, why", [
    (999, 999, 999, "m n / (m + n) 500: TT lost 4.9%"), (8191, 511, 2047, "481"), (1009, 1013, 1019, "505"),
    (2048, 2048, 1024, "rows aligned"), (129, 4097, 513, "small m")])
@pytest.mark.parametrize("layout", ["NT", "TT"])
def test_other_shapes_are_read_in_place(m, n, k, why, layout):
    assert _packed(m, n, k, layout) is None, why


def test_the_rule_needs_both_rows_unaligned_no_batch_sm_90_and_a_bounded_workspace():
    assert repack_for(4001, 4003, 4007, False, True, 4008, 4007) is None  # A's rows aligned
    assert repack_for(4001, 4003, 4007, False, True, 4007, 4012) is None  # B's
    strided = repack_for(4001, 4003, 4007, False, True, 4009, 4011)  # strided views, both unaligned
    assert strided.a == OperandCopy(4001, 4007, 4009, 4012) and strided.b == OperandCopy(4003, 4007, 4011, 4012)
    assert gemm_leading_dims(4001, 4003, 4007, False, True, 4009, 4011) == (4012, 4012)
    assert gemm_leading_dims(999, 999, 999, False, True, 999, 999) == (999, 999)  # in place
    assert repack_for(4001, 4003, 4007, False, True, 4007, 4007, batch=4) is None
    assert repack_for(4001, 4003, 4007, False, True, 4007, 4007, arch="sm_80") is None  # measured on sm_90 only
    # the copies' workspace: 128 MB at 4001x4003x4007 (the largest measured); beyond REPACK_MAX_BYTES in place
    assert 4 * (4001 + 4003) * padded(4007) <= REPACK_MAX_BYTES
    assert repack_for(8191, 8193, 4095, False, True, 4095, 4095) is None
    assert 4 * (8191 + 8193) * padded(4095) > REPACK_MAX_BYTES


def test_padded_rows_round_up_to_four_floats_plus_four():
    """Plus 4: a padded leading dimension is never the unpadded one's power of two (4095 -> 4100, not 4096; a
    power-of-two leading dimension had a cliff, session 14)."""
    assert [padded(v) for v in (1, 4, 1025, 4095, 4096)] == [8, 8, 1032, 4100, 4100]


@pytest.mark.parametrize("rows, length", [(1, 1), (2049, 1025), (70000, 3), (5, 4097)])
def test_the_copy_grid_covers_every_padded_float_of_both_operands(rows, length):
    """One launch, a block a chunk of 4 * threads floats of a padded row: A's rows' chunks first, then B's."""
    cfg = PackConfig()
    a = OperandCopy(rows, length, length, padded(length))
    b = OperandCopy(7, 2 * length + 1, 2 * length + 3, padded(2 * length + 1))
    for op in (a, b):
        assert (op.chunks(cfg) - 1) * 4 * cfg.threads < op.padded_ld <= op.chunks(cfg) * 4 * cfg.threads
    assert a.floats == rows * a.padded_ld
    assert Repack(a, b).grid(cfg) == (rows * a.chunks(cfg) + 7 * b.chunks(cfg), 1, 1)
    assert Repack(a, None).grid(cfg) == (rows * a.chunks(cfg), 1, 1)
    assert Repack(None, b).grid(cfg) == (7 * b.chunks(cfg), 1, 1)


def test_the_copy_arguments_name_each_operand_and_none_rows_for_one_not_copied():
    cfg = PackConfig()
    a, b = OperandCopy(10, 1025, 1027, 1032), OperandCopy(20, 2049, 2049, 2056)
    assert Repack(a, b).args(cfg, 0x1000, 0x2000) == (0, 0x1000, 10, 1025, 1027, 1032, 3,
                                                      0, 0x2000, 20, 2049, 2049, 2056, 5)
    assert Repack(a, None).args(cfg, 0x1000, 0)[7:] == (0, 0, 0, 0, 0, 4, 1)  # no rows: no block reads B
    assert Repack(None, b).args(cfg, 0, 0x2000)[:7] == (0, 0, 0, 0, 0, 4, 1)


def test_pack_config_validates_threads():
    with pytest.raises(ConfigError, match="threads=100"):
        PackConfig(threads=100)
    with pytest.raises(ConfigError, match="threads=2048"):
        PackConfig(threads=2048)


def test_the_copy_kernel_text():
    src = emit(PackConfig())
    assert src.name == "regtile_pack_rows_t128" and src.language == "cuda"
    assert [p for p, _ in src.params] == ["SA", "DA", "rows_a", "len_a", "lds_a", "ldd_a", "chunks_a",
                                          "SB", "DB", "rows_b", "len_b", "lds_b", "ldd_b", "chunks_b"]
    assert not src.geometry.programmatic  # plain: it waits for whatever wrote the operands, in stream order
    assert "if (b >= rows_a * chunks_a) {" in src.text  # A's blocks first, then B's
    assert "reinterpret_cast<float4*>(D + (long long)r * ldd + c) = v;" in src.text


@pytest.mark.parametrize("arch", [pytest.param(a, marks=pytest.mark.slow) for a in ("sm_80", "sm_86", "sm_89")]
                         + ["sm_90"])
def test_the_copy_kernel_compiles_without_spills(arch):
    from regtile.runtime.compiler import compile_config
    art = compile_config(PackConfig(), arch)
    assert art.resources.spill_store_bytes == 0 and art.resources.registers <= 32, art.resources
