"""SGEMV generator: configs, the seed's presets, and what the SASS holds."""
import pytest
from tiers import tiered

from regtile.codegen.config import ConfigError
from regtile.codegen.emit import emit_cuda
from regtile.codegen.presets import get_preset, sgemv_preset_names
from regtile.codegen.sgemv_config import SgemvConfig, config_for_width
from regtile.runtime.compiler import compile_source
from regtile.runtime.sass import function_of, instruction_mix


@pytest.mark.parametrize("kwargs, needle", [
    (dict(rows_per_warp=3), "rows_per_warp=3"),
    (dict(vec=2), "vec=2"),
    (dict(warps_per_block=33), "at most 32 warps"),
    (dict(unroll=0), "unroll=0"),
])
def test_invalid_sgemv_configs(kwargs, needle):
    with pytest.raises(ConfigError, match=needle):
        SgemvConfig(**kwargs)


@pytest.mark.parametrize("n, rows_per_warp, vec", [(1, 32, 1), (3, 8, 1), (16, 8, 4), (32, 4, 4),
                                                   (128, 1, 4), (4096, 1, 4), (1000, 1, 4)])
def test_shape_rule(n, rows_per_warp, vec):
    cfg = config_for_width(n)
    assert (cfg.rows_per_warp, cfg.vec) == (rows_per_warp, vec)
    assert cfg.lanes_per_row * cfg.vec >= min(n, 32 * cfg.vec)


def test_seed_presets():
    assert sgemv_preset_names() == ("sgemv-n16", "sgemv-n32", "sgemv-n128")
    assert get_preset("sgemv-n16").config.lanes_per_row == 16


@pytest.mark.parametrize("name, arch", tiered([(n, a) for n in sgemv_preset_names() for a in ("sm_80", "sm_90")],
                                              fast={("sgemv-n16", "sm_80"), ("sgemv-n128", "sm_90")}))
def test_sgemv_presets_compile_spill_free(name, arch):
    src = emit_cuda(get_preset(name).config)
    art = compile_source(src, arch)
    assert art.resources.spill_free
    mix = instruction_mix(function_of(art.cubin, src.name)[1].instructions)
    if get_preset(name).config.vec == 4:
        assert mix.get("LDG.128", 0) >= 2  # A and x in float4
    assert mix.get("STG.32", 0) == 2  # y, or the split's partial sum to the workspace


def test_unroll_puts_loads_in_flight():
    src = emit_cuda(SgemvConfig(rows_per_warp=1, vec=4, unroll=4))
    func = function_of(compile_source(src, "sm_90").cubin, src.name)[1]
    # the main loop issues `unroll` float4 loads of A (and of x) before its FFMAs
    mix = instruction_mix(func.loop_instructions())
    assert mix["LDG.128"] == 8 and mix["FFMA"] == 16


