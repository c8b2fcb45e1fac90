"""Operand layouts (trans_a, trans_b) and strided batches generated into the kernels (issue 19
items 3, 4): the config fields, the copy mapping, the PTX backend's results on the CPU
interpreter (tests/codegen/ptx_sim.py) against float64, and compiles on both backends without spills.

The default layouts' text is pinned by tests/codegen/test_layouts_golden.py."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import ptx_sim  # noqa: E402

from regtile.codegen import mapping as mp  # noqa: E402
from regtile.codegen.config import ConfigError, SgemmConfig  # noqa: E402
from regtile.codegen.edges import Part, edge_config, part_offsets  # noqa: E402
from regtile.codegen.emit import emit  # noqa: E402
from regtile.codegen.emit_cuda import kernel_name  # noqa: E402
from regtile.codegen.kernel import BATCH_PARAMS, SGEMM_PARAMS  # noqa: E402
from regtile.codegen.presets import get_preset  # noqa: E402

LAYOUTS = [(False, False), (False, True), (True, False), (True, True)]
IDS = ["NN", "NT", "TN", "TT"]
# a small double-buffered float4 kernel (64 threads): the interpreter runs it in about a second
SMALL = SgemmConfig(bm=32, bn=32, bk=8, tm=4, tn=4, stages=2, vec=4, a_transposed=True, reg_prefetch=True,
                    mapping="zorder")


# ---- the config -----------------------------------------------------------------------------
def test_flags_left_out_of_dict_at_their_defaults():
    z = get_preset("zorder").config
    assert "trans_a" not in z.to_dict() and "batched" not in z.to_dict()
    t = z.replace(trans_a=True, batched=True)
    assert t.to_dict()["trans_a"] is True and t.to_dict()["batched"] is True
    assert SgemmConfig.from_dict(t.to_dict()) == t
    z1 = z.replace(min_blocks=1)
    names = {kernel_name(z1.replace(trans_a=a, trans_b=b)) for a, b in LAYOUTS}
    assert len(names) == 4 and kernel_name(z1) in names
    assert "layout TN" in z.replace(trans_a=True).describe() and "strided batch" in t.describe()
    assert z.layout == "NN" and z1.replace(trans_b=True).layout == "NT"


def test_batched_refusals_name_the_constraint():
    z = get_preset("zorder").config
    for bad in (dict(stream_k=True), dict(edge_split=True)):
        with pytest.raises(ConfigError, match="batched=True"):
            z.replace(batched=True, **bad)
    assert z.replace(batched=True, split_k=2).split_k == 2  # since session 45: a batch split over K
    with pytest.raises(ConfigError, match="trans_a"):
        z.replace(trans_a=1)


def test_transposed_b_costs_a_register_a_copy():
    """B^T lands in Bs a float at a time; at the zorder preset's cap (2 blocks/SM, 128 registers)
    ptxas spilled the CUDA C NT kernel, so validation refuses it and names min_blocks."""
    z = get_preset("zorder").config
    assert z.replace(trans_b=True, min_blocks=1).register_estimate() == z.register_estimate() + 1
    assert z.replace(trans_a=True).register_estimate() == z.register_estimate()
    with pytest.raises(ConfigError, match="min_blocks"):
        z.replace(trans_b=True)


def test_batch_params_come_after_ldc():
    for backend in ("cuda", "ptx"):
        src = emit(SMALL.replace(batched=True), backend)
        assert src.params == SGEMM_PARAMS + BATCH_PARAMS
        assert src.geometry.grid(70, 40, 5) == (2, 3, 5)
    ranges = emit(SMALL.replace(stream_k=True, trans_b=True), "ptx").ranges
    assert [p for p, _ in ranges.params][:11] == [p for p, _ in SGEMM_PARAMS]


def test_edge_kernel_gets_the_layouts():
    cfg = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, stream_k=True, edge_split=True,
                                              trans_a=True, trans_b=True)
    src = emit(cfg, "ptx")
    assert edge_config(cfg).trans_a and edge_config(cfg).trans_b and not edge_config().trans_a
    assert src.edge.name == emit(edge_config(cfg), "ptx").name
    # a part's operand offsets follow the layouts
    p = Part("edge", 128, 256, 10, 20)
    assert part_offsets(cfg, p.row0, p.col0, 1000, 2000, 3000) == (128, 256 * 2000, 128 * 3000 + 256)
    assert part_offsets(edge_config(), p.row0, p.col0, 1000, 2000, 3000) == (128 * 1000, 256, 128 * 3000 + 256)



def test_the_chooser_runs_tn_in_the_swirl_order_and_batches_with_the_pass():
    """TN on the large kernel takes the swirl FFMA order (measured 1.017 / 1.001x cuBLAS at
    4096^3 / 8192^3 against 0.993 / 0.970x with zigzag: layouts.SWIRL_TN_TILE); the other
    layouts, other tiles and the batched forms keep their order; batched forms keep the pass."""
    from regtile.codegen.heuristic import choose_kernel
    from regtile.codegen.layouts import SWIRL_TN_TILE, with_layout
    from regtile.codegen.presets import FAMILY
    for size in (4096, 8192):
        for ta, tb in ((False, False), (True, False), (False, True), (True, True)):
            cfg, backend = choose_kernel(size, size, size, "sm_90", 132, ta, tb)
            assert (cfg.bm, cfg.bn, cfg.tm, cfg.tn) == SWIRL_TN_TILE and cfg.sass_pass and backend == "ptx"
            assert cfg.ffma_order == ("swirl" if (ta, tb) == (True, False) else "zigzag")
            assert cfg.register_estimate() <= cfg.register_cap()
    for name in ("sq-128x128", "tall-256x128", "plain-64x64"):
        assert with_layout(FAMILY[name].config, True, False).ffma_order == "zigzag"
    wide = FAMILY["wide-128x256"].config
    assert with_layout(wide, True, False, batched=True).ffma_order == "zigzag"
    assert with_layout(wide.replace(sass_pass=False), True, False).ffma_order == "zigzag"
    for name in ("sq-128x128", "wide-128x256"):
        assert with_layout(FAMILY[name].config, False, False, batched=True).sass_pass
# ---- the copy mapping -----------------------------------------------------------------------
@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
def test_copies_cover_each_tile_once_along_the_unit_stride(ta, tb):
    cfg = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, trans_a=ta, trans_b=tb)
    for operand, shape, n, element, coords in (
            ("A", (cfg.bm, cfg.bk), cfg.a_loads_per_thread, mp.a_copy_element, mp.a_element),
            ("B", (cfg.bk, cfg.bn), cfg.b_loads_per_thread, mp.b_copy_element, mp.b_element)):
        seen = np.zeros(shape, int)
        for tid in range(cfg.threads):
            for r in range(n):
                first = coords(cfg, *element(cfg, tid, r, 0))
                for e in range(cfg.vec):
                    x, y = element(cfg, tid, r, e)
                    seen[x, y] += 1
                    line, off = coords(cfg, x, y)  # consecutive floats of one stored row
                    assert (line, off) == (first[0], first[1] + e)
        assert (seen == 1).all(), operand


def _bank_numbers(cfg):
    from regtile.codegen.plan import make_plan
    from regtile.codegen.smem_banks import analyze
    rep = analyze(make_plan(cfg), 4096, 4096, 4096)
    return rep.per_warp_ktile()


def test_bank_conflicts_of_the_transposed_copies():
    """Stores per warp k-tile of the sm_90 default block (128x256x8, 8x16, vec 4): B^T lands in
    Bs[k][n] a float at a time, lanes 2t and 2t+1 (one 32-byte sector of a row of B^T) four
    rows apart - 256 floats, one bank - so each STS.32 is 2-way without padding and
    conflict-free with pad_b=4; A^T lands in As[k][m] as STS.128 without conflicts."""
    base = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1)
    nn = _bank_numbers(base)["STS"]
    tn = _bank_numbers(base.replace(trans_a=True))["STS"]
    nt = _bank_numbers(base.replace(trans_b=True))["STS"]
    nt_pad = _bank_numbers(base.replace(trans_b=True, pad_b=4))["STS"]
    # NN: 4 STS.32 (A into the transposed As) + 2 STS.128 (B) = 12 wavefronts
    assert (nn["instructions"], nn["wavefronts"], nn["conflicts"]) == (6, 12, 0)
    # TN: A^T is already along M: 1 STS.128 instead of 4 STS.32
    assert (tn["instructions"], tn["wavefronts"], tn["conflicts"]) == (3, 12, 0)
    # NT: 8 STS.32 of B^T, each 2-way: 8 wavefronts of conflicts; pad_b=4 removes them
    assert (nt["instructions"], nt["wavefronts"], nt["conflicts"]) == (12, 20, 8)
    assert (nt_pad["wavefronts"], nt_pad["conflicts"]) == (12, 0)
    for kw in (dict(trans_a=True), dict(trans_b=True)):  # the fragment loads do not change
        assert _bank_numbers(base.replace(**kw))["LDS"] == _bank_numbers(base)["LDS"]


# ---- results on the PTX interpreter ---------------------------------------------------------
def _check(c, ref, c0, n):
    got = c[..., :n]
    assert not np.isnan(got).any(), f"{int(np.isnan(got).sum())} elements of C unwritten"
    err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30)
    assert err < 1e-5, err
    assert np.array_equal(c[..., n:], c0[..., n:], equal_nan=True)


def _ld(ta, tb, m, n, k, pad):
    return ((m if ta else k) + pad, (k if tb else n) + pad, n + 2 * pad)


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
def test_layouts_on_the_interpreter(ta, tb):
    src = emit(SMALL.replace(trans_a=ta, trans_b=tb), "ptx")
    # ragged and misaligned: the per-float paths
    m, n, k = 37, 35, 19
    lda, ldb, ldc = _ld(ta, tb, m, n, k, 1)
    _check(*ptx_sim.run_sgemm(src, m, n, k, 0.5, -1.5, lda=lda, ldb=ldb, ldc=ldc, misalign=(1, 2, 3),
                              trans_a=ta, trans_b=tb, seed=1)[:3], n)
    # whole tiles, aligned: the unchecked float4 paths
    _check(*ptx_sim.run_sgemm(src, 32, 32, 16, 1.0, 0.0, trans_a=ta, trans_b=tb, seed=2)[:3], 32)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)], ids=["NN", "TT"])
def test_batched_on_the_interpreter_with_broadcast(ta, tb):
    src = emit(SMALL.replace(trans_a=ta, trans_b=tb, batched=True), "ptx")
    m, n, k = 33, 20, 12
    a_size = (k * m) if ta else (m * k)
    c_size = m * n
    # A broadcast (stride 0), B with a gap between matrices, C packed
    b_size = (n * k) if tb else (k * n)
    out = ptx_sim.run_sgemm(src, m, n, k, 1.0, 0.25, trans_a=ta, trans_b=tb, batch=3,
                            strides=(0, b_size + 4, c_size), seed=3)
    _check(*out[:3], n)
    assert a_size  # every batch read the one A


@pytest.mark.slow
@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
@pytest.mark.parametrize("name", ["zorder", "naive", "tile1d"])
def test_presets_layouts_on_the_interpreter(name, ta, tb):
    src = emit(get_preset(name).config.replace(trans_a=ta, trans_b=tb, min_blocks=1), "ptx")
    m, n, k = 33, 70, 20
    lda, ldb, ldc = _ld(ta, tb, m, n, k, 3)
    _check(*ptx_sim.run_sgemm(src, m, n, k, 1.0, 0.5, lda=lda, ldb=ldb, ldc=ldc, misalign=(1, 2, 3),
                              trans_a=ta, trans_b=tb)[:3], n)


# ---- compiles: both backends, every layout, no spills ---------------------------------------
def _compile(cfg, backend, arch):
    from regtile.runtime.compiler import compile_config
    art = compile_config(cfg, arch, use_cache=False, backend=backend)
    assert art.resources.spill_free, art.resources


@pytest.mark.parametrize("backend", ["cuda", "ptx"])
def test_transposed_batched_kernel_compiles_spill_free(backend):
    _compile(SMALL.replace(trans_a=True, trans_b=True, batched=True), backend, "sm_90")


DEFAULT_90 = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True,
                                                 edge_split=True)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_90"])
@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
def test_layouts_compile_spill_free_everywhere(arch, ta, tb):
    z = get_preset("zorder").config.replace(trans_a=ta, trans_b=tb, min_blocks=1)
    _compile(z, "cuda", arch)
    _compile(z.replace(split_k=3), "cuda", arch)
    _compile(z.replace(batched=True), "cuda", arch)
    _compile(get_preset("naive").config.replace(trans_a=ta, trans_b=tb, batched=True), "cuda", arch)
    _compile(DEFAULT_90.replace(trans_a=ta, trans_b=tb, sass_pass=arch == "sm_90"), "ptx", arch)  # the pass is sm_90's
    _compile(z.replace(batched=True), "ptx", arch)
    _compile(get_preset("tile1d").config.replace(trans_a=ta, trans_b=tb, batched=True), "ptx", arch)
