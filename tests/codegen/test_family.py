"""Issue 20's kernel family (codegen/presets.py FAMILY): every member is a valid config of the
one generator and compiles without spills - on sm_90 here (without the SASS pass, which
renames registers after ptxas and cannot add spills; its own tests are tests/sass/test_sass_pass.py),
on every supported arch behind `slow`."""
import pytest
from tiers import tiered

from regtile.codegen.config import SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.hardware import DEFAULT_SMEM_PER_BLOCK, SUPPORTED_ARCHS, needs_smem_opt_in
from regtile.codegen.heuristic import member_config
from regtile.codegen.presets import FAMILY, get_member
from regtile.runtime.compiler import compile_config


def _built(name, arch, split_k=2):
    """The member as the kernel regtile builds (split-K members with a split > 1: the split
    only sets the reduce kernel's length and a constant of the prologue), the pass left out."""
    cfg, backend = member_config(name, 48, 48, 65536, 132)
    if cfg.split_k > 1:
        cfg = cfg.replace(split_k=split_k)
    return cfg.replace(sass_pass=False), backend


def test_family_spans_the_tiles_the_issue_asks_for():
    tiles = {(m.config.bm, m.config.bn) for m in FAMILY.values()}
    assert {(32, 32), (64, 64), (128, 128), (256, 128), (128, 256)} <= tiles
    assert {(256, 64), (64, 256), (128, 64), (64, 128), (32, 64), (64, 32)} <= tiles  # tall and wide
    assert {(16, 128), (128, 16), (32, 128), (128, 32)} <= tiles  # skinny m / skinny n
    kinds = {("stream_k" if m.config.stream_k else "split_k" if m.name.startswith("splitk") else "plain")
             for m in FAMILY.values()}
    assert kinds == {"stream_k", "split_k", "plain"}
    assert all(m.backend == "cuda" for m in FAMILY.values() if m.name.startswith("splitk"))


@pytest.mark.parametrize("name", list(FAMILY))
def test_member_is_a_valid_config_within_its_register_cap(name):
    m = get_member(name)
    cfg = SgemmConfig.from_dict(m.config.to_dict())  # revalidated from its dict
    assert cfg == m.config
    assert cfg.register_estimate() <= cfg.register_cap()
    src = emit(_built(name, "sm_90")[0], m.backend)
    assert src.text and src.geometry.tile_m == cfg.bm and src.geometry.tile_n == cfg.bn


def _distinct(arch, split_k=2):
    seen, out = set(), []
    for name in FAMILY:
        cfg, backend = _built(name, arch, split_k)
        if (cfg, backend) not in seen:
            seen.add((cfg, backend))
            out.append((name, cfg, backend))
    return out


# one member of each kind in the fast tier (a compile of every member takes ~20 s)
FAST_MEMBERS = {"plain-32x32", "skinny-m16", "splitk-64x64", "sq-64x64", "tall-256x128", "wide-128x256"}
# (the fused split-K members: one compiles in tests/codegen/test_fusedk.py's fast tier)


@pytest.mark.parametrize("name", tiered(list(FAMILY), fast=FAST_MEMBERS))
def test_member_compiles_for_sm_90_without_spills(name):
    cfg, backend = _built(name, "sm_90")
    art = compile_config(cfg, "sm_90", backend=backend)  # raises SpillError on a spill
    assert art.resources.spill_free, (name, art.resources)


@pytest.mark.slow
@pytest.mark.parametrize("arch", [a for a in SUPPORTED_ARCHS if a != "sm_90"])
def test_every_member_compiles_for_every_arch_without_spills(arch):
    for name, cfg, backend in _distinct(arch, split_k=32):
        art = compile_config(cfg, arch, backend=backend)
        assert art.resources.spill_free, (name, arch, art.resources)


@pytest.mark.slow
def test_pass_members_compile_with_the_pass_on_sm_90():
    for name, m in FAMILY.items():
        if m.config.sass_pass:
            art = compile_config(m.config, "sm_90", backend=m.backend)
            assert art.resources.spill_free and art.sass_pass is not None, name


def test_shared_memory_opt_in_counts_static_and_dynamic():
    """The launch must opt in when static and dynamic shared memory together pass 48 KB, not only the dynamic part
    (a fused 128x32x16 split tile: a 48 KB ring and a static `__shared__ int`; tests/gpu/test_fusedk_gpu.py)."""
    assert not needs_smem_opt_in(0, DEFAULT_SMEM_PER_BLOCK)
    assert needs_smem_opt_in(4, DEFAULT_SMEM_PER_BLOCK)
    assert needs_smem_opt_in(0, DEFAULT_SMEM_PER_BLOCK + 16)
