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
    assert mix.get("STG.32", 0) == 1


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


def test_shape_rule_splits_few_long_rows():
    from regtile.codegen.sgemv_config import config_for_shape
    assert config_for_shape(4096, 16384).warps_per_row == 4
    assert config_for_shape(16384, 4096).warps_per_row == 1
    assert config_for_shape(65536, 1024).warps_per_row == 1
    assert config_for_shape(4, 100).warps_per_row == 1  # short rows: no split
    assert config_for_shape(1 << 20, 16) == config_for_width(16)
