"""The few-vector configs (codegen/fewvec_config.py): validation naming the constraint, the shape
rule's picks, the split rule, the route decision of regtile.sgemm's skinny GEMMs, and the emitted
module (codegen/emit_fewvec.py).  CPU only; the slow tier compiles the rule's picks for sm_90."""
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.emit_fewvec import partial_count, staged_floats
from regtile.codegen.fewvec_config import (MAX_VECTORS, MIN_MATRIX_BYTES, SMEM_FORMS, FewVecNConfig, FewVecTConfig,
                                           choose_fewvec, fewvec_candidates, fewvec_splits, route)
from regtile.errors import ConfigError


@pytest.mark.parametrize("make, words", [
    (lambda: FewVecTConfig(vectors=1), "vectors=1"),
    (lambda: FewVecTConfig(vectors=17), "vectors=17"),
    (lambda: FewVecNConfig(vectors=True), "vectors=True"),
    (lambda: FewVecTConfig(threads_x=24), "power of two"),
    (lambda: FewVecTConfig(threads_x=64, threads_y=4), "threads_x=64"),
    (lambda: FewVecTConfig(threads_x=32, threads_y=64), "1024 threads"),
    (lambda: FewVecTConfig(threads_x=4, threads_y=4), "32..1024"),
    (lambda: FewVecTConfig(unroll=9), "unroll=9"),
    (lambda: FewVecNConfig(vectors=16, row_groups=8, unroll=4), "budget"),
    (lambda: FewVecNConfig(row_groups=9), "row_groups=9"),
    (lambda: FewVecNConfig(warps_per_block=33), "32 warps"),
    (lambda: FewVecNConfig(unroll=0), "unroll=0"),
    (lambda: FewVecNConfig(min_blocks=-1), "min_blocks=-1"),
    (lambda: FewVecTConfig(min_blocks=8), "registers a thread"),
    (lambda: FewVecTConfig(vector_groups=3), "vector_groups=3"),
    (lambda: FewVecTConfig(prefetch_steps=9), "prefetch_steps=9"),
    (lambda: FewVecNConfig(prefetch_steps=-1), "prefetch_steps=-1"),
    (lambda: FewVecTConfig(threads_y=2, vector_groups=4), "dividing threads_y"),
    (lambda: FewVecTConfig(vectors=4, vector_groups=2), "without a float4"),
    (lambda: FewVecNConfig(lanes_per_row=4), "lanes_per_row=4"),
    (lambda: FewVecTConfig(16, 16, 16, 4, vector_groups=2, smem_vectors=True), "vector_groups=1"),
    (lambda: FewVecTConfig(16, 16, 16, 4, smem_vectors=1), "smem_vectors=1"),
    (lambda: FewVecTConfig(16, 2, 128, 4, smem_vectors=True), "static"),
    (lambda: FewVecTConfig(16, 16, 16, 4, running_rows=True), "running_rows without smem_vectors"),
    (lambda: FewVecTConfig(16, 16, 16, 4, smem_vectors=True, running_rows=1), "running_rows=1"),
])
def test_validation_names_the_constraint(make, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(".", r"\.")):
        make()


def test_grouped_vectors_and_lanes():
    t = FewVecTConfig(13, 32, 8, 4, vector_groups=2)
    assert (t.group_vectors, t.rows_per_step, t.step) == (8, 4, 16)  # 13 staged as 16, 8 a group
    assert "vector_groups" not in FewVecTConfig(13).to_dict()  # opt-in: old names stay
    n = FewVecNConfig(16, 4, 2, 2, lanes_per_row=8)
    assert (n.rows_per_warp, n.rows_per_block, n.step) == (8, 32, 64)
    src = emit(n).text
    assert "s1_15 += __shfl_xor_sync(0xffffffffu, s1_15, o)" in src and "int o = 4;" in src
    assert "const int row1 = base + 4 + rg;" in src


def test_round_trip_and_digest():
    cfg = FewVecTConfig(7, 16, 8, 2, min_blocks=2)
    assert FewVecTConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.digest != cfg.replace(unroll=4).digest
    assert FewVecNConfig.from_dict(FewVecNConfig(3).to_dict()) == FewVecNConfig(3)
    with pytest.raises(ConfigError, match="unknown"):
        FewVecNConfig.from_dict({"vectors": 3, "strip": 4})


