"""The PTX backend (codegen/emit_ptx.py), without a GPU: every applicable preset emits
PTX that nvJitLink compiles for sm_80 and sm_90 with no spills; the SASS main loop
holds one k-tile of FFMAs and the plan's LDS.128; the PTX's FFMA order is the plan's;
parameters and launch geometry are the CUDA C backend's; refused configs raise
ConfigError; and the kernels compute C = alpha A B + beta C on a CPU PTX interpreter
(tests/codegen/ptx_sim.py: bounds, alignment and shared-memory races checked on every access)."""
import dataclasses
import random
import re
import zlib

import numpy as np
import pytest

import ptx_sim
from compiled import CompiledPresets, assert_clean_build
from tiers import tiered
from regtile.codegen.config import ConfigError, SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.emit_cuda import emit_sgemm_cuda
from regtile.codegen.emit_ptx import PTX_VERSION, emit_sgemm_ptx, ffma_sequence
from regtile.codegen.ptx_arch import for_arch, target_of
from regtile.codegen.kernel import SGEMM_PARAMS
from regtile.codegen.plan import make_plan
from regtile.codegen.presets import get_member, get_preset, preset_names
from regtile.runtime.compiler import CompileError, compile_source
from regtile.runtime.cubin_info import kernel_info
from regtile.runtime.sass import instruction_mix

PTX_PRESETS = tuple(n for n in preset_names() if get_preset(n).config.frag_regs)
VEC4 = tuple(n for n in PTX_PRESETS if get_preset(n).config.vec == 4)


@pytest.fixture(scope="module")
def built():
    return CompiledPresets(emit_sgemm_ptx)


def test_every_frag_regs_preset_is_covered():
    assert set(PTX_PRESETS) == set(preset_names()) - {"tile2d"}
    assert {"vec4", "dbuf", "pad", "zorder", "zorder-256x128"} <= set(VEC4)


@pytest.mark.parametrize("name, arch", tiered([(n, a) for n in PTX_PRESETS for a in ("sm_80", "sm_90")],
                                              fast={("tile1d", "sm_80"), ("zorder", "sm_90"),
                                                    ("zorder-256x128", "sm_90")}))
def test_preset_compiles_without_spills(built, name, arch):
    src, art, _ = built[name, arch]
    assert_clean_build(src, art)
    assert art.compiler.startswith("nvJitLink 13.")
    assert target_of(art.ptx) == arch and f".entry {src.name}(" in art.ptx
    # the ptxas report and the cubin's own attributes agree
    info = kernel_info(art.cubin, src.name)
    assert info.registers == art.resources.registers and info.frame_bytes == 0


@pytest.mark.parametrize("name", tiered(PTX_PRESETS, fast={"naive", "zorder"}))
def test_main_loop_holds_one_k_tile_of_ffmas(built, name):
    cfg = get_preset(name).config
    _, _, func = built[name, "sm_90"]
    mix = instruction_mix(func.loop_instructions())
    per_iteration = cfg.bk * cfg.tm * cfg.tn if cfg.stages else cfg.tm * cfg.tn
    assert mix.get("FFMA", 0) == per_iteration, mix
    if cfg.stages:
        assert mix.get("BAR", 0) == (1 if cfg.stages == 2 else 2), mix


@pytest.mark.parametrize("name", tiered(VEC4, fast={"zorder"}))
def test_vec4_presets_load_fragments_with_lds128(built, name):
    cfg = get_preset(name).config
    plan = make_plan(cfg)
    planned = sum(1 for kk in range(cfg.bk) for a in plan.a_frag_loads[kk] + plan.b_frag_loads[kk] if a.width == 4)
    _, _, func = built[name, "sm_90"]
    loop = instruction_mix(func.loop_instructions())
    assert loop.get("LDS.128", 0) == planned and loop.get("LDS.32", 0) == 0, loop
    assert any(i.opcode.startswith("LDG.E.128") for i in func.instructions)
    src, _, _ = built[name, "sm_90"]
    assert "ld.global.nc.v4.f32" in src.text and "ld.shared.v4.f32" in src.text


@pytest.mark.parametrize("name", tiered(["tile2d-reg", "tile1d", "smem"], fast={"tile1d"}))
def test_scalar_presets_have_no_vector_global_loads(built, name):
    src, _, func = built[name, "sm_90"]
    assert ".v4." not in src.text
    assert not any(i.opcode.startswith("LDG.E.128") for i in func.instructions)


