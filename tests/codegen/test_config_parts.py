"""The three parts of an SgemmConfig: TileConfig, Decomposition, BuildOptions.

Each part validates itself (a ConfigError naming the constraint), round-trips through its
dict, and has a stable digest; SgemmConfig checks the rules across parts, keeps the flat
spelling (keywords, attributes, replace, the flat dict) and reads old flat dicts."""
import copy
import dataclasses
import pickle
import re

import pytest

from regtile.codegen.config import (FLAT_FIELDS, BuildOptions, ConfigError, Decomposition, SgemmConfig,
                                    TileConfig)
from regtile.codegen.emit import emit
from regtile.codegen.presets import FAMILY, PRESETS, get_preset

ALL = [p.config for p in PRESETS.values()] + [m.config for m in FAMILY.values()]


@pytest.mark.parametrize("make, needle", [
    (lambda: TileConfig(bm=100, tm=8), "bm=100 is not a multiple of tm=8"),
    (lambda: TileConfig(stages=3), "stages=3"),
    (lambda: TileConfig(trans_a=1), "trans_a=1: must be True or False"),
    (lambda: TileConfig(split_tile=1), "split_tile=1: must be True or False"),
    (lambda: TileConfig(frag_regs=0), "frag_regs=0: must be True or False"),
    (lambda: TileConfig(stages=True), "stages=True: must be an integer >= 0"),
    (lambda: TileConfig(vec=4.0), "vec=4.0: must be an integer >= 1"),
    (lambda: TileConfig(bm=256, bn=128, tm=16, tn=16), "registers"),
    (lambda: Decomposition(split_k=0), "split_k=0: must be an integer >= 1"),
    (lambda: Decomposition(split_k=33), "split_k=33: at most 32"),
    (lambda: Decomposition(split_k=2, stream_k=True), "two ways of splitting K"),
    (lambda: Decomposition(edge_split="yes"), "edge_split='yes': must be True or False"),
    (lambda: BuildOptions(sass_pass=1), "sass_pass=1: must be True or False"),
])
def test_each_part_validates_itself(make, needle):
    with pytest.raises(ConfigError, match=re.escape(needle)):
        make()


@pytest.mark.parametrize("tile, decomposition, needle", [
    (dict(stages=0), dict(stream_k=True), "stream_k=True needs a shared-memory loop"),
    (dict(stages=1, ffma_order="colzig"), dict(split_k=2), "needs ffma_order='zigzag'"),
    (dict(batched=True), dict(edge_split=True), "batched=True with stream_k or edge_split"),
])
def test_rules_across_parts_are_checked_where_they_meet(tile, decomposition, needle):
    t, d = TileConfig(**tile), Decomposition(**decomposition)  # each valid on its own
    with pytest.raises(ConfigError, match=re.escape(needle)):
        SgemmConfig(tile=t, decomposition=d)
    with pytest.raises(ConfigError, match=re.escape(needle)):
        SgemmConfig(**tile, **decomposition)  # the flat spelling meets the same rule


def test_wrong_part_types_and_unknown_fields_are_refused():
    with pytest.raises(ConfigError, match="tile=.*must be a TileConfig"):
        SgemmConfig(tile=Decomposition())
    with pytest.raises(ConfigError, match=r"unknown config field\(s\) \['blocksize'\]"):
        SgemmConfig(blocksize=3)
    with pytest.raises(ConfigError, match="unknown decomposition field"):
        SgemmConfig.from_dict({"decomposition": {"bm": 64}})


def test_flat_keywords_route_to_their_parts_and_read_through():
    cfg = SgemmConfig(bm=64, tm=4, stages=2, split_k=4, sass_pass=True, trans_b=True)
    assert cfg.tile == TileConfig(bm=64, tm=4, stages=2, trans_b=True)
    assert cfg.decomposition == Decomposition(split_k=4) and cfg.build == BuildOptions(sass_pass=True)
    assert (cfg.bm, cfg.split_k, cfg.sass_pass, cfg.layout, cfg.threads) == (64, 4, True, "NT", 256)
    assert {name for name in FLAT_FIELDS if getattr(cfg, name) != getattr(SgemmConfig(), name)} == {
        "bm", "tm", "stages", "split_k", "sass_pass", "trans_b"}


def test_replace_changes_one_part_and_keeps_the_others():
    cfg = get_preset("zorder").config
    more = cfg.replace(split_k=4)
    assert more.tile is cfg.tile and more.build is cfg.build and more.split_k == 4
    assert dataclasses.replace(cfg, sass_pass=True) == cfg.replace(build=BuildOptions(sass_pass=True))
    assert cfg.replace(tile=cfg.tile.replace(trans_a=True)).trans_a
    assert more.replace(decomposition=Decomposition()) == cfg