def test_grid_covers_rows_on_x():
    geo = emit_cuda(get_preset("sgemv-n16").config).geometry
    assert geo.grid(1_000_000, 16) == (-(-1_000_000 // 8), 1, 1)


def test_warps_per_row_split():
    cfg = SgemvConfig(rows_per_warp=1, vec=4, warps_per_block=8, unroll=4, warps_per_row=2)
    assert cfg.rows_per_block == 4 and cfg.row_lanes == 64
    src = emit_cuda(cfg)
    assert src.geometry.grid(4096, 16384) == (1024, 1, 1)
    art = compile_source(src, "sm_90")
    assert art.resources.spill_free and art.resources.barriers == 1  # the partial sums meet at one barrier
    with pytest.raises(ConfigError, match="warps_per_row"):
        SgemvConfig(rows_per_warp=2, warps_per_row=2)


def test_shape_rule_splits_few_long_rows_across_warps():
    from regtile.codegen.sgemv_config import config_for_shape
    assert config_for_shape(4096, 16384).warps_per_row == 4
    assert config_for_shape(16384, 4096).warps_per_row == 1
    assert config_for_shape(65536, 1024).warps_per_row == 1
    assert config_for_shape(4, 100).warps_per_row == 1  # short rows: no split
    assert config_for_shape(1 << 20, 16) == config_for_width(16)


# ---- the family: op T, splits, the shape rule over both -----------------------------
from regtile.codegen.sgemv_config import (SgemvTConfig, choose_gemv, config_for_shape, config_for_shape_t,  # noqa: E402
                                          splits_for)


@pytest.mark.parametrize("kwargs, needle", [
    (dict(threads_x=3), "threads_x=3: must be a power of two"),
    (dict(threads_x=64, threads_y=32), "at most 1024 threads"),
    (dict(vec=2), "vec=2"),
    (dict(unroll=9), "unroll=9"),
])
def test_invalid_sgemv_t_configs(kwargs, needle):
    with pytest.raises(ConfigError, match=needle):
        SgemvTConfig(**kwargs)


def test_choose_gemv_covers_both_ops():
    for m in (1, 2, 3, 7, 32, 300, 4096, 16384, 1 << 20):
        for n in (1, 3, 16, 77, 128, 4096, 50000, 1 << 20):
            for op in ("N", "T"):
                cfg, splits = choose_gemv(m, n, op, 132)
                assert isinstance(cfg, SgemvTConfig if op == "T" else SgemvConfig)
                assert 1 <= splits <= 1024
    with pytest.raises(ConfigError, match="op='X'"):
        choose_gemv(4, 4, "X")


def test_few_long_rows_are_split_over_blocks():
    cfg, splits = choose_gemv(2, 1_000_000, "N", 132)
    assert splits >= 100  # was one block a row: two warps streamed 8 MB (0.04x cuBLAS)
    assert choose_gemv(16384, 4096, "N", 132)[1] == 1
    assert choose_gemv(1 << 20, 16, "N", 132)[1] == 1


def test_decode_shape_transposed():
    # 1x7680x2560 GEMM = y = B^T x with B 2560 x 7680 row-major: float4 strips of 128 columns,
    # row ranges so the 60 strips fill the H100
    # since session 3 run 4 one wave of 120 strips of 64 columns, no split (_one_wave_t)
    cfg, splits = choose_gemv(2560, 7680, "T", 132)
    assert (cfg.threads_x, cfg.threads_y, cfg.unroll, cfg.warp_reduce, splits) == (16, 32, 8, True, 1)
    # many rows: float4 strips of 128 columns, row ranges so the 32 strips fill the H100
    cfg, splits = choose_gemv(16384, 4096, "T", 132)
    assert (cfg.threads_x, cfg.vec, cfg.strip, cfg.warp_reduce) == (32, 4, 128, False)
    assert splits * 32 * cfg.threads // 32 >= 132 * 64
    assert cfg.unroll == 8  # few whole strips, split rows: 8 rows in flight (measured, docs/sgemv.md)
    assert choose_gemv(16384, 50000, "T", 132)[0].unroll == 4  # many strips: 8 lost there
    assert choose_gemv(16384, 16, "T", 132)[0].unroll == 8  # 16-wide strips: 8 won since the op T tail (bd3ff88)
    narrow = config_for_shape_t(1_000_003, 3)
    assert narrow.vec == 1 and narrow.threads_x == 4  # no lane without a column
    assert config_for_shape_t(2, 1 << 20).threads_y == 2  # no idle thread rows
    assert splits_for(narrow, 1_000_003, 3, 132) > 100


@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_90"])
def test_family_compiles_for_every_arch(arch):
    cfg = SgemvTConfig(threads_x=32, threads_y=8, vec=4, unroll=4)
    src = emit_cuda(cfg)
    assert src.reduce is not None and src.reduce.name in src.text
    art = compile_source(src, arch)
    assert art.resources.spill_free and art.resources.barriers == 1
    if arch == "sm_90":
        mix = instruction_mix(function_of(art.cubin, src.name)[1].instructions)
        assert mix.get("LDG.128", 0) >= 4  # `unroll` float4 rows of A in flight (the vector loop)


def test_reduce_kernel_warp_per_output_for_many_splits():
    from regtile.codegen.emit_sgemv import REDUCE_WARP_SPLITS, reduce_outputs_per_block
    src = emit_cuda(SgemvConfig()).reduce
    assert "__shfl_xor_sync" in src.text and f"splits >= {REDUCE_WARP_SPLITS}" in src.text
    assert reduce_outputs_per_block(REDUCE_WARP_SPLITS) == 8 and reduce_outputs_per_block(2) == 32
    assert "__syncthreads" in src.text  # fewer splits: thread rows meet in shared memory


def test_splits_fill_whole_waves():
    cfg = config_for_shape_t(16384, 50000)  # 391 strips of 128 columns
    # 4 splits fill 2.96 waves of 528; long splits take whole waves >= 4: 8 (5.9 waves)
    assert splits_for(cfg, 16384, 50000, 132, blocks_per_sm=4) == 8
    # 300 rows: whole waves would take splits of 2.3 steps (FILL_STEPS): one split
    assert splits_for(config_for_shape_t(300, 50000), 300, 50000, 132, blocks_per_sm=4) == 1
    dec = SgemvTConfig(32, 8, 4, 8)  # 60 strips: one wave of 8 splits (91% of the slots) stays
    assert splits_for(dec, 2560, 7680, 132, blocks_per_sm=4) == 8


def test_staged_rows_config_and_rule():
    with pytest.raises(ConfigError, match="rows_per_warp=32"):
        SgemvConfig(rows_per_warp=1, stage_cols=80)
    with pytest.raises(ConfigError, match="static shared memory"):
        SgemvConfig(rows_per_warp=32, warps_per_block=8, stage_cols=80)
    cfg, splits = choose_gemv(1 << 20, 77, "N", 132)
    assert cfg.stage_cols >= 77 and cfg.rows_per_warp == 32 and splits == 1
    assert choose_gemv(4096, 77, "N", 132)[0].stage_cols == 0  # too few warps of 32 rows
    assert choose_gemv(1 << 20, 128, "N", 132)[0].stage_cols == 0  # aligned rows: float4 already
    # configs without the field keep their kernel names (and so their cached builds)
    from regtile.codegen.emit_sgemv import kernel_name
    assert kernel_name(SgemvConfig()) == "regtile_sgemv_r1_v4_" + __import__("hashlib").sha1(repr((
        "SgemvConfig", sorted((k, v) for k, v in SgemvConfig().to_dict().items() if k not in ("stage_cols", "share_x", "fused_reduce", "cluster"))))
        .encode()).hexdigest()[:10]


@pytest.mark.parametrize("arch", tiered(["sm_80", "sm_90"], fast={"sm_90"}))
def test_staged_rows_compile(arch):
    cfg = SgemvConfig(rows_per_warp=32, vec=4, warps_per_block=4, unroll=8, stage_cols=80)
    src = emit_cuda(cfg)
    art = compile_source(src, arch)
    assert art.resources.spill_free and art.resources.barriers == 1
    assert art.resources.static_smem_bytes == 4 * 80 * (32 * 4 + 1)
    if arch == "sm_90":
        mix = instruction_mix(function_of(art.cubin, src.name)[1].instructions)
        assert mix.get("LDG.128", 0) >= 8 and mix.get("STS.128", 0) >= 8  # `unroll` float4 copies in flight


def test_shared_x_config_and_rule():
    with pytest.raises(ConfigError, match="share_x"):
        SgemvConfig(share_x=True)  # one row group: nothing to share
    cfg, splits = choose_gemv(300, 1 << 20, "N", 132)
    assert cfg.share_x and cfg.row_groups == 2 and cfg.warps_per_row > 1 and splits > 1
    assert not choose_gemv(32, 1 << 20, "N", 132)[0].share_x  # few rows keep their warps
    assert not choose_gemv(16384, 4096, "N", 132)[0].share_x


@pytest.mark.parametrize("arch", tiered(["sm_80", "sm_90"], fast={"sm_90"}))
def test_shared_x_compiles(arch):
    cfg = SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, row_groups=2, share_x=True)
    src = emit_cuda(cfg)
    art = compile_source(src, arch)
    assert art.resources.spill_free
    if arch == "sm_90":
        mix = instruction_mix(function_of(art.cubin, src.name)[1].instructions)
        assert mix.get("LDG.128", 0) >= 12  # 4 x and 2 x 4 A float4 loads a step


def test_splits_one_step_only_where_sms_would_idle():
    n7 = SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4)  # 7x50000's rule before session 4:
    # 7 blocks (4 warps a row): two steps a split gave 12 splits, 84 blocks
    assert splits_for(n7, 7, 50000, 132, blocks_per_sm=12) == 19  # ceil(132 / 7): every SM a block
    t77 = config_for_shape_t(4096, 77)
    assert splits_for(t77, 4096, 77, 132, blocks_per_sm=4) == 128  # one step each (was 64: 64 SMs)
    t128 = config_for_shape_t(16384, 128)
    assert splits_for(t128, 16384, 128, 132, blocks_per_sm=2) == 128  # op T: whole steps (not 132)
    assert choose_gemv(1, 4096, "N", 132)[1] == 1 and choose_gemv(32, 4096, "N", 132)[1] == 1  # < 4 steps a row
    t1 = config_for_shape_t(1 << 20, 1)  # two steps already fill the SMs: unchanged
    assert splits_for(t1, 1 << 20, 1, 132, blocks_per_sm=8) == 512