def _expected_ffmas(cfg):
    r = make_plan(cfg).regs
    slices = cfg.bk if cfg.stages else 1
    return [(f"%{r.acc[i][j]}", f"%{r.frag_a[kk % r.buffers][i]}", f"%{r.frag_b[kk % r.buffers][j]}",
             f"%{r.acc[i][j]}") for kk in range(slices) for i, j in r.ffma_order]


@pytest.mark.parametrize("order", ["zigzag", "colzig", "swirl", "rowmajor"])
@pytest.mark.parametrize("name", ["zorder", "zorder-256x128", "vec4", "tile1d", "naive"])
def test_ptx_ffma_order_is_the_plans(name, order):
    # min_blocks=1: at the zorder preset's 128-register cap only zigzag fits (issue 8)
    cfg = get_preset(name).config.replace(ffma_order=order, min_blocks=1)
    assert ffma_sequence(emit_sgemm_ptx(cfg).text) == _expected_ffmas(cfg)


def test_odd_bk_prefetch_without_crossing_tiles_keeps_the_order():
    cfg = SgemmConfig(bm=64, bn=64, bk=3, tm=8, tn=8, stages=2, reg_prefetch=True)
    assert ffma_sequence(emit_sgemm_ptx(cfg).text) == _expected_ffmas(cfg)


def test_named_registers_come_from_the_register_plan():
    cfg = get_preset("zorder").config
    text = emit_sgemm_ptx(cfg).text
    plan = make_plan(cfg)
    declared = set(re.findall(r"%\w+", " ".join(ln for ln in text.splitlines() if ".reg .f32" in ln)))
    for name in plan.regs.all_registers():
        assert f"%{name}" in declared
    for copy in plan.a_copies + plan.b_copies:
        assert all(f"%{x}" in declared for x in copy.regs)


@pytest.mark.parametrize("name", PTX_PRESETS)
def test_same_parameters_and_geometry_as_cuda(name):
    cfg = get_preset(name).config
    ptx, cuda = emit_sgemm_ptx(cfg), emit_sgemm_cuda(cfg)
    assert ptx.params == cuda.params == SGEMM_PARAMS
    # the same launch, the PTX kernel's programmatic (emit_ptx.pdl_entry)
    assert ptx.geometry.programmatic and not cuda.geometry.programmatic
    assert dataclasses.replace(ptx.geometry, programmatic=False) == cuda.geometry
    assert ptx.name == cuda.name + "_ptx" and ptx.language == "ptx" and ptx.suffix == ".ptx"
    types = re.findall(r"\.param (\.\w+) \S+_param_(\w+)", ptx.text)
    want = {"int": ".u32", "float": ".f32", "const float*": ".u64", "float*": ".u64"}
    assert types == [(want[ctype], pname) for pname, ctype in SGEMM_PARAMS]
    assert f".version {PTX_VERSION}" in ptx.text
    assert (".extern .shared .align 16 .b8 smem[];" in ptx.text) == bool(cfg.stages)
    assert f".maxntid {cfg.threads}, 1, 1" in ptx.text


def test_retargeting_touches_the_target_and_sm90_only_occupancy():
    cfg = get_preset("zorder").config  # min_blocks=2
    t90 = emit_sgemm_ptx(cfg, "sm_90").text
    t80 = emit_sgemm_ptx(cfg, "sm_80").text
    assert for_arch(t90, "sm_80") == t80 and for_arch(t80, "sm_90") == t90
    assert re.search(r"^\.minnctapersm 2", t90, re.M) and not re.search(r"^\.minnctapersm", t80, re.M)
    # PDL's trigger and wait run on sm_90 only (emit_ptx.pdl_entry)
    assert re.search(r"^\tgriddepcontrol\.wait;", t90, re.M) and not re.search(r"^\tgriddepcontrol", t80, re.M)
    diff = [(a, b) for a, b in zip(t90.splitlines(), t80.splitlines()) if a != b]
    assert len(diff) == 4  # .target, .minnctapersm, launch_dependents, wait
    with pytest.raises(ValueError):
        for_arch(t90, "sm_75")


def test_refused_configs_name_the_constraint():
    with pytest.raises(ConfigError, match="frag_regs"):
        emit_sgemm_ptx(get_preset("tile2d").config)
    with pytest.raises(ConfigError, match="ptx"):
        emit(get_preset("sgemv-n16").config, "ptx")
    with pytest.raises(ConfigError, match="backend"):
        emit(get_preset("zorder").config, "sass")


