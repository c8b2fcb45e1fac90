"""Repacking (codegen/repack.py, sessions 42-43): where regtile.sgemm's plan copies operands with unaligned rows into
padded rows before the GEMM (NT, TT and NN), the copies' shapes and grid, and the copy kernel (codegen/emit_pack.py)
compiled for every arch regtile builds.  CPU only; tests/gpu/test_repack_gpu.py runs the plans."""
import ptx_sim
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
    rule = REPACK_RULES[layout][0]
    assert r is not None and rule.operands == "AB" and rule.work(m, n) == m * n / (m + n) >= rule.min_work
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
    assert _packed(2000, 4003, 4007, "TT") is None  # A^T's rows (along M) aligned, m below B alone's 3000
    only_b = _packed(4000, 4003, 4007, "TT")  # ... from 3000 B^T is copied alone
    assert only_b is not None and only_b.a is None and only_b.b is not None
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
    for layout in ("NT", "TT"):
        r = _packed(m, n, k, layout)
        assert r is not None and r.a is not None and r.b is not None, (layout, r)  # both, not B alone
    assert _packed(m, n, k, "NN") is None


@pytest.mark.parametrize("m, n, k, why", [
    (999, 999, 999, "m n / (m + n) 500: TT lost 4.9%"), (2171, 546, 2174, "437, m 2171: B alone lost 1.6% in NT"),
    (1009, 1013, 1019, "505"),
    (2048, 2048, 1024, "rows aligned"), (129, 4097, 513, "small m")])
@pytest.mark.parametrize("layout", ["NT", "TT"])
def test_other_shapes_are_read_in_place(m, n, k, why, layout):
    assert _packed(m, n, k, layout) is None, why


def test_the_rule_needs_both_rows_unaligned_no_batch_sm_90_and_a_bounded_workspace():
    # A's rows aligned: not both, B alone (m >= 3000)
    assert repack_for(4001, 4003, 4007, False, True, 4008, 4007) == Repack(None, OperandCopy(4003, 4007, 4007, 4012))
    assert repack_for(2999, 4003, 4007, False, True, 4008, 4007) is None  # ... m below 3000
    assert repack_for(4001, 4003, 4007, False, True, 4007, 4012) is None  # B's
    strided = repack_for(4001, 4003, 4007, False, True, 4009, 4011)  # strided views, both unaligned
    assert strided.a == OperandCopy(4001, 4007, 4009, 4012) and strided.b == OperandCopy(4003, 4007, 4011, 4012)
    assert gemm_leading_dims(4001, 4003, 4007, False, True, 4009, 4011) == (4012, 4012)
    assert gemm_leading_dims(999, 999, 999, False, True, 999, 999) == (999, 999)  # in place
    assert repack_for(4001, 4003, 4007, False, True, 4007, 4007, batch=4) is None
    assert repack_for(4001, 4003, 4007, False, True, 4007, 4007, arch="sm_80") is None  # measured on sm_90 only
    # the copies' workspace: 128 MB at 4001x4003x4007 (the largest measured); beyond REPACK_MAX_BYTES in place
    assert 4 * (4001 + 4003) * padded(4007) <= REPACK_MAX_BYTES
    assert repack_for(8191, 8193, 4095, False, True, 4095, 4095) == Repack(None, OperandCopy(8193, 4095, 4095, 4100))
    assert 4 * (8191 + 8193) * padded(4095) > REPACK_MAX_BYTES >= 4 * 8193 * padded(4095)  # B's copy alone fits
    assert repack_for(8191, 20000, 4095, False, True, 4095, 4095) is None  # ... not here


def test_padded_rows_round_up_to_four_floats_plus_four():
    """Rounded up to 4 floats, plus 4: 4091 lands on 4096 (not avoided: NT 4099x4093x4091's GEMM ran fast on such
    copies, session 43)."""
    assert [padded(v) for v in (1, 4, 1025, 4091, 4095, 4096)] == [8, 8, 1032, 4096, 4100, 4100]


@pytest.mark.parametrize("layout, bound", [("NT", 700), ("TT", 700), ("NN", 1000)])
def test_the_bounds(layout, bound):
    """Squares m = n = 2 bound +- 1 (odd: every operand's rows unaligned, K too): m n / (m + n) = bound +- 0.5."""
    above, below = 2 * bound + 1, 2 * bound - 1
    assert _packed(above, above, 1025, layout) is not None
    assert _packed(below, below, 1025, layout) is None


