"""The parts of the measurement method and of `regtile bench` that need no GPU:
the float64 reference and what it compares, the --ncu file, the naive skip rule,
and the launch description that LaunchError carries."""
import json
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from regtile.codegen.kernel import LaunchGeometry
from regtile.runtime import bench, driver
from regtile.tools import cmd_bench
from regtile.tools.options import UsageError


def _host_workload(m, n, k, seed=1):
    """A GemmWorkload with its host operands only (no device buffers), for the reference."""
    w = bench.GemmWorkload.__new__(bench.GemmWorkload)
    rng = np.random.default_rng(seed)
    w.m, w.n, w.k = m, n, k
    w.host_a = rng.standard_normal((m, k), dtype=np.float32)
    w.host_b = rng.standard_normal((k, n), dtype=np.float32)
    w.host_c0 = rng.standard_normal((m, n), dtype=np.float32)
    w._ref = None
    return w


def _fp32_result(w, alpha, beta):
    return (alpha * (w.host_a @ w.host_b) + beta * w.host_c0).astype(np.float32)


def test_small_problem_is_checked_over_all_rows():
    w = _host_workload(70, 50, 30)
    out = _fp32_result(w, 0.5, -1.5)
    err, compared = w.relative_error(out, 0.5, -1.5)
    assert compared == "all rows" and err < 1e-6
    out[69, 49] += 1.0
    assert w.relative_error(out, 0.5, -1.5)[0] > 1e-5
    out[0, 0] = np.nan
    assert w.relative_error(out, 0.5, -1.5)[0] == np.inf


def test_large_problem_without_torch_checks_the_last_block_row(monkeypatch):
    """Without torch on a GPU, sampled rows always include the last EDGE_ROWS rows,
    where the partial block-row of M = 4097 lies, and say so."""
    monkeypatch.setattr(bench, "FULL_REFERENCE_MAX_FLOPS", 1)
    monkeypatch.setattr(bench, "_torch_on_gpu", lambda: (None, "torch not importable (test)"))
    w = _host_workload(1025, 40, 20)
    out = _fp32_result(w, 1.0, 0.0)
    err, compared = w.relative_error(out, 1.0, 0.0)
    assert err < 1e-6
    assert compared.startswith(f"{bench.EDGE_ROWS + bench.SAMPLE_ROWS} rows") and "torch not importable" in compared
    out[1024, 7] += 1.0  # only the last row is wrong
    assert w.relative_error(out, 1.0, 0.0)[0] > 1e-5


def test_reference_is_kept_per_alpha_beta(monkeypatch):
    w = _host_workload(30, 20, 10)
    calls = []
    real = w.reference_rows
    monkeypatch.setattr(w, "reference_rows", lambda a, b: calls.append((a, b)) or real(a, b))
    out = _fp32_result(w, 1.0, 0.0)
    w.relative_error(out, 1.0, 0.0)
    w.relative_error(out, 1.0, 0.0)
    assert calls == [(1.0, 0.0)]
    w.relative_error(_fp32_result(w, 2.0, 1.0), 2.0, 1.0)
    assert calls == [(1.0, 0.0), (2.0, 1.0)]


# ---- --ncu ------------------------------------------------------------------------------
def test_ncu_file_takes_both_key_spellings(tmp_path):
    f = tmp_path / "ncu.json"
    f.write_text(json.dumps({"zorder": {"ld_conflicts": 0, "st_conflicts": 4096},
                             "pad": {"ld": 12.0, "st": 0}, "vec4": {"ld_conflicts": 7}}))
    got = cmd_bench.load_ncu(str(f))
    assert got == {"zorder": {"ld": 0, "st": 4096}, "pad": {"ld": 12.0, "st": 0}, "vec4": {"ld": 7}}
    dev = SimpleNamespace(name="GPU", arch="sm_90", sm_count=132, driver_version="CUDA 13.0")
    rows = [{"kernel": "zorder", "m": 64, "n": 64, "k": 64, "smem_conflicts": got["zorder"]},
            {"kernel": "vec4", "m": 64, "n": 64, "k": 64, "smem_conflicts": got["vec4"]}]
    table = cmd_bench._table(rows, dev)
    assert "| 0/4,096 |" in table and "| 7/- |" in table


@pytest.mark.parametrize("text, needle", [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"zorder": 3}', "entry 'zorder' is int"),
    ('{"zorder": {"bank": 1}}', "neither ld_conflicts nor st_conflicts"),
    ('{"zorder": {"ld_conflicts": -1}}', "zorder.ld_conflicts = -1"),
])
def test_bad_ncu_file_is_a_usage_error(tmp_path, text, needle):
    f = tmp_path / "ncu.json"
    f.write_text(text)
    with pytest.raises(UsageError, match=needle):
        cmd_bench.load_ncu(str(f))