def test_emit_dispatches_on_backend():
    cfg = get_preset("pad").config
    assert emit(cfg).language == "cuda" and emit(cfg, "cuda").text == emit_sgemm_cuda(cfg).text
    assert emit(cfg, "ptx").text == emit_sgemm_ptx(cfg).text


def test_cache_and_compile_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path))
    src = emit_sgemm_ptx(get_preset("smem").config)
    first = compile_source(src, "sm_90")
    second = compile_source(src, "sm_90")
    assert not first.from_cache and second.from_cache
    assert second.cubin == first.cubin and second.resources == first.resources
    assert not compile_source(src, "sm_80").from_cache  # the arch is in the key
    bad = dataclasses.replace(src, text=src.text.replace("bar.sync 0;", "bar.snyc 0;", 1))
    with pytest.raises(CompileError) as e:
        compile_source(bad, "sm_90", use_cache=False)
    assert "bar.snyc" in "\n".join(e.value.failing_lines)


# ---- correctness on the CPU PTX interpreter -------------------------------------------
def _check(src, m, n, k, alpha, beta, **kw):
    c, ref, c0, _ = ptx_sim.run_sgemm(src, m, n, k, alpha, beta, **kw)
    got = c[:, :n]
    assert not np.isnan(got).any(), f"{int(np.isnan(got).sum())} elements of C unwritten"
    err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30)
    assert err < 1e-5, err
    # columns beyond N (ldc > N) untouched
    assert np.array_equal(c[:, n:], c0[:, n:], equal_nan=True)


SIM_CASES = [  # m, n, k, alpha, beta, leading dims, misaligned floats of A, B, C
    (1, 1, 1, 1.0, 0.0, (None, None, None), (0, 0, 0)),
    (7, 9, 13, 0.5, -1.5, (None, None, None), (0, 0, 0)),
    (33, 70, 20, 1.0, 0.0, (21, 71, 73), (1, 2, 3)),
]


def _sim_id(case):
    return f"{case[0]}x{case[1]}x{case[2]}"


@pytest.mark.parametrize("name, case", tiered(
    [(n, c) for n in ("zorder", "pad", "naive", "tile1d") for c in SIM_CASES],
    fast={("zorder", c) for c in SIM_CASES[1:]} | {("naive", SIM_CASES[0])}),
    ids=lambda v: _sim_id(v) if isinstance(v, tuple) else v)
def test_presets_on_the_interpreter(name, case):
    m, n, k, alpha, beta, lds, mis = case
    _check(emit_sgemm_ptx(get_preset(name).config), m, n, k, alpha, beta,
           lda=lds[0], ldb=lds[1], ldc=lds[2], misalign=mis)


@pytest.mark.slow
def test_interior_and_edge_tiles_on_the_interpreter():
    """Full 128x128 tiles (the unchecked float4 path) next to edge tiles, K with a
    partial last k-tile, beta != 0."""
    _check(emit_sgemm_ptx(get_preset("zorder").config), 130, 129, 17, 0.75, 0.25)


RING_CASES = [  # m, n, k, alpha, beta, leading dims, misaligned floats: interior tiles (the unchecked
    # copies) beside edge tiles, 6 k-tiles (the ring wraps), a partial last one; then every tile on
    # the zero-filling path (rows not 16-byte aligned); then fewer k-tiles than the ring has stages
    (70, 65, 45, 1.0, 0.0, (None, None, None), (0, 0, 0)),
    (40, 37, 45, 0.5, -1.5, (47, 41, 39), (1, 2, 3)),
    (33, 34, 9, 1.0, 0.0, (None, None, None), (0, 0, 0)),
]


@pytest.mark.parametrize("stages, case", tiered(
    [(st, c) for st in (3, 4) for c in RING_CASES], fast={(3, RING_CASES[1]), (4, RING_CASES[2])}),
    ids=lambda v: _sim_id(v) if isinstance(v, tuple) else str(v))