def _simulated_copies(cfg, repack, seed=0):
    """The copy kernel as NVRTC compiles it for sm_90, run on the CPU (tests/codegen/ptx_sim: every global access
    bounds-checked against its buffer) with repack.args / grid: each copied operand's source holds exactly its rows
    ((rows - 1) ld + length floats), its destination exactly rows x padded_ld NaNs first.  -> {name: (copy as
    written, copy expected)}."""
    import numpy as np
    from regtile.runtime.compiler import compile_config
    art = compile_config(cfg, "sm_90")
    ptx = art.ptx if isinstance(art.ptx, str) else art.ptx.decode()
    rng = np.random.default_rng(seed)
    bufs, src, dst, expected = [], {}, {}, {}
    for i, (name, op) in enumerate((("A", repack.a), ("B", repack.b))):
        if op is None:
            continue
        s = rng.standard_normal((op.rows - 1) * op.ld + op.length).astype(np.float32)
        d = np.full(op.floats, np.nan, np.float32)
        src[name], dst[name] = 0x10000000 * (2 * i + 1), 0x10000000 * (2 * i + 2)
        bufs += [ptx_sim.Buffer("S" + name, src[name], s), ptx_sim.Buffer("D" + name, dst[name], d)]
        want = np.zeros((op.rows, op.padded_ld), np.float32)
        for r in range(op.rows):
            want[r, :op.length] = s[r * op.ld:r * op.ld + op.length]
        expected[name] = (d, want)
    args = list(repack.args(cfg, dst.get("A", 0), dst.get("B", 0)))
    args[0], args[7] = src.get("A", 0), src.get("B", 0)  # the per-call fields SA / SB
    ptx_sim.Sim(ptx, 0).run(repack.grid(cfg), (cfg.threads, 1, 1), {str(i): v for i, v in enumerate(args)}, bufs)
    return {name: (d.reshape(want.shape), want) for name, (d, want) in expected.items()}


@pytest.mark.parametrize("a, b", [
    ((5, 37, 39), (3, 130, 133)),  # both copied, strided sources (ld > length), rows of one and several chunks
    ((7, 1, 1), None), (None, (4, 61, 61)),  # one operand copied: the other has no rows, its pointers stay 0
    ((2, 253, 255), (1, 3, 3)),  # a padded row ending exactly at a chunk's end (256 floats, 32 threads)
])
def test_the_copy_kernel_writes_every_padded_float_and_reads_only_the_rows(a, b):
    """The compiled kernel, its grid and arguments together: every float of each padded copy written (the source's
    row, then zeros), nothing read or written outside the operands' rows and their copies, A's blocks then B's."""
    cfg = PackConfig(threads=32)
    ops = [OperandCopy(rows, length, ld, padded(length)) if spec else None
           for spec in (a, b) for rows, length, ld in [spec or (0, 0, 0)]]
    for name, (got, want) in _simulated_copies(cfg, Repack(*ops)).items():
        assert (got == want).all(), name


def test_the_copy_grid_counts_each_operands_row_chunks():
    cfg = PackConfig()
    a = OperandCopy(70000, 3, 3, padded(3))  # more rows than a grid's y could count: the grid is 1-D
    b = OperandCopy(7, 2049, 2051, padded(2049))
    for op in (a, b):
        assert (op.chunks(cfg) - 1) * 4 * cfg.threads < op.padded_ld <= op.chunks(cfg) * 4 * cfg.threads
    assert Repack(a, b).grid(cfg) == (70000 * a.chunks(cfg) + 7 * b.chunks(cfg), 1, 1)
    assert Repack(a, None).grid(cfg) == (70000, 1, 1) and Repack(None, b).grid(cfg) == (7 * 5, 1, 1)


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


# session 44's c_049e690: B^T copied alone where both are not (m n / (m + n) < 700) and m >= 3000, the copy's cost 1/m
# of the GEMM's: TT 5 of 5 faster (0.8-5.0%), NT 2 of 4 (4.2%, 1.8%; 0.0, -0.7% at n of 193 and 274); at m 2171 NT lost
# 1.6%; NN's B alone was mixed (-5.3% to +1.8%) and A alone (n >= 3000) lost up to 1.2%: neither rule there
B_ALONE = [("NT", 8191, 511, 2047), ("TT", 8191, 511, 2047), ("NT", 5555, 555, 5555), ("NT", 3071, 771, 6145),
           ("TT", 8687, 547, 8689), ("TT", 3071, 769, 1539), ("TT", 6143, 769, 771), ("TT", 4096, 1024, 479)]


