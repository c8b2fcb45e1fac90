"""Repacking (codegen/repack.py, session 42): where regtile.sgemm's plan copies NT operands with unaligned rows into
padded rows before the GEMM, the copies' shapes and grid, and the copy kernel (codegen/emit_pack.py) compiled for
every arch regtile builds.  CPU only; tests/gpu/test_repack_gpu.py runs the plans."""
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.heuristic import leading_dims
from regtile.codegen.repack import (PACK_MAX_GRID_Y, REPACK_MAX_BYTES, REPACK_MIN_HARMONIC, OperandCopy, PackConfig,
                                    gemm_leading_dims, padded, repack_for)
from regtile.errors import ConfigError


def _packed(m, n, k, layout):
    ta, tb = layout[0] == "T", layout[1] == "T"
    lda, ldb, _ = leading_dims(m, n, k, ta, tb)
    return repack_for(m, n, k, ta, tb, lda, ldb)


# session 42's NT shapes below cuBLAS on unaligned rows (docs/data/session42/f_8358846): m n / (m + n) of 1024-4096
# repacked, 481-833 not (slower repacked)
@pytest.mark.parametrize("m, n, k", [(2049, 2047, 1025), (3333, 2222, 1111), (2047, 4097, 1023), (1919, 2929, 3939),
                                     (6143, 2047, 3071), (4001, 4003, 4007), (4099, 4093, 4091), (8191, 8193, 1025)])
def test_nt_shapes_with_unaligned_k_and_large_m_and_n_are_repacked(m, n, k):
    r = _packed(m, n, k, "NT")
    assert r is not None and m * n >= REPACK_MIN_HARMONIC * (m + n)
    assert r.a == OperandCopy(m, k, k, padded(k)) and r.b == OperandCopy(n, k, k, padded(k))
    assert r.leading_dims(k, k) == (padded(k), padded(k))
    assert "A and B repacked into padded rows first" in r.describe()
    for layout in ("NN", "TN", "TT"):  # TN runs its ring, TT lost on one of six, NN measured slower (sessions 6-26)
        assert _packed(m, n, k, layout) is None, layout


@pytest.mark.parametrize("m, n, k, why", [
    (1111, 3333, 2222, "m n / (m + n) 833"), (1023, 4095, 2047, "818"), (8191, 511, 2047, "481"),
    (2048, 2048, 1024, "rows aligned"), (129, 4097, 513, "small m")])
def test_other_nt_shapes_are_read_in_place(m, n, k, why):
    assert _packed(m, n, k, "NT") is None, why


def test_the_rule_needs_both_rows_unaligned_no_batch_sm_90_and_a_bounded_workspace():
    assert repack_for(4001, 4003, 4007, False, True, 4008, 4007) is None  # A's rows aligned
    assert repack_for(4001, 4003, 4007, False, True, 4007, 4012) is None  # B's
    strided = repack_for(4001, 4003, 4007, False, True, 4009, 4011)  # strided views, both unaligned
    assert strided.a == OperandCopy(4001, 4007, 4009, 4012) and strided.b == OperandCopy(4003, 4007, 4011, 4012)
    assert gemm_leading_dims(4001, 4003, 4007, False, True, 4009, 4011) == (4012, 4012)
    assert gemm_leading_dims(1111, 3333, 2222, False, True, 2222, 2222) == (2222, 2222)  # in place
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
def test_the_copy_grid_covers_every_padded_float(rows, length):
    cfg = PackConfig()
    op = OperandCopy(rows, length, length, padded(length))
    gx, gy, gz = op.grid(cfg)
    assert gz == 1 and gy == min(rows, PACK_MAX_GRID_Y)  # the kernel strides over rows beyond gridDim.y
    assert (gx - 1) * 4 * cfg.threads < op.padded_ld <= gx * 4 * cfg.threads
    assert op.floats == rows * op.padded_ld


def test_pack_config_validates_threads():
    with pytest.raises(ConfigError, match="threads=100"):
        PackConfig(threads=100)
    with pytest.raises(ConfigError, match="threads=2048"):
        PackConfig(threads=2048)


def test_the_copy_kernel_text():
    src = emit(PackConfig())
    assert src.name == "regtile_pack_rows_t128" and src.language == "cuda"
    assert [p for p, _ in src.params] == ["S", "D", "rows", "len", "lds", "ldd"]
    assert not src.geometry.programmatic  # plain: it waits for whatever wrote the operand, in stream order
    assert "reinterpret_cast<float4*>(D + (long long)r * ldd + c) = v;" in src.text
    assert "r += gridDim.y" in src.text


@pytest.mark.parametrize("arch", [pytest.param(a, marks=pytest.mark.slow) for a in ("sm_80", "sm_86", "sm_89")]
                         + ["sm_90"])
def test_the_copy_kernel_compiles_without_spills(arch):
    from regtile.runtime.compiler import compile_config
    art = compile_config(PackConfig(), arch)
    assert art.resources.spill_store_bytes == 0 and art.resources.registers <= 32, art.resources