def test_cp_async_ring_on_the_interpreter(stages, case):
    """stages >= 3 (the cp.async ring): right against float64 and race-free on the interpreter,
    which writes a cp.async's floats only when a wait_group retires its group."""
    m, n, k, alpha, beta, lds, mis = case
    cfg = get_preset("zorder").config.replace(bm=32, bn=32, tm=4, tn=4, warps=None, split_tile=False, stages=stages)
    src = emit_sgemm_ptx(cfg)
    # one wait before the loop (tile 0), one an iteration (tile kt+1, before its slice 0 is preloaded)
    assert src.text.count("cp.async.wait_group") == 2 and "ld.global.nc.v4" not in src.text
    _check(src, m, n, k, alpha, beta, lda=lds[0], ldb=lds[1], ldc=lds[2], misalign=mis)


def test_cp_async_ring_waits_for_its_tile():
    """The interpreter catches a ring that waits too little: wait_group 2 with 3 stages (in the
    prologue and the loop) reads a stage whose copies have not landed."""
    cfg = get_preset("zorder").config.replace(bm=32, bn=32, tm=4, tn=4, warps=None, split_tile=False, stages=3)
    src = emit_sgemm_ptx(cfg)
    bad = dataclasses.replace(src, text=src.text.replace("cp.async.wait_group 1;", "cp.async.wait_group 2;"))
    with pytest.raises(AssertionError):
        _check(bad, 70, 65, 45, 1.0, 0.0)


