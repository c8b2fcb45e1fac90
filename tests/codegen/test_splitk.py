"""Split-K (codegen/splitk.py) on the CPU: validation, the K partition (numbers and the
kernel's own C expressions), the emitted kernels compile without spills, the reduce
kernel, launch packing, the tuner's split candidates and the CLI."""
import re

import pytest
from tiers import tiered

from regtile.codegen import splitk
from regtile.codegen.config import MAX_SPLIT_K, SPLIT_K_MIN_ACCUMULATORS, ConfigError, SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.emit_cuda import emit_sgemm_cuda, kernel_name
from regtile.codegen.kernel import SGEMM_PARAMS, SPLITK_PARAMS, SPLITK_REDUCE_PARAMS
from regtile.codegen.presets import get_preset, preset_names
from regtile.runtime.compiler import compile_source, parse_ptxas_report
from regtile.runtime.sass import function_of, instruction_mix

ZORDER = get_preset("zorder").config


# ---- config -----------------------------------------------------------------------------
@pytest.mark.parametrize("value, needle", [
    (0, "split_k=0: must be an integer >= 1"),
    (-2, "split_k=-2: must be an integer >= 1"),
    (True, "split_k=True: must be an integer"),
    ("4", "split_k='4': must be an integer"),
    (MAX_SPLIT_K + 1, f"split_k={MAX_SPLIT_K + 1}: at most {MAX_SPLIT_K}"),
])
def test_invalid_split_k_names_the_constraint(value, needle):
    with pytest.raises(ConfigError) as e:
        ZORDER.replace(split_k=value)
    assert needle in str(e.value)


def test_split_k_is_part_of_the_config_key_only_when_used():
    one, four = ZORDER, ZORDER.replace(split_k=4)
    assert "split_k" not in one.to_dict()  # one-pass dicts (names, cache, tuning DB) as before split-K
    assert four.to_dict()["split_k"] == 4
    assert SgemmConfig.from_dict(four.to_dict()) == four and SgemmConfig.from_dict(one.to_dict()) == one
    assert one != four and hash(one) != hash(four)
    assert kernel_name(one) != kernel_name(four)
    assert "split-K 4" in four.describe() and "split-K" not in one.describe()


def test_ptx_backend_refuses_split_k():
    with pytest.raises(ConfigError, match="split_k=2: backend 'ptx' does not emit.*'cuda', 'fusedk'"):
        emit(ZORDER.replace(split_k=2), "ptx")


# ---- the K partition ------------------------------------------------------------------------
CASES = [(K, bk, s) for K in (1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100, 127, 129, 1000, 1023, 8192, 8195)
         for bk in (1, 4, 8, 16, 32) for s in (2, 3, 4, 5, 8, 16, 32)]


def _ranges(K, bk, s):
    return [splitk.k_range(K, bk, s, z) for z in range(s)]


def test_every_k_is_in_exactly_one_split():
    for K, bk, s in CASES:
        _check_partition(K, bk, s)


