"""Bad input, CLI and API (issue 17): each case is refused with one clean line (no
traceback) naming what was wrong; the CLI exits 2 and leaves nothing behind.  Cheap: no
case compiles a kernel (every refusal comes before the compile) and no GPU is needed."""
import gc
import subprocess
import sys

import pytest

import regtile
from regtile.codegen.config import ConfigError
from regtile.tools.cli import main

BIG = "99999999999"


def _refused(capsys, args):
    rc = main(args)
    captured = capsys.readouterr()
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert rc == 2, (args, rc, captured)
    assert len(lines) == 1 and lines[0].startswith("regtile: error: "), (args, captured.err)
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize("args, needle", [
    # issue 17's crashes
    (["banks", "--preset", "sgemv-n32"], "SGEMV kernel"),
    (["banks", "--kernel", "sgemv", "--rows-per-warp", "2"], "SGEMV kernel"),
    # int32 sizes
    (["inspect", "--preset", "zorder", "--m", BIG], f"--m {BIG}: sizes must be at most 2147483647"),
    (["banks", "--preset", "zorder", "--k", BIG], "at most 2147483647"),
    (["run", "--preset", "zorder", "--m", "64", "--n", BIG, "--k", "64"], f"--n {BIG}"),
    (["run", "--m", "64", "--n", "64", "--k", BIG], f"--k {BIG}"),
    (["tune", "--m", BIG, "--n", "64", "--k", "64"], f"--m {BIG}"),
    (["bench", "--ladder", "--sizes", BIG], "at most 2147483647"),
    (["bench", "--presets", "zorder", "--shapes", f"64x64x{BIG}"], "at most 2147483647"),
    # --k means nothing to an SGEMV kernel
    (["inspect", "--preset", "sgemv-n32", "--k", "64"], "an SGEMV kernel has no K"),
    (["inspect", "--kernel", "sgemv", "--unroll", "2", "--k", "64"], "an SGEMV kernel has no K"),
    (["run", "--preset", "sgemv-n16", "--m", "64", "--n", "16", "--k", "64"], "--k is an SGEMM size"),
    # one switch convention
    (["inspect", "--preset", "zorder", "--split-tile", "maybe"], "--split-tile is a switch"),
    (["gen", "--preset", "zorder", "--sass-pass=perhaps", "--out", "{tmp}/o"], "--sass-pass is a switch"),
    (["tune", "--m", "64", "--n", "64", "--k", "64", "--sass-pass", "2"], "--sass-pass is a switch"),
    (["inspect", "--preset", "zorder", "--no-split-tile", "true"], "unrecognized arguments: true"),
    # gen's --name is a file name
    (["gen", "--preset", "naive", "--out", "{tmp}/o", "--name", "a/b"], "--name 'a/b': give a plain file name"),
    (["gen", "--preset", "naive", "--out", "{tmp}/o", "--name", ".."], "give a plain file name"),
    (["gen", "--preset", "naive", "--out", "{tmp}/o", "--name", ""], "give a plain file name"),
    # mixed-up kernel flags and reports
    (["inspect", "--preset", "sgemv-n16", "--bm", "64"], "--bm is an SGEMM flag"),
    (["inspect", "--preset", "zorder", "--unroll", "2"], "--unroll is an SGEMV flag"),
    (["inspect", "--preset", "zorder", "--kernel", "sgemv"], "is an sgemm kernel"),
    (["inspect", "--preset", "zorder", "--rank-orders", "--show", "sass"], "--rank-orders prints a ranking"),
    (["inspect", "--preset", "zorder", "--rank-orders", "--compare-backends"], "choose one"),
    (["inspect", "--preset", "zorder", "--compare-backends", "--show", "ptx"], "drop --show"),
    (["inspect", "--preset", "zorder", "--backend", "ptx", "--show", "cuda"], "--show cuda"),
    (["inspect", "--preset", "tile2d", "--backend", "ptx"], "frag_regs"),
    (["inspect", "--preset", "zorder", "--stream-k"], "stream_k=True: backend 'cuda' does not emit"),
    (["banks", "--preset", "zorder", "--warp", "99"], "--warp 99"),
    (["banks", "--preset", "zorder", "--kslice", "-1"], "--kslice -1"),
    # unknown names, missing and malformed arguments
    (["inspect", "--preset", "fastest"], "invalid choice: 'fastest'"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["inspect", "--bm", "abc"], "invalid int value: 'abc'"),
    (["inspect", "--preset", "zorder", "--warps", "4by2"], "MxN"),
    (["run", "--preset", "zorder", "--m", "4", "--n", "4", "--k", "4", "--beta", "x"], "invalid float value: 'x'"),
    (["inspect"], "choose a kernel"),
    (["tune", "--m", "64", "--n", "64"], "--k"),
    (["tune", "--m", "64", "--n", "64", "--k", "64", "--jobs", "0"], "--jobs 0"),
    (["sanitize", "--presets", "fastest"], "unknown preset 'fastest'"),
    (["sanitize", "--split-k", "0"], "--split-k 0"),
    (["sweep", "--shapes", "--repeat", "0"], "--repeat 0"),
    (["sweep", "--pass-table", "--sizes", "x"], "--sizes 'x'"),
    (["sweep", "--shapes", "--out", "{tmp}/file/t.md"], "the folder"),
    (["plot", "ladder", "{tmp}/missing.md", "--out", "{tmp}/l.png"], "no such file"),
    (["plot", "pie", "{tmp}/missing.md", "--out", "{tmp}/l.png"], "invalid choice: 'pie'"),
    (["bench", "--ladder", "--ncu", "{tmp}/file"], "not JSON"),
])
def test_cli_refuses_in_one_line_exit_2_and_writes_nothing(tmp_path, capsys, args, needle):
    (tmp_path / "file").write_text("")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    line = _refused(capsys, args)
    assert needle.replace("{tmp}", str(tmp_path)) in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # no folder, no file