def test_equality_and_hash_are_those_of_every_field():
    a, b = SgemmConfig(bm=64, tm=4), SgemmConfig(tile=TileConfig(bm=64, tm=4))
    assert a == b and hash(a) == hash(b) and len({a, b, a.replace(sass_pass=True)}) == 2
    assert hash(a) == hash((a.tile, a.decomposition, a.build))  # cached once, the same value
    # pickle and copy rebuild it from its parts (the cached hash belongs to one process)
    c = pickle.loads(pickle.dumps(a))
    assert c == a and hash(c) == hash(a) and copy.deepcopy(a) == a and repr(c) == repr(a)


@pytest.mark.parametrize("cfg", ALL, ids=lambda c: c.describe()[:40])
def test_flat_and_nested_dicts_round_trip(cfg):
    assert SgemmConfig.from_dict(cfg.to_dict()) == cfg
    nested = cfg.to_dict(nested=True)
    assert set(nested) == {"tile", "decomposition", "build"} and SgemmConfig.from_dict(nested) == cfg
    for part in (cfg.tile, cfg.decomposition, cfg.build):
        assert type(part).from_dict(part.to_dict()) == part
    # the flat dict is the three parts' dicts together, in the single dataclass's field order
    flat = {**nested["tile"], **nested["decomposition"], **nested["build"]}
    assert cfg.to_dict() == flat and list(cfg.to_dict()) == [k for k in FLAT_FIELDS if k in flat]


def test_an_old_flat_dict_reads_as_before():
    # a family member as codegen/heuristic_table.json and the tuning database store it
    old = {"bm": 128, "bn": 256, "bk": 8, "tm": 8, "tn": 16, "warps": [4, 2], "mapping": "zorder",
           "split_tile": True, "stages": 2, "a_transposed": True, "pad_a": 4, "pad_b": 0, "vec": 4,
           "frag_regs": True, "reg_prefetch": True, "min_blocks": 1, "ffma_order": "zigzag",
           "sass_pass": True, "stream_k": True}
    cfg = SgemmConfig.from_dict(old)
    assert cfg.decomposition == Decomposition(stream_k=True) and cfg.build == BuildOptions(sass_pass=True)
    assert cfg.to_dict() == old
    # opt-in fields at their defaults stay out of every dict (names and digests of older configs)
    assert Decomposition().to_dict() == {} and BuildOptions().to_dict() == {}
    assert not {"trans_a", "trans_b", "batched", "edge_vector_path"} & set(TileConfig().to_dict())


def test_digests_are_stable_and_distinct():
    # pinned: a change of these strings invalidates every key built on them
    assert TileConfig().digest == "86f32c8796fa3fb1"
    assert Decomposition().digest == "2690733e4c54050b"
    assert BuildOptions().digest == "45c83db20b1de087"
    assert SgemmConfig().digest == SgemmConfig.from_dict({}).digest
    digests = {c.digest for c in ALL}
    assert len(digests) == len(set(ALL))
    cfg = get_preset("dbuf").config
    parts = {cfg.tile.digest, cfg.decomposition.digest, cfg.build.digest}
    assert len(parts) == 3  # empty parts of different kinds still differ
    assert cfg.replace(split_k=2).decomposition.digest != cfg.decomposition.digest
    assert cfg.replace(split_k=2).tile.digest == cfg.tile.digest


def test_build_options_do_not_change_what_the_kernel_computes():
    cfg = get_preset("zorder").config
    passed = cfg.replace(sass_pass=True)
    assert passed.kernel_digest == cfg.kernel_digest and passed.digest != cfg.digest
    assert cfg.replace(split_k=2).kernel_digest != cfg.kernel_digest
    assert cfg.replace(trans_b=True, min_blocks=1).kernel_digest != cfg.kernel_digest
    # The emitted text: the same but for the kernel's name and config comment, and the
    # accumulators' start at -0.0 that the pass asks for (config.py, BuildOptions.sass_pass).
    for backend, zero, neg_zero in (("cuda", "0.f", "-0.f"), ("ptx", "0f00000000", "0f80000000")):
        a, b = emit(cfg, backend), emit(passed, backend)
        assert not a.sass_pass and b.sass_pass

        def normal(src):
            text = src.text.replace(src.name, "KERNEL").replace(neg_zero, zero)
            return [line for line in text.splitlines() if "config: " not in line]

        assert a.text != b.text and normal(a) == normal(b)