def test_fused_reduce_config_rule_and_text():
    from regtile.codegen.emit_sgemv import finish_layout, kernel_name
    with pytest.raises(ConfigError, match="fused_reduce"):
        SgemvTConfig(fused_reduce=1)
    for m, n, op in [(7, 50000, "N"), (4096, 4096, "T"), (1 << 20, 16, "T"), (2048, 2048, "T")]:
        assert not choose_gemv(m, n, op, 132)[0].fused_reduce  # two launches: faster where measured
    assert choose_gemv(300, 1 << 20, "N", 132)[0].fused_reduce  # share_x: the one-launch variant
    assert not choose_gemv(16384, 4096, "N", 132)[0].fused_reduce  # one split: the plain kernel
    assert kernel_name(SgemvTConfig()) != kernel_name(SgemvTConfig(fused_reduce=True))
    assert kernel_name(SgemvTConfig()) == "regtile_sgemv_t32x8_v4_" + __import__("hashlib").sha1(repr((
        "SgemvTConfig", sorted((k, v) for k, v in SgemvTConfig().to_dict().items() if k not in ("fused_reduce", "cluster", "warp_reduce", "stage_rows"))))
        .encode()).hexdigest()[:10]  # configs from before the field keep their names
    src = emit_cuda(SgemvTConfig(4, 64, 4, 4, fused_reduce=True))
    fin = f"__device__ __noinline__ void {src.name}_finish("
    assert fin in src.text and "atomicAdd(done, 1u) == gridDim.y - 1u" in src.text
    assert "*done = 0u;" in src.text and "__ldcg(W + (size_t)k * count + i)" in src.text
    assert "__threadfence();" in src.text and "if (ty != 0) return;" not in src.text  # all threads reach the count
    assert "_finish(" not in emit_cuda(SgemvTConfig(4, 64, 4, 4)).text
    assert finish_layout(16, 256) == (16, 16) and finish_layout(1, 128) == (1, 128) and finish_layout(512, 256) == (256, 1)
    n = emit_cuda(SgemvConfig(vec=4, warps_per_block=4, unroll=4, warps_per_row=4, fused_reduce=True))
    assert "(size_t)gridDim.y * M) + blockIdx.x" in n.text and "float part[128][1]" in n.text
    assert "for (int h = 64; h > 0; h >>= 1)" in n.text  # 128 split rows meet in a fixed tree


@pytest.mark.slow
def test_fused_reduce_costs_no_registers():
    """The finish is a __noinline__ function: inline, ptxas gave t32x8 u4 72 registers, not 64
    (a block an SM fewer)."""
    for cfg in (SgemvTConfig(32, 8, 4, 4), SgemvTConfig(4, 64, 4, 4)):
        plain = compile_source(emit_cuda(cfg), "sm_90").resources
        fused = compile_source(emit_cuda(cfg.replace(fused_reduce=True)), "sm_90").resources
        assert fused.spill_free and fused.registers <= plain.registers


def test_rule_choices_measured_at_0bf45f3():
    assert choose_gemv(16384, 4096, "N", 132)[0].unroll == 8  # long rows, a warp each
    assert choose_gemv(16384, 50000, "N", 132)[0].unroll == 8
    assert choose_gemv(4096, 4096, "N", 132)[0].unroll == 4  # several warps a row: unchanged
    t = config_for_shape_t(300, 50000)  # whole waves would need splits of 2.3 steps: one split
    assert splits_for(t, 300, 50000, 132, blocks_per_sm=4) == 1