def test_no_gpu_is_one_line_exit_2(capsys):
    from regtile.runtime import driver
    if driver.gpu_available():
        pytest.skip("this machine has a GPU")
    line = _refused(capsys, ["run", "--m", "64", "--n", "64", "--k", "64"])
    assert "GPU" in line


def test_the_installed_command_prints_no_traceback(tmp_path):
    """The same through a fresh process (the console script's entry point)."""
    res = subprocess.run([sys.executable, "-m", "regtile.tools.cli", "gen", "--preset", "naive", "--out",
                          str(tmp_path / "o"), "--name", "a/b"], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().count("\n") == 0 and "--name" in res.stderr
    assert not (tmp_path / "o").exists()


# ---- API -------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, needle", [
    (lambda: regtile.emit_sgemm_cuda(None), TypeError, "emit_sgemm_cuda: cfg must be an SgemmConfig, got NoneType"),
    (lambda: regtile.emit_sgemm_cuda("zorder"), TypeError, "get_preset('zorder').config"),
    (lambda: regtile.make_plan("x"), TypeError, "make_plan: cfg must be an SgemmConfig, got str"),
    (lambda: regtile.make_plan(regtile.get_preset("sgemv-n32").config), TypeError, "SGEMV kernels"),
    (lambda: regtile.get_preset("fastest"), ConfigError, "unknown preset 'fastest'"),
    (lambda: regtile.SgemmConfig(bm="x"), ConfigError, "bm='x'"),
    (lambda: regtile.SgemmConfig(bm=100), ConfigError, "bm=100"),
    (lambda: regtile.SgemvConfig(rows_per_warp=3), ConfigError, "rows_per_warp=3"),
])
def test_api_refuses_with_the_argument_named(call, exc, needle):
    with pytest.raises(exc) as e:
        call()
    assert needle in str(e.value)
    assert not isinstance(e.value, AttributeError)


def test_preset_names_hold_every_preset_the_cli_accepts():
    from regtile.codegen.presets import all_preset_names
    names = regtile.preset_names()
    assert names == all_preset_names()
    assert {"zorder", "sgemv-n16", "sgemv-n32", "sgemv-n128"} <= set(names)
    for name in names:
        regtile.get_preset(name)


def test_failed_allocation_leaves_a_buffer_that_closes_quietly(monkeypatch):
    """DeviceBuffer.__init__ failing before cuMemAlloc (no GPU, out of memory) leaves an
    object that Python still finalizes: its close() must not raise AttributeError."""
    from regtile.runtime import driver
    from regtile.runtime.errors import NoGpuError

    def no_gpu():
        raise NoGpuError("no GPU here")
    monkeypatch.setattr(driver, "device", no_gpu)
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(NoGpuError):
        driver.DeviceBuffer(1024)
    gc.collect()
    assert unraisable == []
    half_built = driver.DeviceBuffer.__new__(driver.DeviceBuffer)
    half_built.close()  # what __del__ runs
    assert half_built.ptr == 0
