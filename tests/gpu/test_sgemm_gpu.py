"""Every SGEMM preset against float64 on the GPU: edge sizes, skinny shapes,
alpha/beta, leading dimensions, device arrays.  C is poisoned with NaN before each
launch and every element is checked written; inputs are fresh random data."""
import pytest

import regtile
from regtile.codegen.presets import get_preset, preset_names
from regtile.runtime import bench, driver
from regtile.runtime.errors import InputError
from gpu_helpers import check_host_sgemm

pytestmark = pytest.mark.gpu

FAST = ("vec4", "dbuf", "pad", "zorder", "zorder-256x128")
EDGE = [(1, 1, 1), (7, 7, 7), (31, 31, 31), (127, 127, 127), (129, 129, 129), (1000, 1000, 1000),
        (1023, 1023, 1023), (1024, 1024, 1024), (7, 129, 31), (129, 7, 1023), (1000, 31, 129), (31, 1000, 7)]


def _check(name, m, n, k, alpha=1.0, beta=0.0):
    work = bench.GemmWorkload(m, n, k)
    try:
        res, _ = bench.measure_config(get_preset(name).config, work, alpha, beta, repeat=0)
    finally:
        work.close()
    assert res.unwritten == 0, f"{name} {m}x{n}x{k}: {res.unwritten} elements unwritten"
    assert res.rel_err <= 1e-5, f"{name} {m}x{n}x{k}: rel err {res.rel_err}"


@pytest.mark.parametrize("m, n, k", EDGE)
@pytest.mark.parametrize("name", preset_names())
def test_preset_correct_at_edge_sizes(name, m, n, k):
    if name == "naive" and m * n * k > 2e8:
        pytest.skip("naive at ~1e9 FLOP is slow; covered at the smaller sizes")
    _check(name, m, n, k)


@pytest.mark.parametrize("name", preset_names())
def test_preset_correct_at_4097(name):
    if name in ("naive", "smem", "tile1d"):
        _check(name, 4097, 129, 257)  # the slow rungs: a 4097-row edge, not the full cube
    else:
        _check(name, 4097, 4097, 4097)


@pytest.mark.parametrize("m, n, k", [(8192, 128, 8192), (128, 8192, 8192)])
@pytest.mark.parametrize("name", ["zorder", "zorder-256x128", "pad"])
def test_skinny(name, m, n, k):
    _check(name, m, n, k)


@pytest.mark.parametrize("name", preset_names())
def test_alpha_beta(name):
    _check(name, 129, 257, 65, alpha=0.5, beta=-1.5)


@pytest.mark.parametrize("name", ["vec4", "zorder", "zorder-256x128", "tile1d"])
def test_leading_dimensions_larger_than_width(name):
    """Device views into wider buffers (lda > K, ldb > N, ldc > N), and an odd ldc
    that forces the scalar paths."""
    torch = pytest.importorskip("torch")
    m, n, k = 300, 200, 100
    big_a = torch.randn(m, k + 12, device="cuda")
    big_b = torch.randn(k, n + 5, device="cuda")
    big_c = torch.randn(m, n + 3, device="cuda")
    A, B, C = big_a[:, :k], big_b[:, :n], big_c[:, :n]
    C0 = C.clone()
    big_c_before = big_c.clone()
    regtile.sgemm(A, B, C, alpha=0.75, beta=0.25, config=get_preset(name).config)
    ref = 0.75 * (A.double() @ B.double()) + 0.25 * C0.double()
    err = ((C.double() - ref).norm() / ref.norm()).item()
    assert err <= 1e-5
    # the padding columns beyond N were not touched
    assert torch.equal(big_c[:, n:], big_c_before[:, n:])


def test_numpy_round_trip_and_in_place():
    check_host_sgemm(77, 55, 99, 2.0, -1.0)


def test_bad_input_raises_before_launch_and_leaves_c_alone():
    torch = pytest.importorskip("torch")
    A = torch.randn(64, 32, device="cuda")
    B = torch.randn(33, 16, device="cuda")
    C = torch.randn(64, 16, device="cuda")
    before = C.clone()
    with pytest.raises(InputError, match="shapes do not match"):
        regtile.sgemm(A, B, C)
    with pytest.raises(InputError, match="neither the column stride nor the row stride is 1"):
        regtile.sgemm(A, torch.randn(32, 32, device="cuda")[:, ::2], C)
    with pytest.raises(InputError, match="float32"):
        regtile.sgemm(A.double(), B[:32], C)
    with pytest.raises(InputError, match="mix host and device"):
        regtile.sgemm(A, B[:32].cpu().numpy(), C)
    assert torch.equal(C, before)


def test_cublas_reference_is_true_fp32():
    """cuBLAS in pedantic mode must agree with float64 to FP32 accuracy (a TF32
    cuBLAS would miss by ~1e-3)."""
    work = bench.GemmWorkload(512, 512, 512)
    try:
        res, blas = bench.measure_cublas(work, repeat=0)
    finally:
        work.close()
    assert res.rel_err <= 1e-5, res.rel_err


def test_interleave_with_cublas_reports_every_round():
    """runtime/bench.interleave_with_cublas, the method of docs/tuning.md's interleaved check."""
    from regtile.runtime.compiler import compile_config
    k = driver.load(compile_config(get_preset("zorder").config, driver.device().arch), "zorder")
    out = bench.interleave_with_cublas({"zorder": k}, 256, rounds=2, repeat=3)
    r = out["zorder"]
    assert len(r["rounds"]) == 2 and r["min"] <= r["median"] <= r["max"] and r["min"] > 0
    assert r["median_tflops"] > 0


def test_interleave_tool_writes_its_json(tmp_path, monkeypatch, capsys):
    """tools/interleave.run, what the docs/data experiment scripts end with."""
    import json
    from regtile.runtime.compiler import compile_config
    from regtile.tools import interleave
    monkeypatch.setenv("OUT", str(tmp_path))
    art = compile_config(get_preset("zorder").config, driver.device().arch)
    out = interleave.run({"zorder": art}, interleave.sizes_from(["256"]), "t.json")
    saved = json.loads((tmp_path / "t.json").read_text())
    assert saved["result"]["256"]["zorder"]["median"] == out[256]["zorder"]["median"] > 0
    assert "256 zorder" in capsys.readouterr().out


def test_benchmark_rotation_spans_twice_the_devices_own_l2():
    """The L2 comes from the device (50 MB on the H100, 60 MB on the H200), not a constant: a rotation sized
    for a smaller L2 would time a warm cache.  torch, where present, reads the same attribute its own way."""
    dev = driver.device()
    torch = pytest.importorskip("torch")
    assert dev.l2_bytes == torch.cuda.get_device_properties(0).L2_cache_size
    work = bench.GemmWorkload(1536, 1536, 1536)  # 27 MiB a set: 5 sets for the H200's 60 MiB, 4 for 50 MiB
    per_set = 4 * 3 * 1536 * 1536
    try:
        assert (work.sets - 1) * per_set < 2 * dev.l2_bytes <= work.sets * per_set
    finally:
        work.close()