@pytest.mark.parametrize("vectors", range(2, MAX_VECTORS + 1))
def test_rule_picks_valid_configs(vectors):
    t = choose_fewvec(65536, 1024, "T", vectors)
    smem = vectors > 8  # 9..16 vectors through shared memory, 16 lanes a row (session 22)
    assert isinstance(t, FewVecTConfig) and t.vectors == vectors and t.threads_x == (16 if smem else 32)
    assert t.smem_vectors == smem and t.threads == 256
    assert t.min_blocks * t.threads <= 512  # at least 128 registers a thread
    n = choose_fewvec(8192, 8192, "N", vectors)
    assert isinstance(n, FewVecNConfig) and n.vectors == vectors
    narrow = choose_fewvec(4096, 20, "T", vectors)
    assert narrow.threads_x == 8  # no idle lane: 5 float4 columns in 8 lanes
    # the shared-memory kernels come in SMEM_FORMS' forms, best first (the runtime takes the first spill-free)
    forms = fewvec_candidates(65536, 1024, "T", vectors)
    assert forms[0] == t and len(fewvec_candidates(8192, 8192, "N", vectors)) == 1
    assert [(c.unroll, c.running_rows) for c in forms] == (list(SMEM_FORMS) if smem else [(t.unroll, False)])
    assert all(c.replace(unroll=t.unroll, running_rows=t.running_rows) == t for c in forms)
    with pytest.raises(ConfigError, match="op="):
        choose_fewvec(10, 10, "X", vectors)


def test_splits_fill_the_slots():
    t = choose_fewvec(65536, 1024, "T", 4)  # 8 strips of 128 columns
    s = fewvec_splits(t, 65536, 1024, 132, 2)
    assert 8 * s >= 0.95 * 264 and s <= 65536 // (2 * t.step)
    assert fewvec_splits(t, 64, 1024, 132, 2) == 1  # too short to split: one step
    n = FewVecNConfig(16, 4, 4, 1)  # 128 row blocks of 16 rows
    assert fewvec_splits(n, 2048, 32768, 132, 3) == 3  # 384 blocks in 396 slots, not 4 (1.3 waves)
    assert fewvec_splits(FewVecNConfig(8, 4, 4, 2), 8192, 8192, 132, 3) == 3  # 512 -> 1536 blocks
    assert fewvec_splits(choose_fewvec(8192, 8192, "N", 8), 8192, 8192, 132, 4) == 1  # 1024 of 1056
    big = choose_fewvec(1 << 20, 4096, "N", 4)
    assert fewvec_splits(big, 1 << 20, 4096, 132, 4) == 1  # enough waves without a split
    # the shared-memory kernels: one wave of splits (64 strips of 64 columns: 4 x 64 of 264 slots)
    assert fewvec_splits(choose_fewvec(4096, 4096, "T", 16), 4096, 4096, 132, 2) == 4
    assert fewvec_splits(choose_fewvec(5120, 5120, "T", 16), 5120, 5120, 132, 2) == 3  # 240 blocks, not 13 waves' fill
    assert fewvec_splits(choose_fewvec(16384, 4096, "T", 12), 16384, 4096, 132, 1) == 2  # 64 strips in 132 slots
    assert fewvec_splits(choose_fewvec(1024, 4096, "T", 16), 1024, 4096, 132, 2) == 4  # each split two steps of 64


