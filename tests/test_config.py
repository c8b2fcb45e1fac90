"""Config validation: every refusal names its constraint; valid configs are canonical and hashable."""
import pytest

from regtile.codegen.config import ConfigError, SgemmConfig
from regtile.codegen.presets import PRESETS, get_preset, preset_names


def test_presets_walk_the_seed_ladder_in_order():
    assert preset_names() == ("naive", "smem", "tile1d", "tile2d", "tile2d-reg", "vec4", "dbuf", "pad", "zorder", "zorder-256x128")


def test_config_is_frozen_hashable_and_round_trips():
    cfg = get_preset("zorder").config
    assert hash(cfg) == hash(SgemmConfig.from_dict(cfg.to_dict()))
    assert SgemmConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(Exception):
        cfg.bm = 64  # frozen
    assert len({p.config for p in PRESETS.values()}) == len(PRESETS)


def test_default_warps_are_derived_and_canonical():
    assert SgemmConfig(bm=128, bn=128, tm=8, tn=8).warps == (8, 1)
    assert SgemmConfig(bm=128, bn=128, tm=8, tn=8) == SgemmConfig(bm=128, bn=128, tm=8, tn=8, warps=(8, 1))


@pytest.mark.parametrize("kwargs, needle", [
    (dict(bm=100, tm=8), "bm=100 is not a multiple of tm=8"),
    (dict(bn=128, tn=6), "bn=128 is not a multiple of tn=6"),
    (dict(bm=16, bn=16, tm=4, tn=4), "not a multiple of 32"),
    (dict(bm=256, bn=256, tm=2, tn=2), "exceeds 1024"),
    (dict(warps=(2, 2)), "warps_m*warps_n must equal"),
    (dict(mapping="hilbert"), "mapping='hilbert'"),
    (dict(stages=3), "stages=3"),
    (dict(vec=2), "vec=2"),
    (dict(vec=4, a_transposed=False), "a_transposed=True"),
    (dict(vec=4, a_transposed=True, pad_a=2), "multiples of 4"),
    (dict(reg_prefetch=True, frag_regs=False), "reg_prefetch needs frag_regs"),
    (dict(bm=128, bn=128, bk=128, tm=4, tn=4, vec=4, a_transposed=True, stages=2), "shared memory"),
    (dict(bm=128, bn=256, bk=8, tm=4, tn=8), "share the SM's 65536 registers"),
    (dict(bm=16, bn=128, bk=8, tm=4, tn=16), "loads per thread"),
    (dict(bm=256, bn=128, tm=16, tn=16, bk=8), "registers"),
    (dict(bk=0), "bk=0"),
    (dict(min_blocks=0), "min_blocks=0"),
    (dict(ffma_order="spiral"), "ffma_order='spiral'"),
    (dict(min_blocks=4), "min_blocks=4"),
    (dict(pad_a=-1), "pad_a=-1"),
    (dict(bm=32, bn=32, bk=32, tm=1, tn=1, mapping="zorder"), "zorder"),
    (dict(bm=128, bn=128, bk=4, vec=4, a_transposed=True, tm=8, tn=8, stages=1), "multiple of vec*threads"),
])
def test_invalid_configs_name_the_constraint(kwargs, needle):
    with pytest.raises(ConfigError) as e:
        SgemmConfig(**kwargs)
    assert needle in str(e.value)


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(ConfigError, match="known presets: naive"):
        get_preset("fastest")


def test_from_dict_refuses_unknown_fields():
    with pytest.raises(ConfigError, match="unknown config field"):
        SgemmConfig.from_dict({"bm": 128, "blocksize": 3})