def _small_configs(count: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        d = dict(bm=rng.choice([16, 32, 64]), bn=rng.choice([16, 32, 64]), bk=rng.choice([1, 2, 4, 5, 8]),
                 tm=rng.choice([1, 2, 4, 8]), tn=rng.choice([1, 2, 4, 8]), mapping=rng.choice(["linear", "zorder"]),
                 split_tile=rng.random() < 0.3, stages=rng.choice([0, 1, 2, 2]), a_transposed=rng.random() < 0.5,
                 pad_a=rng.choice([0, 1, 4]), pad_b=rng.choice([0, 4]), vec=rng.choice([1, 4, 4]),
                 reg_prefetch=rng.random() < 0.5, ffma_order=rng.choice(["zigzag", "colzig", "swirl", "rowmajor"]))
        try:
            cfg = SgemmConfig(**d)
        except ConfigError:
            continue
        if cfg.threads <= 128:
            out.append(cfg)
    return out


_SMALL = _small_configs(14, seed=5)


@pytest.mark.parametrize("cfg", tiered(_SMALL, fast=_SMALL[:3]), ids=lambda c: c.describe()[:60])
def test_random_configs_compile_and_compute(cfg):
    src = emit_sgemm_ptx(cfg)
    art = compile_source(src, "sm_90")
    assert art.resources.spill_free
    rng = np.random.default_rng(zlib.crc32(repr(cfg).encode()))
    m, n, k = (int(x) for x in rng.integers(1, 2 * np.array([cfg.bm, cfg.bn, 3 * cfg.bk]) + 2))
    misalign = tuple(int(x) for x in rng.integers(0, 2, 3)) if cfg.vec == 4 else (0, 0, 0)
    _check(src, m, n, k, 1.5, -0.5 if rng.random() < 0.5 else 0.0, misalign=misalign)


# ---- command line --------------------------------------------------------------------------
def test_cli_gen_and_inspect_with_the_ptx_backend(tmp_path, capsys):
    import json
    from regtile.tools.cli import main
    assert main(["gen", "--preset", "pad", "--backend", "ptx", "--arch", "sm_80", "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["pad.cubin", "pad.json", "pad.ptx", "pad.sass"]
    meta = json.loads((tmp_path / "pad.json").read_text())
    assert meta["backend"] == "ptx" and meta["arch"] == "sm_80" and meta["kernel"].endswith("_ptx")
    assert ".target sm_80" in (tmp_path / "pad.ptx").read_text()
    capsys.readouterr()
    assert main(["inspect", "--preset", "zorder", "--backend", "ptx", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["backend"] == "ptx" and d["main_loop"]["instruction_mix"]["FFMA"] == 512
    pvs = d["plan_vs_sass"]
    assert len(pvs["plan_register_map"]["accumulators"]) == 64 and pvs["conflicted_ffma"] >= 0
    assert 0.0 <= pvs["ffma_order_kept"] <= 1.0
    assert main(["inspect", "--preset", "zorder", "--compare-backends"]) == 0
    out = capsys.readouterr().out
    assert "cuda" in out and "ptx" in out and "conflicted FFMA" in out and "SASS accumulators" in out
    assert main(["inspect", "--preset", "smem", "--backend", "ptx", "--rank-orders"]) == 0
    assert "swirl" in capsys.readouterr().out


def test_cli_refuses_the_ptx_backend_where_it_does_not_apply(capsys):
    from regtile.tools.cli import main
    assert main(["inspect", "--preset", "tile2d", "--backend", "ptx"]) == 2
    assert "frag_regs" in capsys.readouterr().err
    assert main(["inspect", "--preset", "sgemv-n16", "--backend", "ptx"]) == 2
    assert main(["inspect", "--preset", "sgemv-n16", "--compare-backends"]) == 2
    assert main(["inspect", "--preset", "zorder", "--backend", "ptx", "--show", "cuda"]) == 2


def test_order_kept_is_one_when_the_sass_follows_the_plan():
    """smem (1x1 thread tile) is trivially kept; a permuted plan is not."""
    from regtile.tools.backend_compare import _kinds, order_kept
    from regtile.tools.artifacts import build
    b = build("smem", get_preset("smem").config, "sm_90", backend="ptx")
    assert order_kept(make_plan(b.config), b.sass) == 1.0
    assert _kinds([(0, 0), (0, 1), (1, 1), (2, 2)]) == ["r", "c", "-"]


def _entries(text: str) -> dict:
    """{entry name: its text} of a PTX module."""
    parts = re.split(r"^\.visible \.entry ", text, flags=re.M)[1:]
    return {p[:p.index("(")]: p for p in parts}


def test_pdl_trigger_at_entry_of_the_one_pass_kernel_only():
    """The one-pass kernel lets the next kernel be scheduled from its entry, right after its wait (launch_dependents
    after griddepcontrol.wait: 26 one-pass plans 2.1% faster back to back, 5.2% in CUDA graphs, than with the trigger
    before it; emit_ptx.PDL_TRIGGER_AFTER_WAIT, session 39); stream-K's whole-tile and ranges kernels trigger at exit
    (no launch_dependents): with the ranges kernel's trigger at exit, 43 TN ring plans ran back to back 5.8% faster
    (geometric mean) than with it at entry (emit_ptx.PDL_TRIGGER_AT_ENTRY, session 38).  Both the two-stage loop's
    and the ring's kernels are checked."""
    one_pass, stream_k = get_member("plain-32x32").config, get_member("sq-32x32").config
    assert not one_pass.stream_k and stream_k.stream_k
    (main,) = _entries(emit_sgemm_ptx(one_pass, "sm_90").text).values()
    wait = main.index("griddepcontrol.wait;")
    assert wait < main.index("griddepcontrol.launch_dependents;") < wait + 200
    assert main.count("launch_dependents") == 1
    assert not re.search(r"\b(ld|st|atom|red|cp\.async)\.(?!param)", main[:wait])  # no memory touched before it
    for ring in (False, True):
        cfg = stream_k.replace(trans_a=True, stages=4, hoist_head=False) if ring else stream_k
        entries = _entries(emit_sgemm_ptx(cfg, "sm_90").text)
        assert sorted(name.endswith("_ranges") for name in entries) == [False, True]
        for name, body in entries.items():
            assert "griddepcontrol.wait;" in body and "launch_dependents" not in body, (name, ring)


def test_batched_one_pass_kernels_trigger_at_exit():
    """A batched one-pass kernel waits but does not trigger at entry (session 47, d_0a8b858: a batch filling one wave in
    part let the next call's blocks pile onto its free slots: NT 8 x 64x4096x14336 1568.0 -> 1277.7 us at exit); the
    batch choice's tiles and skinny-m16's (unsplit: its split form is the CUDA C split-K kernel), in every layout."""
    from regtile.codegen.batch_choice import BATCH_TILES
    from regtile.codegen.layouts import with_layout
    for name in [t[0] for t in BATCH_TILES] + ["skinny-m16"]:
        for ta, tb in ((False, False), (True, False), (False, True), (True, True)):
            cfg = with_layout(get_member(name).config, ta, tb, batched=True)
            for body in _entries(emit_sgemm_ptx(cfg, "sm_90").text).values():
                assert "griddepcontrol.wait;" in body and "launch_dependents" not in body, (name, ta, tb)
    single = with_layout(get_member("plain-64x64").config, False, True)
    assert "launch_dependents" in emit_sgemm_ptx(single, "sm_90").text  # one GEMM: after its wait, as before