@pytest.mark.parametrize("args, want", [
    ((4, 1024, 65536, False, 65536, False, 1024), ("T", 65536, 1024, 1024, 4, False)),
    ((12, 4096, 4096, True, 12, False, 4096), ("T", 4096, 4096, 4096, 12, False)),
    ((16, 4096, 4096, True, 16, False, 4096), ("T", 4096, 4096, 4096, 16, False)),  # through shared memory
    ((16, 2048, 2048, False, 2048, False, 2048), ("T", 2048, 2048, 2048, 16, False)),  # 16 MB: the bound
    ((16, 1024, 2048, False, 2048, False, 1024), None),  # 8 MB: the members'
    ((8, 2048, 2048, False, 2048, False, 2048), None),  # 8 vectors on 16 MB: below their 32 MB
    ((16, 13824, 5120, False, 5120, False, 13824), None),  # 216 strips in 264 slots: the members balance better
    ((12, 5120, 13824, False, 13824, False, 5120), ("T", 13824, 5120, 5120, 12, False)),  # 3 splits, 91%
    ((8192, 8, 8192, False, 8192, False, 8), ("N", 8192, 8192, 8192, 8, True)),
    ((7680, 2, 2560, False, 2560, True, 2560), ("N", 7680, 2560, 2560, 2, True)),
    ((8, 8, 1 << 22, False, 1 << 22, False, 8), ("T", 1 << 22, 8, 8, 8, False)),  # both small: m
    ((8, 8, 1 << 16, False, 1 << 16, False, 8), None),  # 2 MB: below op T's bound
    ((768, 8, 768, False, 768, False, 8), ("N", 768, 768, 768, 8, True)),  # 2.4 MB: above op N's
    ((1024, 16, 1024, False, 1024, False, 16), None),  # 16 vectors on 4 MB: the member's
    ((4096, 16, 4096, False, 4096, False, 16), None),  # 16 vectors on rows of 4096: the member's (session 31)
    ((4096, 12, 4096, False, 4096, False, 12), ("N", 4096, 4096, 4096, 12, True)),  # 12 vectors
    ((8192, 16, 2048, False, 2048, False, 16), None),  # 16 on rows of 2048, 8192 of them: fused-128x16's (session 34)
    ((65536, 16, 1024, False, 1024, False, 16), ("N", 65536, 1024, 1024, 16, True)),  # on 65536 rows: the route's
    ((33664, 16, 1024, False, 1024, False, 16), None),  # 263 tiles of 128 rows: fused-128x16 a candidate
    ((33792, 16, 1024, False, 1024, False, 16), ("N", 33792, 1024, 1024, 16, True)),  # 264 (two an SM): the route's
    ((8192, 13, 2048, False, 2048, False, 13), ("N", 8192, 2048, 2048, 13, True)),  # n 13, unaligned: no fused member
    ((1, 4096, 4096, False, 4096, False, 4096), None),  # one vector: the SGEMV family's
    ((17, 4096, 4096, False, 4096, False, 4096), None),  # 17 rows: a GEMM
    ((4, 4096, 4096, False, 4096, True, 4096), ("N", 4096, 4096, 4096, 4, False)),  # NT: op N over B^T
    ((4096, 4, 4096, True, 4096, False, 4), ("T", 4096, 4096, 4096, 4, True)),  # TN: op T over A^T
    ((4, 1024, 1024, False, 1024, True, 1024), ("N", 1024, 1024, 1024, 4, False)),  # NT 4 MB: above op N's 2 MB
    ((1024, 4, 1024, True, 1024, False, 4), None),  # TN 4 MB: below op T's 32 MB
    ((4, 1024, 1022, False, 1022, True, 1022), None),  # NT: B^T's rows not a multiple of 4
    ((12, 4096, 4096, False, 4096, True, 4096), ("N", 4096, 4096, 4096, 12, False)),  # NT: up to 12 vectors
    ((16, 4096, 4096, False, 4096, True, 4096), None),  # NT: 16 vectors on B^T are the members'
    ((4096, 16, 4096, True, 4096, False, 16), ("T", 4096, 4096, 4096, 16, True)),  # TN: 64 MB
    ((8192, 16, 8192, True, 8192, False, 16), None),  # TN: 256 MB of A^T with 16 vectors: the members'
    ((8192, 4, 8192, True, 8192, False, 4), ("T", 8192, 8192, 8192, 4, True)),  # 4 vectors at any size
    ((4, 1024, 64, False, 64, False, 1024), None),  # 256 KB: below the bound
    ((4, 1023, 65536, False, 65536, False, 1023), None),  # ldb not a multiple of 4
])
def test_route(args, want):
    r = route(*args)
    assert (r if r is None else tuple(r[:6])) == want