def test_t_tail_is_one_predicated_step():
    text = emit_cuda(SgemvTConfig(32, 8, 4, 4)).text
    assert "for (; i < r1; i += 8)" not in text  # no one-row-at-a-time loop
    assert "const bool p3 = (i + 24) < r1;" in text and "if (i < r1) {" in text
    assert "if (i < r1) {" not in emit_cuda(SgemvTConfig(32, 8, 4, 1)).text  # unroll 1: the loop covers all rows


# ---- sm_90 thread-block clusters (SgemvTConfig.cluster, sgemv_config.CLUSTER_DOC) ----
def test_cluster_config_and_rule():
    from regtile.codegen.emit_sgemv import kernel_name
    for bad in (1, 9, -2, True, 2.0):
        with pytest.raises(ConfigError, match="cluster"):
            SgemvTConfig(cluster=bad)
        with pytest.raises(ConfigError, match="cluster"):
            SgemvConfig(cluster=bad)
    with pytest.raises(ConfigError, match="fused_reduce"):
        SgemvTConfig(cluster=4, fused_reduce=True)
    t = SgemvTConfig(32, 8, 4, 8)
    assert splits_for(t.replace(cluster=4), 4096, 4096, 132, blocks_per_sm=2) == 4  # one cluster a strip
    assert kernel_name(t) != kernel_name(t.replace(cluster=8))
    # measured no faster than two launches (bd3ff88): the rule never picks it
    for m, n, op in [(4096, 4096, "T"), (2048, 2048, "T"), (768, 768, "T"), (7, 50000, "N")]:
        assert choose_gemv(m, n, op, 132)[0].cluster == 0


def test_rule_choices_measured_at_bd3ff88():
    """Applied after two runs agreed (c367c04 and bd3ff88, docs/sgemv.md)."""
    t16 = config_for_shape_t(1 << 20, 16)  # 16-wide float4 strips: 8 rows in flight
    assert (t16.threads_x, t16.unroll) == (4, 8)
    assert splits_for(t16, 1 << 20, 16, 132, blocks_per_sm=2) == 264
    assert splits_for(config_for_shape_t(16384, 16), 16384, 16, 132, blocks_per_sm=2) == 32
    n = config_for_shape(32, 1 << 20)  # op N long splits that fill one wave: two waves
    assert splits_for(n, 32, 1 << 20, 132, blocks_per_sm=12) == 98
    s = config_for_shape(300, 1 << 20)  # not share_x
    assert s.share_x and splits_for(s, 300, 1 << 20, 132, blocks_per_sm=10) == 8
    assert splits_for(config_for_shape(300, 50000), 300, 50000, 132, blocks_per_sm=10) == 8
    assert config_for_shape_t(4096, 77).unroll == 4  # ragged strips keep 4


def test_cluster_text():
    src = emit_cuda(SgemvTConfig(32, 8, 4, 8, cluster=8))
    assert "__launch_bounds__(256) __cluster_dims__(1, 8, 1)" in src.text
    assert src.text.count("barrier.cluster.arrive.release.aligned;") == 1  # one helper, called twice
    assert src.text.count(f"{src.name}_cluster_sync();") == 2
    assert "mapa.u64" in src.text and "%%cluster_ctarank" in src.text
    assert "const float s = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7;" in src.text  # rank order
    assert "W[" not in src.text.split(f"{src.name}_reduce(")[0]  # no workspace, no counter
    assert "atomicAdd" not in src.text and "__threadfence" not in src.text
    assert "__cluster_dims__" not in emit_cuda(SgemvTConfig(32, 8, 4, 8)).text


@pytest.mark.slow
def test_cluster_compiles_for_sm90_only():
    cfg = SgemvTConfig(32, 8, 4, 8)
    plain = compile_source(emit_cuda(cfg), "sm_90").resources
    art = compile_source(emit_cuda(cfg.replace(cluster=8)), "sm_90")
    assert art.resources.spill_free and art.resources.registers <= plain.registers
    from regtile.errors import CompileError
    with pytest.raises(CompileError, match="need sm_90"):
        compile_source(emit_cuda(cfg.replace(cluster=4)), "sm_89")


def test_cluster_text_op_n():
    src = emit_cuda(SgemvConfig(vec=4, warps_per_block=8, unroll=4, warps_per_row=2, cluster=4))
    assert "__launch_bounds__(256) __cluster_dims__(1, 4, 1)" in src.text
    assert "clu[(row0) - blockIdx.x * 4] = sum;" in src.text and "const float s = v0 + v1 + v2 + v3;" in src.text
    assert "W[" not in src.text.split(f"{src.name}_reduce(")[0]
    with pytest.raises(ConfigError, match="cluster"):
        SgemvConfig(rows_per_warp=32, vec=4, warps_per_block=4, unroll=8, stage_cols=80, cluster=2)


def test_a_cluster_kernel_says_its_cluster_and_launches_with_it(monkeypatch):
    """The geometry carries the compiled-in cluster (gridDim.y must equal it), so a launcher
    built around the loaded kernel (bench, sanitize, `regtile run`) runs exactly one cluster of
    splits, and a kernel without one runs one split; the op is the config's."""
    from types import SimpleNamespace
    from regtile.runtime import gemv
    for cfg, want in ((SgemvTConfig(32, 8, 4, 8, cluster=4), 4), (SgemvConfig(cluster=2), 2), (SgemvTConfig(), 0)):
        src = emit_cuda(cfg)
        assert src.geometry.cluster == want
        made = []
        monkeypatch.setattr(gemv, "GemvPlan", lambda kernel, m, n, op, splits, cfg: made.append((op, splits)))
        gemv.launcher_for(SimpleNamespace(source=src), 4096, 4096, cfg)
        assert made == [("T" if isinstance(cfg, SgemvTConfig) else "N", want or 1)]