@pytest.mark.parametrize("layout, m, n, k", B_ALONE)
def test_nt_and_tt_copy_b_alone_from_m_of_3000(layout, m, n, k):
    r = _packed(m, n, k, layout)
    assert m * n / (m + n) < 700 or m % 4 == 0  # both operands' copies do not apply
    assert r is not None and r.a is None and r.b is not None, r
    (rows_b, len_b) = stored_rows(m, n, k, layout[0] == "T", True)[1]
    assert r.b == OperandCopy(rows_b, len_b, len_b, padded(len_b))
    assert r.leading_dims(7, len_b) == (7, padded(len_b)) and r.describe() == f"B repacked into padded rows first " \
                                                                                 f"(ldb {len_b} -> {padded(len_b)})"


@pytest.mark.parametrize("layout, m, n, k, why", [
    ("NN", 8191, 511, 2047, "NN: no B alone rule"), ("NN", 5555, 555, 5555, "NN"), ("TN", 8191, 511, 2047, "TN"),
    ("TT", 2999, 511, 2047, "m below 3000"), ("TT", 8191, 511, 2048, "B^T's rows aligned"),
    ("TT", 3001, 3001, 1024, "B^T's rows aligned, A^T's alone not copied"),
    ("TT", 4343, 70, 4347, "n under 500: forced, 0.5% faster (e_3e64893)"), ("NT", 6143, 499, 3075, "n under 500")])
def test_b_alone_needs_its_layout_m_and_unaligned_rows(layout, m, n, k, why):
    assert _packed(m, n, k, layout) is None, why


@pytest.mark.parametrize("layout, m, n, k", [("NT", 1087, 2173, 71), ("NT", 2171, 2175, 137), ("NN", 2171, 2174, 70),
                                             ("TT", 4096, 600, 299)])
def test_no_copies_for_a_gemm_below_the_floor(layout, m, n, k):
    """A GEMM of fewer than REPACK_MIN_MACS multiply-adds does not win back a copy launch (session 44, e_3e64893:
    forced, NT 12544x64x147 46% slower, 1087x2173x71 19%, 2171x2175x137 1.4%); the same shape with K 50 times longer
    copies."""
    from regtile.codegen.repack import REPACK_MIN_MACS
    assert m * n * k < REPACK_MIN_MACS and _packed(m, n, k, layout) is None
    assert _packed(m, n, 50 * k + (k % 2 == 0), layout) is not None


@pytest.mark.parametrize("layout", ["NT", "TT"])
def test_no_copies_for_12544x64x147(layout):
    """Forced, NT 12544x64x147 (11.7 us) ran 46% slower copying both and 21% copying B^T (e_3e64893): under the floor,
    and n under B alone's 500."""
    assert _packed(12544, 64, 147, layout) is None and _packed(12544, 64, 50 * 147, layout) is None


@pytest.mark.parametrize("layout, m, n, k", [("TT", 6143, 1538, 98), ("NT", 1535, 1539, 769)])
def test_gemms_from_the_floor_up_copy(layout, m, n, k):
    """Just above REPACK_MIN_MACS (9.3e8 and 1.8e9 multiply-adds) the copies ran 4.7% and 1.6% faster (e_3e64893)."""
    from regtile.codegen.repack import REPACK_MIN_MACS
    assert REPACK_MIN_MACS <= m * n * k < 2 * 10 ** 9 and _packed(m, n, k, layout) is not None


@pytest.mark.parametrize("operands, work", [("AB", 2049 * 2047 / (2049 + 2047)), ("A", 2047), ("B", 2049)])
def test_a_rules_work_is_the_gemms_multiply_adds_a_copied_float(operands, work):
    from regtile.codegen.repack import RepackRule
    assert RepackRule(operands, 0).work(2049, 2047) == work


def test_a_rule_names_its_operands():
    from regtile.codegen.repack import RepackRule
    with pytest.raises(ConfigError, match="operands='BA'"):
        RepackRule("BA", 0)


def test_every_bound_is_inclusive():
    """On each bound exactly the rule applies, one below it does not: m n / (m + n) = 700 (NT both), m = 3000 and
    n = 500 (TT B^T alone), m n k = REPACK_MIN_MACS (NT both: 3200 x 2000 x 125)."""
    from regtile.codegen.repack import REPACK_MIN_MACS
    both = _packed(1400, 1400, 1025, "NT")
    assert both is not None and both.a is not None and _packed(1399, 1400, 1025, "NT") is None
    assert _packed(3000, 500, 1025, "TT") == Repack(None, OperandCopy(500, 1025, 1025, padded(1025)))
    assert _packed(2999, 500, 1025, "TT") is None and _packed(3000, 499, 1025, "TT") is None
    assert 3200 * 2000 * 125 == REPACK_MIN_MACS
    assert _packed(3200, 2000, 125, "NT") is not None and _packed(3199, 2000, 125, "NT") is None