def test_missing_ncu_file_is_one_line_exit_2_before_any_gpu_work(tmp_path):
    res = subprocess.run([sys.executable, "-m", "regtile.tools.cli", "bench", "--ladder", "--sizes", "64",
                          "--ncu", str(tmp_path / "absent.json")], capture_output=True, text=True)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode == 2 and len(lines) == 1 and "cannot read" in lines[0], res.stderr


# ---- naive skip rule ----------------------------------------------------------------------
def test_naive_runs_at_8192_and_is_left_out_beyond_the_budget():
    assert cmd_bench.naive_skip_note("naive", 8192, 8192, 8192, repeat=10) is None
    note = cmd_bench.naive_skip_note("naive", 32768, 32768, 32768, repeat=10)
    assert note and "s a launch" in note and "budget" in note
    assert cmd_bench.naive_skip_note("zorder", 32768, 32768, 32768, repeat=10) is None


# ---- launch description ------------------------------------------------------------------
def test_launch_description_names_kernel_and_config():
    k = driver.LoadedKernel.__new__(driver.LoadedKernel)
    k.label = "zorder"
    k.source = SimpleNamespace(name="regtile_sgemm_128x128x8_8x8_abc",
                               geometry=LaunchGeometry(block=(256, 1, 1), tile_m=128, tile_n=128,
                                                       dynamic_smem_bytes=66048))
    k.artifact = SimpleNamespace(arch="sm_90")
    text = k.describe_launch((8, 8, 1))
    for part in ("zorder", "regtile_sgemm_128x128x8_8x8_abc", "grid (8, 8, 1)", "block (256, 1, 1)",
                 "66048 B dynamic shared memory", "sm_90"):
        assert part in text


def test_interleaved_event_ms_times_every_variant_in_each_round():
    """Rounds interleave the variants (a, b, a, b, ...), each timed over its own reps."""
    from types import SimpleNamespace
    from regtile.runtime.bench import interleaved_event_ms
    order, clock = [], [0.0]

    class Event:
        def __init__(self, enable_timing):
            self.t = None

        def record(self):
            self.t = clock[0]

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return other.t - self.t

    cuda = SimpleNamespace(Event=Event, synchronize=lambda: None)
    fake = SimpleNamespace(cuda=cuda)

    def fn(name, ms):
        def call():
            order.append(name)
            clock[0] += ms
        return call

    t = interleaved_event_ms(fake, {"a": fn("a", 2.0), "b": fn("b", 0.5)}, rounds=3, reps={"a": 2, "b": 4})
    assert t == {"a": [2.0] * 3, "b": [0.5] * 3}
    assert order[6:] == ["a"] * 2 + ["b"] * 4 + ["a"] * 2 + ["b"] * 4 + ["a"] * 2 + ["b"] * 4  # after 3 warm-ups each


@pytest.mark.parametrize("name, peak, copy", [("NVIDIA H100 80GB HBM3", 65.2, 2940.0), ("NVIDIA H200", 66.0, 4090.0)])
def test_percentages_use_the_named_gpus_own_figures(name, peak, copy):
    assert bench.peak_tflops(name) == peak
    assert bench.pct_of_copy(name, copy) == pytest.approx(100.0)


@pytest.mark.parametrize("name", ["NVIDIA H100 PCIe", "NVIDIA H200 NVL", "NVIDIA A100-SXM4-80GB", ""])
def test_an_unmeasured_gpu_gets_no_percentages_rather_than_another_gpus(name):
    # an H100 PCIe has 114 SMs and HBM2e: the SXM part's ceilings would make its percentages wrong
    assert bench.figures(name) is None
    assert bench.peak_tflops(name) is None
    assert bench.pct_of_copy(name, 2000.0) is None


def test_rotation_sets_span_twice_the_l2_given_within_their_cap():
    """runtime/bench.rotation_sets, which every benchmark's rotation takes (bench, shape_sweep, sgemv_sweep): enough
    sets to span twice the L2 it is given, at least one, at most `most`."""
    from regtile.runtime.bench import rotation_sets
    mib = 1 << 20
    assert rotation_sets(30 * mib, 50 * mib) == 4 and rotation_sets(30 * mib, 60 * mib) == 4
    assert rotation_sets(25 * mib, 60 * mib) == 5 and rotation_sets(25 * mib, 50 * mib) == 4
    assert rotation_sets(1 << 40, 60 * mib) == 1
    assert rotation_sets(1024, 60 * mib) == 8 and rotation_sets(1024, 60 * mib, most=16) == 16