# ---- op T thread rows meeting by warp shuffles (SgemvTConfig.warp_reduce) ----

def test_warp_reduce_config_and_text():
    from regtile.codegen.emit_sgemv import kernel_name
    for bad in (dict(threads_x=32, threads_y=8), dict(threads_x=8, threads_y=2), dict(threads_x=4, threads_y=4),
                dict(threads_x=8, threads_y=32, cluster=4)):
        with pytest.raises(ConfigError, match="warp_reduce"):
            SgemvTConfig(warp_reduce=True, **bad)
    with pytest.raises(ConfigError, match="warp_reduce"):
        SgemvTConfig(8, 32, warp_reduce=1)
    cfg = SgemvTConfig(8, 32, 4, 8, warp_reduce=True)
    assert "warp shuffles" in cfg.describe()
    assert kernel_name(cfg) != kernel_name(cfg.replace(warp_reduce=False))
    text = emit_cuda(cfg).text
    # 4 thread rows a warp: lanes 8 and 16 apart; then the 8 warps' sums in shared memory
    assert "for (int o = 8; o < 32; o *= 2) t[c] += __shfl_xor_sync(0xffffffffu, t[c], o);" in text
    assert "__shared__ float red[8][4][8];" in text and "for (int k = 1; k < 8; ++k)" in text
    assert "t[c] += __shfl" not in emit_cuda(cfg.replace(warp_reduce=False)).text
    fused = emit_cuda(cfg.replace(fused_reduce=True)).text
    assert "__shfl_xor_sync" in fused and "if (ty == 0) {" in fused


@pytest.mark.slow
def test_warp_reduce_sass_keeps_loads_in_flight():
    """The narrow tall block's vector loop issues its 8 float4 loads of A before the first FFMA,
    spill-free, and the thread rows of a warp meet in 2 shuffle levels x 4 columns."""
    src = emit_cuda(SgemvTConfig(8, 64, 4, 8, warp_reduce=True))
    art = compile_source(src, "sm_90")
    assert art.resources.spill_free and art.resources.barriers == 1
    assert art.resources.static_smem_bytes == 4 * 16 * 4 * 8  # 16 warps x 4 columns x 8 lanes
    func = function_of(art.cubin, src.name)[1]
    assert sum(1 for i in func.instructions if i.base == "SHFL") == 8
    loops = []
    for ins in func.instructions:
        t = ins.branch_target() if ins.base == "BRA" else None
        if t in func.labels and func.labels[t] <= ins.offset:
            loops.append([i for i in func.instructions if func.labels[t] <= i.offset <= ins.offset])
    vector = [body for body in loops if instruction_mix(body).get("LDG.128")]
    assert len(vector) == 1
    order = [i.base for i in vector[0] if i.base in ("LDG", "FFMA")]
    assert instruction_mix(vector[0])["LDG.128"] == 8 and order.index("FFMA") > max(
        k for k, b in enumerate(order) if b == "LDG")


# ---- op T rows staged through shared memory (SgemvTConfig.stage_rows) ----

def test_staged_t_config_and_text():
    from regtile.codegen.sgemv_config import splits_for
    for bad, needle in ((dict(stage_rows=30), "multiple of 4"), (dict(stage_rows=512), "multiple of 4"),
                        (dict(stage_rows=64, fused_reduce=True), "needs vec=4"),
                        (dict(stage_rows=64, vec=1), "needs vec=4"), (dict(stage_rows=96, threads_y=16), "exceed"),
                        (dict(stage_rows=-4), "stage_rows=-4: must be an integer >= 0")):
        with pytest.raises(ConfigError, match=needle):
            SgemvTConfig(**bad)
    cfg = SgemvTConfig(32, 8, 4, 8, stage_rows=64)
    assert "staged in shared memory (64 at a time)" in cfg.describe()
    src = emit_cuda(cfg)
    assert "__shared__ __align__(16) float tile[8192];" in src.text
    assert src.text.count("__ldcs(src4 + k + ") == 8  # 8 float4 loads a thread in flight
    assert "/ 64 * 64;" in src.text  # split ranges of whole tiles: aligned tile starts
    assert src.geometry.grid(1 << 20, 77) == (1, 1, 1)
    assert splits_for(cfg, 4096, 77, 132) >= 1 and splits_for(cfg, 4096, 77, 132, 6) == 64  # a split a tile


@pytest.mark.slow
def test_staged_t_compiles_spill_free():
    src = emit_cuda(SgemvTConfig(32, 8, 4, 8, stage_rows=64))
    art = compile_source(src, "sm_90")
    assert art.resources.spill_free and art.resources.static_smem_bytes <= 48 * 1024
    mix = instruction_mix(function_of(art.cubin, src.name)[1].instructions)
    assert mix["LDG.128"] == 8 and mix["STS.128"] == 8


@pytest.mark.parametrize("m, n, want", [
    (4096, 4096, (8, 64, 8)), (2048, 2048, (8, 64, 8)), (2560, 7680, (16, 32, 8)), (2048, 6144, (16, 32, 8)),
    (768, 768, (4, 64, 4)), (300, 50000, (16, 16, 4))])
def test_one_wave_rule(m, n, want):
    """The shapes measured faster without a split (session 3 run 4, sgemv_config._one_wave_t)."""
    cfg, splits = choose_gemv(m, n, "T", 132)
    assert (cfg.threads_x, cfg.threads_y, cfg.unroll) == want and cfg.warp_reduce and splits == 1
    assert splits_for(cfg, m, n, 132, blocks_per_sm=2) == 1  # the runtime's split too


