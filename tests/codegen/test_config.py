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
    (dict(bm=128, bn=256, bk=8, tm=4, tn=8), "1024 threads x min_blocks=1 leave 64 a thread"),
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


# ---- issue 8: the register rules, and configs the sweep saw spill ---------------------
_ZORDER = get_preset("zorder").config


@pytest.mark.parametrize("cfg_kwargs, needle", [
    (dict(bm=32, bn=32, bk=32, tm=1, tn=1, min_blocks=3), "3072 threads, more than the 2048 an SM runs"),
    (dict(_ZORDER.to_dict(), min_blocks=3), "min_blocks=3: 3 blocks of 256 threads cap registers at 80"),
    (dict(get_preset("tile1d").config.to_dict(), split_k=2, ffma_order="swirl"),
     "split_k=2: a split-K kernel without the double-buffered loop .* needs ffma_order='zigzag'"),
    (dict(get_preset("tile2d").config.to_dict(), bk=16), "16 scalar loads per thread per k-tile"),
    (dict(_ZORDER.to_dict(), bk=16), "needs about 158 registers a thread .* min_blocks=2 leave 128 a thread"),
    (dict(_ZORDER.to_dict(), ffma_order="swirl"), "needs about 138 registers"),
])
def test_register_rules_name_their_constraint(cfg_kwargs, needle):
    with pytest.raises(ConfigError, match=needle):
        SgemmConfig.from_dict(cfg_kwargs)


# Configs that compiled with spills for sm_90 in the issue-8 sweep (backend, registers,
# spill-store bytes, ptxas 13.0): validation refuses each.
SPILLED = [
    ({"bm": 128, "bn": 128, "bk": 8, "tm": 8, "tn": 8, "warps": [1, 8], "mapping": "zorder", "split_tile": True,
      "stages": 2, "a_transposed": True, "pad_a": 4, "vec": 4, "reg_prefetch": True, "min_blocks": 2,
      "ffma_order": "swirl"}, "cuda 128 regs, 12 B"),
    ({"bm": 128, "bn": 128, "bk": 16, "tm": 8, "tn": 8, "warps": [1, 8], "mapping": "zorder", "split_tile": True,
      "stages": 2, "a_transposed": True, "pad_a": 4, "vec": 4, "reg_prefetch": True, "min_blocks": 2},
     "cuda 128 regs, 88 B"),
    ({"bm": 128, "bn": 256, "bk": 16, "tm": 8, "tn": 16, "warps": [8, 1], "mapping": "zorder", "split_tile": True,
      "stages": 2, "a_transposed": True, "pad_a": 4, "vec": 4, "reg_prefetch": True}, "cuda 255 regs, 32 B"),
    ({"bm": 32, "bn": 32, "bk": 16, "tm": 8, "tn": 1, "warps": [2, 2], "mapping": "zorder", "pad_b": 4,
      "ffma_order": "colzig", "split_k": 4, "sass_pass": True}, "cuda 72 regs, 12 B"),
    ({"bm": 64, "bn": 128, "bk": 8, "tm": 2, "tn": 8, "warps": [2, 8], "a_transposed": True, "pad_a": 1, "pad_b": 4,
      "reg_prefetch": True, "min_blocks": 3, "ffma_order": "swirl"}, "cuda 40 regs, 32 B"),
    ({"bm": 256, "bn": 64, "bk": 32, "tm": 4, "tn": 16, "warps": [8, 1], "mapping": "zorder", "split_tile": True,
      "stages": 0, "min_blocks": 2, "ffma_order": "swirl"}, "ptx 128 regs, 32 B"),
    ({"bm": 64, "bn": 64, "bk": 16, "tm": 8, "tn": 16, "warps": [1, 1], "a_transposed": True, "pad_a": 4, "pad_b": 4,
      "vec": 4, "ffma_order": "colzig"}, "cuda 255 regs, 112 B"),
    ({"bm": 32, "bn": 32, "bk": 32, "tm": 1, "tn": 8, "warps": [1, 4], "stages": 2, "a_transposed": True,
      "min_blocks": 4, "ffma_order": "colzig", "split_k": 2}, "cuda 128 regs, 20 B"),
    ({"bm": 64, "bn": 32, "bk": 16, "tm": 4, "tn": 2, "warps": [4, 2], "mapping": "zorder", "pad_b": 4,
      "min_blocks": 3, "ffma_order": "colzig"}, "cuda 80 regs, 12 B"),
    ({"bm": 128, "bn": 64, "bk": 32, "tm": 4, "tn": 2, "warps": [1, 32], "mapping": "zorder", "pad_a": 1,
      "sass_pass": True}, "cuda 64 regs, 16 B"),
    ({"bm": 32, "bn": 128, "bk": 16, "tm": 4, "tn": 4, "warps": [4, 2], "mapping": "zorder", "stages": 2,
      "pad_a": 4, "pad_b": 4, "reg_prefetch": True, "ffma_order": "swirl"}, "cuda 128 regs, 4 B"),
    ({"bm": 128, "bn": 128, "bk": 16, "tm": 16, "tn": 8, "warps": [1, 4], "mapping": "zorder", "split_tile": True,
      "stages": 2, "a_transposed": True, "pad_a": 4, "vec": 4, "reg_prefetch": True}, "cuda 255 regs, 160 B"),
]


@pytest.mark.parametrize("d, seen", SPILLED, ids=[s for _, s in SPILLED])
def test_configs_that_spilled_in_the_sweep_are_refused(d, seen):
    with pytest.raises(ConfigError):
        SgemmConfig.from_dict(d)


def test_presets_default_kernel_and_tuning_winners_are_accepted():
    from regtile.runtime.choice import default_sgemm_kernel
    from regtile.tools.tune import candidate_configs
    for name in preset_names():
        cfg = get_preset(name).config
        assert cfg.register_estimate() <= cfg.register_cap()
        SgemmConfig.from_dict(dict(cfg.to_dict(), sass_pass=True))
    default, backend = default_sgemm_kernel(8192, 8192, "sm_90", 132)
    assert backend == "ptx" and default.register_estimate() <= default.register_cap()
    space = set(candidate_configs())
    # docs/tuning.md's winners: 256x128x8 16x8 (every warp layout), 128x256x8 8x16, 64x64x16 8x8
    winners = [c for c in space if (c.bm, c.bn, c.bk, c.tm, c.tn) in
               {(256, 128, 8, 16, 8), (128, 256, 8, 8, 16), (64, 64, 16, 8, 8)}]
    assert {(c.bm, c.bk, c.warps) for c in winners if c.bm == 256} >= {(256, 8, w) for w in
                                                                        [(1, 8), (2, 4), (4, 2), (8, 1)]}
    assert any(c.bn == 256 for c in winners) and any(c.bm == 64 for c in winners)
    assert len(space) >= 170  # 224 before issue 8; 172 after (bk=16 16x8/8x16 tiles and their spills left)