@pytest.mark.parametrize("m, n, trans_a, trans_b, want", [
    # small m: the vectors are op(A)'s rows; the matrix B (op T, C as is) or B^T (op N, C transposed)
    (5, 200, False, False, ("T", 300, 200, 200, 5, False, 300, 1, False)),
    (5, 200, True, False, ("T", 300, 200, 200, 5, False, 1, 5, False)),
    (5, 200, False, True, ("N", 200, 300, 300, 5, False, 300, 1, True)),
    (5, 200, True, True, ("N", 200, 300, 300, 5, False, 1, 5, True)),
    # small n: the vectors are op(B)'s columns; the matrix A (op N, C as is) or A^T (op T, C transposed)
    (200, 5, False, False, ("N", 200, 300, 300, 5, True, 1, 5, False)),
    (200, 5, False, True, ("N", 200, 300, 300, 5, True, 300, 1, False)),
    (200, 5, True, False, ("T", 300, 200, 200, 5, True, 1, 5, True)),
    (200, 5, True, True, ("T", 300, 200, 200, 5, True, 300, 1, True)),
])
def test_route_in_every_layout(m, n, trans_a, trans_b, want):
    """m x n x 300 packed in each layout (m or n of 5): which operand is swept, along which dimension, where
    vector v's p-th value lies (the small operand's [v * sv + p * sp]) and whether C is stored transposed."""
    from regtile.codegen.heuristic import leading_dims
    lda, ldb, _ = leading_dims(m, n, 300, trans_a, trans_b)
    assert tuple(route(m, n, 300, trans_a, lda, trans_b, ldb, force=True)) == want


def test_route_force_skips_the_bounds():
    assert route(4, 1024, 64, False, 64, False, 1024, force=True)[0] == "T"
    assert route(16, 13824, 5120, False, 5120, False, 13824, force=True)[0] == "T"  # the wave fill too
    assert route(16, 13824, 5120, False, 5120, False, 13824, sms=108) is not None  # 216 blocks, 2 splits: 216 slots
    assert route(4, 1024, 64, False, 64, True, 64, force=True)[0] == "N"  # NT: B^T swept by rows
    assert route(4, 1024, 64, False, 64, True, 64) is None  # 256 KB
    assert 4 * 1024 * 64 < MIN_MATRIX_BYTES["T"]


def test_module_entries_and_text():
    src = emit(FewVecTConfig(5, 32, 8, 2, min_blocks=2))
    assert [role for role, _ in src.entries] == ["stage", "reduce"]
    assert "__launch_bounds__(256, 2)" in src.text
    assert src.text.index(src.entry("stage").name) < src.text.index(src.name + "(")
    # 5 vectors staged as 8 (two float4s a row), loaded twice a row, for each of 2 rows in flight
    assert src.text.count("__ldg(xv + (size_t)(i + 0) * 2 + 1)") == 4  # vector, scalar bodies and tails
    n = emit(FewVecNConfig(3, 4, 2, 2))
    assert "__launch_bounds__(128)" in n.text
    assert n.text.count("__ldcs(reinterpret_cast<const float4*>(a1 + j + 128))") == 1
    assert staged_floats(FewVecTConfig(5), 100) == 800 and staged_floats(FewVecNConfig(3), 101) == 3 * 104
    assert partial_count(FewVecTConfig(5), 100, 64) == 320 and partial_count(FewVecNConfig(3), 100, 64) == 300