@pytest.mark.parametrize("m, n", [(16384, 4096), (32, 4096), (300, 1 << 20), (16384, 128), (2048, 64), (16384, 50000)])
def test_one_wave_rule_not_elsewhere(m, n):
    # lost (16384x4096: 90.18 against 89.47 us), tied (32x4096), or not measured
    assert not choose_gemv(m, n, "T", 132)[0].warp_reduce


def test_staged_t_rule():
    cfg, splits = choose_gemv(1 << 20, 77, "T", 132)
    assert cfg.stage_rows == 64 and (cfg.threads_x, cfg.threads_y, cfg.unroll) == (32, 8, 8)
    assert splits_for(cfg, 1 << 20, 77, 132, blocks_per_sm=5) == 660  # one wave, as measured
    for m, n in ((4096, 77), (1 << 20, 128), (1 << 20, 16), (1 << 20, 3)):
        assert choose_gemv(m, n, "T", 132)[0].stage_rows == 0


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89"])
def test_run4_t_forms_compile_for_every_arch(arch):
    """The one-wave and staged op T kernels build spill-free below sm_90 too (sm_90: the tests above)."""
    for cfg in (SgemvTConfig(8, 64, 4, 8, warp_reduce=True), SgemvTConfig(32, 8, 4, 8, stage_rows=64)):
        assert compile_source(emit_cuda(cfg), arch).resources.spill_free


def test_few_rows_up_to_4096_take_a_row_in_one_step():
    """1 to 32 rows of 2049..4096 floats: 16 warps a row at unroll 2 (16 x 32 lanes x 2 float4 =
    4096 floats: one step, one DRAM round trip; measured 1x4096 1.68 against 2.00 us, 32x4096
    2.00 against 2.41, H100 session 4); more rows, longer or ragged rows keep the rule before."""
    for m, n in ((1, 4096), (32, 4096), (7, 3000)):
        cfg, splits = choose_gemv(m, n, "N")[:2]
        assert (cfg.warps_per_row, cfg.warps_per_block, cfg.unroll, splits) == (16, 16, 2, 1)
        assert 16 * 32 * cfg.vec * cfg.unroll >= n  # the whole row in one step
    assert config_for_shape(33, 4096).warps_per_row == 4
    assert config_for_shape(1, 2048).warps_per_row == 4
    assert config_for_shape(1, 4097).warps_per_row == 4  # ragged: the scalar path, as before
    assert config_for_shape(1, 8192).warps_per_row == 4