def _check_partition(K, bk, s):
    ranges = _ranges(K, bk, s)
    covered = [k for b, e in ranges for k in range(b, e)]
    assert covered == list(range(K))  # each k once, splits in order, contiguous
    tiles = [(e - b + bk - 1) // bk for b, e in ranges]
    assert max(tiles) - min(tiles) <= 1  # balanced to one k-tile
    assert sum(tiles) == -(-K // bk)
    for b, e in ranges:
        assert 0 <= b <= e <= K
        if e > b:  # a non-empty split starts on a k-tile (an empty one at K)
            assert b % bk == 0
        if e < K:  # only the split that ends at K may end inside a k-tile
            assert (e - b) % bk == 0
    if K < s * bk:
        assert sum(1 for b, e in ranges if e > b) == -(-K // bk)  # the rest are empty (zeros)


def _emitted_range(src_text: str):
    """k_begin / k_end as the kernel computes them: its C expressions, evaluated in
    Python (C's int / on non-negative operands is //)."""
    exprs = {}
    for name in ("k_tiles_total", "k_begin", "k_end"):
        m = re.search(rf"const int {name} = (.+?);", src_text)
        assert m, name
        exprs[name] = m.group(1).replace("/", "//")

    def f(K_total, split):
        env = {"min": min, "K_total": K_total, "split": split}
        env["k_tiles_total"] = eval(exprs["k_tiles_total"], {}, env)
        return eval(exprs["k_begin"], {}, env), eval(exprs["k_end"], {}, env)
    return f


@pytest.mark.parametrize("bk, s", [(8, 2), (8, 3), (16, 4), (8, 8), (32, 5)])
def test_kernel_text_computes_the_same_ranges(bk, s):
    # (bk=16 at two blocks an SM and bk=32 with scalar copies spill, so validation refuses them: issue 8)
    cfg = ZORDER.replace(bk=bk, split_k=s, min_blocks=1) if bk != 32 else \
        SgemmConfig(bm=64, bn=64, bk=32, tm=4, tn=4, stages=1, vec=4, a_transposed=True, split_k=s)
    f = _emitted_range(emit_sgemm_cuda(cfg).text)
    for K in (1, 5, bk, bk + 1, s * bk - 1, s * bk, 1000, 8192, 8195):
        assert [f(K, z) for z in range(s)] == _ranges(K, bk, s), (K, bk, s)


# ---- emitted kernels ------------------------------------------------------------------------
def test_split_kernel_shape_params_and_geometry():
    src = emit_sgemm_cuda(ZORDER.replace(split_k=4))
    assert src.params == SPLITK_PARAMS and src.reduce.params == SPLITK_REDUCE_PARAMS
    assert src.geometry.grid(8192, 128) == (1, 64, 4)
    assert src.reduce.geometry.grid(8192, 128) == (8192 * 128 // splitk.REDUCE_ELEMENTS, 1, 1)
    assert src.reduce.geometry.block == (32 * 4, 1, 1)  # a warp a quarter of the splits
    assert src.reduce.geometry.grid(3, 5) == (1, 1, 1)
    assert src.reduce.text in src.text  # one module: the reduce kernel follows the partial kernel
    partial = src.text.split(src.reduce.text)[0].split("*/", 1)[1]
    assert "alpha *" not in partial and "beta *" not in partial and " C + " not in partial  # partials only
    one = emit_sgemm_cuda(ZORDER)
    assert one.reduce is None and one.params == SGEMM_PARAMS and one.geometry.grid(8192, 128) == (1, 64, 1)


def test_split_partial_kernel_waits_then_lets_its_reduce_in():
    """The partial kernel is a programmatic dependent of the kernel before it (the last call's reduce): its geometry
    says so, it waits (griddepcontrol.wait) before its first statement that could touch memory, and right after the
    wait lets its reduce be scheduled (session 39: eight split-K plans 8.9% faster back to back, 0.8% in CUDA
    graphs, than launched plainly; docs/data/session39/j_5ba4120).  The reduce triggers at exit.  In each layout
    (the prologue is the template's first lines whatever the operands' copies)."""
    from regtile.codegen.layouts import with_layout
    for trans_a, trans_b in ((False, False), (False, True), (True, False), (True, True)):
        src = emit_sgemm_cuda(with_layout(ZORDER.replace(split_k=4), trans_a, trans_b))
        assert src.geometry.programmatic and src.reduce.geometry.programmatic
        body = src.text.split(src.reduce.text)[0].split("*/", 1)[1].split("{", 1)[1]
        wait, trigger = body.index("griddepcontrol.wait"), body.index("griddepcontrol.launch_dependents")
        assert body.count("griddepcontrol.wait") == 1 and body.count("launch_dependents") == 1
        assert wait < trigger < body.index("const int split = blockIdx.z;")
        # nothing before the wait's line but its #if: no statement at all, so nothing touches memory
        before = body[:body.rindex("\n", 0, wait)]
        assert all(not ln.strip() or ln.strip().startswith("#") for ln in before.splitlines()), before
        assert "launch_dependents" not in src.reduce.text


def _loop(text: str) -> str:
    """The main loop of a kernel text, from `for (int kt` to the epilogue comment."""
    return text[text.index("for (int kt"):text.index("// epilogue")]


@pytest.mark.parametrize("name", ["zorder", "vec4", "tile1d"])
def test_split_kernel_runs_the_one_pass_main_loop(name):
    cfg = get_preset(name).config
    assert _loop(emit_sgemm_cuda(cfg.replace(split_k=3)).text) == _loop(emit_sgemm_cuda(cfg).text)


class _SplitBuilds(dict):
    """(name, arch) -> (source, artifact) of the preset with split_k=4, compiled when first asked."""

    def __missing__(self, key):
        name, arch = key
        src = emit_sgemm_cuda(get_preset(name).config.replace(split_k=4))
        self[key] = (src, compile_source(src, arch))
        return self[key]


@pytest.fixture(scope="module")
def split_builds():
    return _SplitBuilds()


def _splittable(name: str) -> bool:
    c = get_preset(name).config
    return c.tm * c.tn >= SPLIT_K_MIN_ACCUMULATORS


def test_split_k_refuses_the_one_accumulator_presets():
    """naive and smem (one accumulator a thread): the split's K-range state spilled on such tiles."""
    for name in (n for n in preset_names() if not _splittable(n)):
        with pytest.raises(ConfigError, match=f"at least {SPLIT_K_MIN_ACCUMULATORS} accumulators"):
            get_preset(name).config.replace(split_k=2)
    assert [n for n in preset_names() if not _splittable(n)] == ["naive", "smem"]


@pytest.mark.parametrize("name, arch", tiered([(n, a) for n in preset_names() if _splittable(n)
                                               for a in ("sm_80", "sm_90")],
                                              fast={("tile1d", "sm_80"), ("zorder", "sm_90")}))
def test_split_presets_compile_without_spills(split_builds, name, arch):
    src, art = split_builds[name, arch]
    for kname in (src.name, src.reduce.name):  # both kernels of the module
        res = parse_ptxas_report(art.log, kname)
        assert res.spill_free and 0 < res.registers <= 255, (kname, res)
        assert f".entry {kname}" in art.ptx


def test_split_zorder_main_loop_is_the_one_pass_loop_in_sass(split_builds):
    src, art = split_builds["zorder", "sm_90"]
    mix = instruction_mix(function_of(art.cubin, src.name)[1].loop_instructions())
    assert mix["FFMA"] == 512 and mix["LDS.128"] == 32 and mix["BAR"] == 1
    assert mix.get("LDL", 0) == mix.get("STL", 0) == 0


@pytest.mark.parametrize("s", tiered([2, 3, 8, 32], fast={3, 32}))  # fast: three warps, and four warps of eight trips
def test_reduce_kernel_compiles_alone(s):
    red = splitk.emit_reduce(s)
    groups = min(s, splitk.REDUCE_GROUPS)
    trips = -(-s // groups)  # the partials a warp sums
    assert red.geometry.block == (32 * groups, 1, 1)
    for arch in ("sm_80", "sm_90"):
        art = compile_source(red, arch)
        assert art.resources.spill_free and art.resources.registers <= 64
        mix = instruction_mix(function_of(art.cubin, red.name)[1].instructions)
        # a thread's partials, unrolled, and C (read when beta != 0): one float4 each on the vector path,
        # 4 floats each on the per-float path; one store of C each; the warps meet once in shared memory
        assert mix.get("LDG.128", 0) == trips + 1 and mix.get("STG.128", 0) == 1, mix
        assert mix.get("LDG.32", 0) == 4 * (trips + 1) and mix.get("STG.32", 0) == 4, mix
        assert mix["BAR"] == 1 and mix.get("STS.128", 0) == 1 and mix.get("LDS.128", 0) == groups - 1, mix


# ---- launches (no GPU: fake kernels record what would be launched) ----------------------------
class _FakeKernel:
    def __init__(self, source, reduce=None):
        self.source, self.reduce, self.label, self.launched = source, reduce, source.name, []

    def pack(self, args):
        assert len(args) == len(self.source.params)
        return dict(zip((p for p, _ in self.source.params), args))

    def launch(self, grid, args, stream=0, packed=None):
        self.launched.append((grid, packed, stream))

    def describe_launch(self, grid=None):
        return f"{self.source.name} grid {grid}"


def test_split_launch_runs_partials_then_reduction_on_one_workspace():
    from regtile.runtime.errors import LaunchError
    from regtile.runtime.sgemm_launch import SgemmLaunch, workspace_bytes
    src = emit_sgemm_cuda(ZORDER.replace(split_k=4))
    red = _FakeKernel(src.reduce)
    main = _FakeKernel(src, red)
    m, n, k = 300, 200, 100
    assert workspace_bytes(src, m, n) == 4 * 4 * m * n and workspace_bytes(emit_sgemm_cuda(ZORDER), m, n) == 0
    with pytest.raises(LaunchError, match="workspace"):
        SgemmLaunch(main, m, n, k, 1.0, 11, k, 22, n, 0.0, 33, n)
    launch = SgemmLaunch(main, m, n, k, 0.5, 11, k, 22, n, -1.5, 33, n, workspace=44)
    launch(stream=7)
    (grid, p, stream), = main.launched
    assert grid == (2, 3, 4) and stream == 7
    assert p == {"M": m, "N": n, "K_total": k, "A": 11, "lda": k, "B": 22, "ldb": n, "W": 44}
    (rgrid, rp, rstream), = red.launched
    assert rgrid == (-(-m * n // splitk.REDUCE_ELEMENTS), 1, 1) and rstream == 7
    assert rp == {"M": m, "N": n, "alpha": 0.5, "W": 44, "beta": -1.5, "C": 33, "ldc": n}
    assert "then" in launch.describe()
    one = _FakeKernel(emit_sgemm_cuda(ZORDER))
    SgemmLaunch(one, m, n, k, 1.0, 11, k, 22, n, 0.0, 33, n)()
    assert one.launched[0][1]["C"] == 33 and one.launched[0][0] == (2, 3, 1)


def test_workspace_only_for_split_k_needs_no_gpu():
    from regtile.codegen.emit import emit
    from regtile.runtime.sgemm_launch import workspace_bytes
    z = get_preset("zorder").config
    assert workspace_bytes(emit(z, "cuda"), 64, 64, 512) == 0
    assert workspace_bytes(emit(z.replace(split_k=2), "cuda"), 64, 64, 512) == 4 * 2 * 64 * 64


# ---- the tuner --------------------------------------------------------------------------------
def test_tuner_adds_split_k_only_where_the_grid_leaves_sms_idle():
    from regtile.tools.tune import blocks_of, candidate_configs, search_order, split_k_options
    assert split_k_options(ZORDER, 8192, 128, 8192) == (1, 2, 4, 8)  # 64 blocks of 128x128
    assert split_k_options(ZORDER, 4096, 4096, 4096) == (1,)
    assert split_k_options(ZORDER, 4096, 1024, 4096) == (1,)  # 256 blocks
    assert split_k_options(ZORDER, 1024, 1024, 1024) == (1,)  # 64 blocks, but K too short to pay
    base = candidate_configs()
    for shape in [(4096, 4096, 4096), (1024, 1024, 1024), (8192, 8192, 8192), (1024, 8192, 1024)]:
        assert candidate_configs(*shape) == base  # the square-shape space does not grow
    skinny = candidate_configs(8192, 128, 8192)
    assert len(skinny) > len(base) and {c.split_k for c in skinny} == {1, 2, 4, 8}
    assert candidate_configs(8192, 128, 8192, split_k=False) == base  # PTX backend: no split-K
    order = search_order(skinny, 8192, 128)
    first = order[0]
    assert first.split_k > 1 and blocks_of(first, 8192, 128) >= 132
    # 128x128 tiles: split 4 (256 blocks) fills with the fewest splits; split 8 fills too but
    # would with half the splits; 2 and 1 leave SMs idle (most blocks first)
    assert [c.split_k for c in order if c.replace(split_k=1) == ZORDER] == [4, 8, 2, 1]


def test_tuning_db_keys_split_configs_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path))
    from regtile.runtime import tuning_db
    from regtile.tools.tune import command_line
    one, four = ZORDER, ZORDER.replace(split_k=4)
    assert tuning_db.config_digest(one) != tuning_db.config_digest(four)
    tuning_db.record("GPU", one, 8192, 128, 8192, {"ms": 0.8, "ok": True})
    tuning_db.record("GPU", four, 8192, 128, 8192, {"ms": 0.4, "ok": True})
    cfg, entry = tuning_db.best("GPU", 8192, 128, 8192)
    assert cfg == four and entry["ms"] == 0.4
    assert "--split-k 4" in command_line(four) and "--split-k" not in command_line(one)


# ---- CLI --------------------------------------------------------------------------------------
def test_cli_inspect_shows_both_kernels(capsys):
    from regtile.tools.cli import main
    assert main(["inspect", "--preset", "vec4", "--split-k", "2"]) == 0
    out = capsys.readouterr().out
    assert "grid (ceil(N/128), ceil(M/128), 2)" in out
    assert "then      regtile_splitk_reduce_2" in out and "grid (ceil(M*N/128), 1, 1)" in out


@pytest.mark.parametrize("args, needle", [
    (["--split-k", "0"], "split_k=0"),
    (["--split-k", "33"], "at most 32"),
    (["--split-k", "2", "--backend", "ptx"], "split_k=2: backend 'ptx' does not emit"),
])
def test_cli_refuses_bad_split_k_in_one_line(capsys, args, needle):
    from regtile.tools.cli import main
    assert main(["inspect", "--preset", "zorder", *args]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and needle in err[0]


def test_gen_json_carries_the_reduce_kernel(tmp_path, capsys):
    import json
    from regtile.tools.cli import main
    assert main(["gen", "--preset", "tile1d", "--split-k", "3", "--out", str(tmp_path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["launch"]["splits"] == 3 and d["config"]["split_k"] == 3
    assert d["reduce"]["kernel"] == "regtile_splitk_reduce_3" and d["reduce"]["resources"]["spill_free"]
    cu = (tmp_path / "tile1d-custom.cu").read_text()
    assert "regtile_splitk_reduce_3(" in cu and "blockIdx.z" in cu
    assert "regtile_splitk_reduce_3" in (tmp_path / "tile1d-custom.sass").read_text()