def test_smem_vectors_text():
    """The shared-memory op T kernel: a step's staged rows copied a float4 a thread into xs and read
    back a float4 of vectors at a time, the next step's rows loaded before the FMAs, the thread rows
    met by shuffles over the lane bits above threads_x, then the warps through red."""
    cfg = choose_fewvec(4096, 4096, "T", 13)
    assert (cfg.smem_vectors, cfg.threads_x, cfg.threads_y, cfg.staged_vectors, cfg.step) == (True, 16, 16, 16, 64)
    src = emit(cfg)
    assert src.name.startswith("regtile_fewvec_ts16x16_v13_") and [r for r, _ in src.entries] == ["stage", "reduce"]
    t = src.text
    assert "__shared__ __align__(16) float4 xs[2][256];" in t  # 64 rows x 4 float4s
    assert t.count("xs[buf ^ 1][threadIdx.x + 0] = xn0;") == 1  # one loop: vec_block chosen at the loads
    assert "__ldcg(xv + (size_t)(base + 64) * 4 + (threadIdx.x + 0))" in t
    # a step's four rows under one vec_block test (the first step's and the loop's), each row guarded alone
    assert t.count("if (vec_block) {") == 3  # with the L2 prefetch's
    grouped = t[t.index("if (vec_block) {", t.index("const bool more")):]
    grouped = grouped[:grouped.index("} else {")]
    assert [ln.split(" = ")[0].strip() for ln in grouped.splitlines()[1:-1]] == ["n0", "n1", "n2", "n3"]
    # the loop's rows by a pointer stepped a step at a time (running_rows), the first step's by index
    assert cfg.running_rows and "const float* ar = a + (size_t)(i + 64) * lda;" in t and t.count("ar += 4 * rstep;") == 1
    assert "n3 = (i + 64 + 48) < r1 ? __ldcs(reinterpret_cast<const float4*>(ar + 3 * rstep))" in t
    assert "((i + 64 + 48) < r1 && c3) ? __ldcs(ar + 3 * rstep + 3 * step_c) : 0.f" in t
    assert "n3 = (i + 48) < r1 ? __ldcs(reinterpret_cast<const float4*>(a + (size_t)(i + 48) * lda))" in t
    assert t.index("n3 = (i + 64 + 48)") < t.index("s12[3] = fmaf(b3.w, x.x, s12[3]);")  # next rows first
    indexed = emit(cfg.replace(running_rows=False)).text
    assert "rstep" not in indexed and "__ldcs(reinterpret_cast<const float4*>(a + (size_t)(i + 64 + 48) * lda))" in indexed
    assert "s13[" not in t  # 13 vectors: the staged row's padding feeds no sum
    assert "for (int o = 16; o < 32; o *= 2) {" in t and "__shared__ float red[8][4][4][16];" in t
    assert "s1[2] += __shfl_xor_sync(0xffffffffu, s1[2], o);" in t
    assert t.count("__syncthreads();  // red is free again") == 3  # rounds of 4, 4, 4, 1 vectors
    assert cfg.describe().startswith("fewvec-t: 13 vectors through shared memory")
    assert "smem_vectors" not in FewVecTConfig(4).to_dict()  # opt-in: older names stay
    wide = emit(FewVecTConfig(16, 32, 8, 2, min_blocks=1, smem_vectors=True)).text
    assert "o *= 2" not in wide  # a thread row a warp: nothing to shuffle


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_90"])
def test_smem_rule_picks_compile_without_spills_on_every_arch(arch):
    """9-16 vectors through shared memory on the strips the route makes (a row of m <= n columns: 4, 8 or 16
    lanes): the rule runs the first form that compiles within the 128 registers of two blocks an SM, for each
    arch regtile builds, and every form before it spills there."""
    from regtile.errors import SpillError
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.fewvec import rule_config
    for vectors in range(9, 17):
        for cols in (4096, 24, vectors):
            cfg = rule_config(1 << 20, cols, "T", vectors, arch)
            assert cfg.smem_vectors and cfg.min_blocks * cfg.threads == 512
            art = compile_config(cfg, arch)  # SpillError otherwise
            assert art.resources.spill_store_bytes == 0 and art.resources.registers <= 128, (vectors, cols)
            forms = fewvec_candidates(1 << 20, cols, "T", vectors)
            for before in forms[:forms.index(cfg)]:
                with pytest.raises(SpillError):
                    compile_config(before, arch)


@pytest.mark.slow
@pytest.mark.parametrize("vectors", range(2, 17))
def test_rule_picks_compile_without_spills(vectors):
    from regtile.runtime.compiler import compile_config
    from regtile.runtime.fewvec import rule_config
    for cfg in (rule_config(65536, 1024, "T", vectors, "sm_90"), rule_config(8192, 8192, "N", vectors, "sm_90")):
        art = compile_config(cfg, "sm_90")  # SpillError otherwise
        assert art.resources.spill_store_bytes == 0