def test_few_long_rows_split_into_one_step_each():
    """1 to 8 rows of 16K-64K floats (not ragged): 16 warps a row at unroll 2, each split of a row
    at most one 4096-float step: 7x50000 in 13 splits (measured 3.56 us against 4.27 with the rule
    before, 4 warps a row in 19 splits of two steps; H100, session 4)."""
    cfg, splits = choose_gemv(7, 50000, "N")[:2]
    assert (cfg.warps_per_row, cfg.unroll, splits) == (16, 2, 13)
    for m, n in ((1, 20000), (8, 65536), (3, 16388)):
        cfg, splits = choose_gemv(m, n, "N")[:2]
        assert cfg.warps_per_row == 16 and splits == -(-n // 4096)
    assert choose_gemv(9, 50000, "N")[0].warps_per_row == 4
    assert choose_gemv(7, 50001, "N")[0].warps_per_row == 4  # ragged rows: the scalar path, as before
    assert choose_gemv(2, 1 << 20, "N")[1] == 256  # longer rows: as before



def test_pdl_trigger_placement():
    """Where each GEMV-path kernel lets its dependent be scheduled (emit_sgemv.GEMV_ENTRY, measured):
    a GEMV at entry only for a small matrix (a split launch's up to 2^26 elements), its reduce at exit (no trigger line),
    the few-vector stage and main kernels at entry, right after their wait (session 39: calls piled up with the
    trigger before it), the prefetching main kernels' too (op N, op T, op T through shared memory); every one waits
    before touching memory (a few-vector kernel: nothing but the L2 prefetch before its wait)."""
    import re
    from regtile.codegen import emit_fewvec, emit_sgemv
    from regtile.codegen.fewvec_config import FewVecNConfig, FewVecTConfig
    from regtile.codegen.sgemv_config import SgemvConfig, SgemvTConfig
    cond = (f"if ((long long)M * N <= (gridDim.y > 1 ? {1 << 26}LL : {1 << 22}LL)) "
            'asm volatile("griddepcontrol.launch_dependents;");')
    for src in (emit_sgemv.emit_sgemv_cuda(SgemvConfig()), emit_sgemv.emit_sgemv_cuda(SgemvTConfig(32, 8, 4, 4))):
        main, red = src.text.split(src.reduce.text)[0].split("*/", 1)[1].split("{", 1)[1], src.reduce.text  # the body
        assert main.count(cond) == 1 and main.count("launch_dependents") == 1, src.name
        assert main.index(cond) < main.index("griddepcontrol.wait") < main.index("alpha")
        assert "launch_dependents" not in red and red.count("griddepcontrol.wait") == 1
    trigger = "griddepcontrol.launch_dependents;\");  // the next kernel may be scheduled"
    for cfg in (FewVecNConfig(), FewVecNConfig(prefetch_steps=2), FewVecTConfig(prefetch_steps=2),
                FewVecTConfig(smem_vectors=True, prefetch_steps=2)):
        few = emit_fewvec.emit_fewvec_cuda(cfg)
        for role, k in few.kernels():
            own = k.text if role != "main" else few.text.replace(few.reduce.text, "").replace(
                few.entry("stage").text, "")
            wait = own.index("griddepcontrol.wait")
            before = re.sub(r"//[^\n]*", "", own[own.index("__global__"):wait])  # the code before the wait
            assert not re.search(r"__ld|\b(A|S|X|C|W|xv|a\d*)\s*\[", before), (role, cfg)
            assert set(re.findall(r'asm volatile\("([\w.]+)', before)) <= {"prefetch.global.L2"}, (role, cfg)
            if role == "reduce":
                assert "launch_dependents" not in own
            else:
                assert own.count(trigger) == 1, (role, cfg)
                assert wait < own.index(trigger) < wait + 300, (role, cfg)


def test_batched_config_text_and_refusals():
    """sgemv_config.BATCHED_DOC: the batch strides after the usual parameters, the pointers moved to the block's entry
    right after the PDL wait (before any load: the alignment tests see the entry's pointers), the whole batch in the
    trigger's test; no one-launch reduction; names apart from the unbatched kernels', which keep theirs."""
    from regtile.codegen.emit_sgemv import GEMV_BATCH_PARAMS, SGEMV_PARAMS, emit_sgemv_cuda
    from regtile.codegen.sgemv_config import SgemvTConfig
    for cfg in (SgemvConfig(), SgemvTConfig(32, 8, 4, 8), SgemvTConfig(8, 32, 4, 8, warp_reduce=True),
                SgemvConfig(rows_per_warp=32, vec=4, warps_per_block=4, unroll=8, stage_cols=80),
                SgemvTConfig(32, 8, 4, 8, stage_rows=64)):
        plain, batched = emit_sgemv_cuda(cfg), emit_sgemv_cuda(cfg.replace(batched=True))
        assert plain.params == SGEMV_PARAMS and batched.params == SGEMV_PARAMS + GEMV_BATCH_PARAMS
        assert plain.name != batched.name and "stride_a" not in plain.text
        body = batched.text.split(batched.reduce.text)[0].split("*/", 1)[1].split("{", 1)[1]  # the kernel's body
        wait, move = body.index("griddepcontrol.wait"), body.index("A += (long long)blockIdx.z * stride_a;")
        moved_y = body.index("y += (long long)blockIdx.z * stride_y;")
        assert wait < move < body.index("x += (long long)blockIdx.z * stride_x;") < moved_y < body.index("lda")
        rest = body[moved_y + 40:]
        assert "A += " not in rest and "y += " not in rest  # moved once
        assert min(rest.find(v) for v in (" y[", "y)", "y,") if rest.find(v) >= 0) > 0  # y used after its move
        assert "(long long)M * N * gridDim.z <= 4194304LL" in body
    for cfg in (SgemvConfig(batched=True), SgemvTConfig(8, 32, 4, 8, warp_reduce=True, batched=True)):
        assert type(cfg).from_dict(cfg.to_dict()) == cfg and cfg.to_dict()["batched"] is True
    assert "batched" not in SgemvConfig().to_dict()
    with pytest.raises(ConfigError, match="batched with cluster"):
        SgemvTConfig(32, 8, 4, 4, cluster=4, batched=True)
    with pytest.raises(ConfigError, match="batched with fused_reduce"):
        SgemvConfig(fused_reduce=True, batched=True)


@pytest.mark.parametrize("rows, cols, op, batch, want", [
    # op N (q K^T a head, NT): the single GEMV's row rule (session 46's A/B: fastest or within 1%)
    (1024, 128, "N", 256, ("N", 1, 4, 1)),  # a warp a row, 4 rows a warp
    (2048, 64, "N", 384, ("N", 2, 2, 1)),  # head dim 64: 16 lanes a row
    (4096, 4096, "N", 32, ("N", 1, 1, 8)),  # long rows: 8 float4 loads a lane (479.1 us against 502.9 at 4)
    # op T (p V a head, NN): 128-column strips where the batch's strips make 1.5 blocks an SM, else narrower
    (1024, 128, "T", 256, ("T", 32, 8, 8)),  # 256 blocks: 31.7 us against 32.5 on 64-column strips; 8 rows in flight
    (4096, 128, "T", 64, ("T", 8, 32, 8)),  # 64 entries: 32-column strips, 256 blocks (31.8 us against 46.2)
    (128, 128, "T", 32, ("T", 8, 32, 4)),
    (2048, 64, "T", 384, ("T", 16, 16, 4)),  # 384 blocks, more than 2 an SM: 4 rows in flight (47.2 us against 48.3)
    # 80 columns: one 128-column strip, float4 past N (31.0 us against 36.6 on strips of 16 that tile them, b_78a0360)
    (1500, 80, "T", 256, ("T", 32, 8, 8)),
    (1024, 112, "T", 128, ("T", 16, 16, 8)),  # 112 columns, 128 entries: 64-column strips (15.6 us against 17.7)
    (2048, 96, "T", 64, ("T", 8, 32, 8)),  # 96 columns: strips of 32, 192 blocks
])
def test_batched_gemv_rule_as_measured(rows, cols, op, batch, want):
    from regtile.codegen.batch_choice import batched_gemv
    cfg = batched_gemv(rows, cols, op, batch, 132)
    assert cfg is not None and cfg.batched
    if op == "N":
        assert (op, cfg.rows_per_warp, cfg.row_groups, cfg.unroll) == want
    else:
        assert (op, cfg.threads_x, cfg.threads_y, cfg.unroll) == want
        assert cfg.warp_reduce == (cfg.threads_x < 32)


def test_batched_gemv_rule_leaves_few_blocks_to_the_gemm_members():
    """Where the batch's blocks would leave more than half the SMs empty, each block walking a long matrix alone."""
    from regtile.codegen.batch_choice import batched_gemv
    assert batched_gemv(200, 300, "T", 5, 132) is None  # 5 entries of 10 strips of 32 columns: 50 blocks
    assert batched_gemv(1000, 1, "T", 8, 132) is None
    assert batched_gemv(100000, 128, "T", 2, 132) is None and batched_gemv(64, 100000, "N", 2, 132) is None
    assert batched_gemv(200, 300, "T", 7, 132) is not None  # 70 blocks


DECODE_MATRICES = ((1024, 128), (4096, 128), (512, 64), (77, 64), (2048, 130), (1000, 517), (64, 4096))


def test_batched_gemv_decode_pick_compiles_with_float4_loads():
    """The fast tier's check (every config of the rule on every arch: the slow tier, below): p V's pick on 64 entries of
    4096 x 128 (32-column strips, 8 rows in flight, warp shuffles) compiles for sm_90 without spills, LDG.128 in its SASS."""
    from regtile.codegen.batch_choice import batched_gemv
    cfg = batched_gemv(4096, 128, "T", 64, 132)
    src = emit_cuda(cfg)
    art = compile_source(src, "sm_90")
    assert art.resources.spill_free and (cfg.threads_x, cfg.unroll, cfg.warp_reduce) == (8, 8, True)
    assert instruction_mix(function_of(art.cubin, src.name)[1].instructions).get("LDG.128", 0) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("arch, which", [(a, w) for a in ("sm_80", "sm_86", "sm_89", "sm_90") for w in ("N", "T")])
def test_batched_gemv_rule_configs_compile_spill_free(arch, which):
    """The rule's configs on decode shapes (heads of 64 and 128, ragged ones; batches of 64 and 512: op T's strips of
    32-128 columns) compile for every arch without spills, the SASS of the float4 ones with its 128-bit loads."""
    from regtile.codegen.batch_choice import batched_gemv
    seen = {batched_gemv(rows, cols, which, batch, 132) for rows, cols in DECODE_MATRICES for batch in (64, 512)}
    assert len(seen) >= 4
    for cfg in seen:
        src = emit_cuda(cfg)
        art = compile_source(src, arch)
        assert art.resources.spill_free, cfg.describe()
        if arch == "sm_90" and cfg.vec == 4:
            mix = instruction_mix(function_of(art.cubin, src.name)[1].instructions)
            assert mix.get("LDG.128", 0) >= 1, (cfg.describe(), mix)


# ---- op T strips past N (session 47: emit_sgemv.VEC_BLOCK_TEST) ----------------------------------------------------
def test_strips_past_n_read_float4_where_rows_are_in_flight():
    """With 4 or more rows in flight a thread, a block whose strip reaches past N reads float4s where N is a multiple
    of 4 (the threads past N start at the row's last float4); with fewer (unroll 1-3, emit_sgemv.PAST_N_MIN_UNROLL)
    the kernel keeps the whole-strip test and clamp of before, text and all, since the clamp made ptxas spill them
    (run b_78a0360)."""
    from regtile.codegen import emit_sgemv
    deep = emit_cuda(SgemvTConfig(16, 16, 4, 4)).text
    assert "(strip0 + 64 <= N || N % 4 == 0) && lda % 4 == 0" in deep
    assert "const float* const a = A + min(first, N - (vec_block ? 4 : 1));" in deep
    for one in (emit_cuda(SgemvTConfig(32, 2, 4, 1)).text, emit_cuda(SgemvTConfig(32, 2, 4, 2)).text):
        assert "const bool vec_block = strip0 + 128 <= N && lda % 4 == 0" in one
        assert "const float* const a = A + min(first, N - 1);" in one and "N % 4 == 0" not in one
        assert emit_sgemv.WHOLE_STRIP_TEST.format(strip=128) in one
    scalar = emit_cuda(SgemvTConfig(4, 16, 1, 4)).text
    assert "vec_block" not in scalar and "const float* const a = A + min(first, N - 1);" in scalar
    from regtile.codegen.fewvec_config import FewVecTConfig
    assert "N % 4 == 0" in emit_cuda(FewVecTConfig(4)).text


# Shapes whose op T rule configs spilled on sm_90 in run b_78a0360 with the float4-past-N clamp in every kernel
# (32x2, 32x4 and 16x4 threads, one row in flight), and their neighbours with more rows.
RULE_T_SHAPES = [(2, 1 << 20), (3, 4099), (3, 60), (300, 60), (4096, 80), (1000, 100), (65536, 1000), (7, 3)]


@pytest.mark.parametrize("arch", tiered(["sm_80", "sm_86", "sm_89", "sm_90"], fast={"sm_90"}))
def test_op_t_rule_configs_compile_spill_free(arch):
    from regtile.runtime.compiler import compile_config
    for m, n in RULE_T_SHAPES:
        cfg = choose_gemv(m, n, "T", 132)[0]
        compile_config(cfg, arch)  # SpillError otherwise


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_90"])
def test_op_t_tiles_compile_spill_free_with_any_rows_in_flight(arch):
    """Every float4 op T tile of 64-512 threads, 1-8 rows in flight, with and without warp shuffles, compiles
    spill-free: where the float4-past-N clamp would spill (PAST_N_MIN_UNROLL), the kernel keeps the clamp of before."""
    from regtile.runtime.compiler import compile_config
    for tx in (4, 8, 16, 32):
        for ty in (2, 4, 8, 16, 32, 64):
            for unroll in (1, 2, 4, 8):
                for warp_reduce in (False, True):
                    if not 64 <= tx * ty <= 512 or (warp_reduce and tx == 32):
                        continue
                    compile_config(SgemvTConfig(tx, ty, 4, unroll, warp_reduce=warp_reduce), arch)
