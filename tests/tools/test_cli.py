"""CLI round trips: gen writes the five files, inspect reports, bad input exits 2 in one line."""
import json
import subprocess
import sys

import pytest

from regtile.tools.cli import main


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "regtile.tools.cli", *args], capture_output=True, text=True)


def test_gen_writes_five_files(tmp_path, capsys):
    assert main(["gen", "--preset", "zorder", "--out", str(tmp_path / "z")]) == 0
    names = sorted(p.name for p in (tmp_path / "z").iterdir())
    assert names == ["zorder.cu", "zorder.cubin", "zorder.json", "zorder.ptx", "zorder.sass"]
    meta = json.loads((tmp_path / "z" / "zorder.json").read_text())
    assert meta["config"]["mapping"] == "zorder"
    assert meta["resources"]["spill_free"] is True
    assert meta["launch"]["block"] == [256, 1, 1]
    assert "FFMA" in (tmp_path / "z" / "zorder.sass").read_text()
    assert (tmp_path / "z" / "zorder.cubin").read_bytes()[:4] == b"\x7fELF"


def test_gen_from_config_flags_for_sm80(tmp_path):
    rc = main(["gen", "--bm", "64", "--bn", "64", "--bk", "8", "--tm", "4", "--tn", "4", "--arch", "sm_80",
               "--out", str(tmp_path), "--name", "k"])
    assert rc == 0
    meta = json.loads((tmp_path / "k.json").read_text())
    assert meta["arch"] == "sm_80" and meta["config"]["tm"] == 4


def test_inspect_json(capsys):
    assert main(["inspect", "--preset", "zorder", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["main_loop"]["instruction_mix"]["FFMA"] == 512
    assert d["resources"]["spill_free"] is True


def test_inspect_text_and_show(capsys):
    assert main(["inspect", "--preset", "pad"]) == 0
    out = capsys.readouterr().out
    assert "spill-free" in out and "main loop" in out and "LDS.128" in out
    assert main(["inspect", "--preset", "pad", "--show", "cuda"]) == 0
    assert "__global__" in capsys.readouterr().out


@pytest.mark.parametrize("args, needle", [
    (["inspect", "--preset", "nope"], "invalid choice"),
    (["inspect", "--bm", "100"], "bm=100"),
    (["inspect", "--preset", "zorder", "--vec", "3"], "vec=3"),
    (["inspect"], "choose a kernel"),
    (["gen", "--preset", "zorder"], "--out"),
    (["inspect", "--preset", "zorder", "--arch", "sm_75"], "sm_75"),
    (["inspect", "--preset", "zorder", "--m", "0"], "--m 0"),
    (["inspect", "--preset", "zorder", "--warps", "four"], "MxN"),
])
def test_bad_input_is_one_line_and_exit_2(args, needle, capsys):
    # in process (a fresh interpreter per case cost a second each); test_unwritable_out_is_refused
    # and tests/api/test_bad_inputs.py go through `python -m regtile.tools.cli` itself
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err
    assert needle in lines[0]


def test_unwritable_out_is_refused(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("")
    res = _cli("gen", "--preset", "naive", "--out", str(blocker / "sub"))
    assert res.returncode == 2 and "--out" in res.stderr
    assert not (blocker.parent / "sub").exists()


def test_help_has_examples(capsys):
    for args, needle in ((["--help"], "regtile gen --preset zorder"), (["gen", "--help"], "examples")):
        with pytest.raises(SystemExit) as e:
            main(args)
        assert e.value.code == 0 and needle in capsys.readouterr().out


# ---- issue 8: every class of bad input, in process (cheap); exit 2 and one line ------
def _refused(capsys, args):
    rc = main(args)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("regtile: error: "), (args, rc, err)
    return lines[0]


@pytest.mark.parametrize("args, needle", [
    # invalid configs
    (["gen", "--preset", "zorder", "--tm", "3", "--out", "{tmp}/o"], "tm=3"),
    (["inspect", "--kernel", "sgemv", "--rows-per-warp", "3"], "rows_per_warp=3"),
    (["inspect", "--preset", "zorder", "--min-blocks", "4"], "min_blocks=4"),
    (["bench", "--presets", "fastest"], "unknown preset 'fastest'"),
    # zero or negative sizes
    (["run", "--preset", "zorder", "--m", "-5", "--n", "4", "--k", "4"], "--m -5"),
    (["run", "--preset", "zorder", "--m", "4", "--n", "4", "--k", "0"], "--k 0"),
    (["run", "--preset", "sgemv-n16", "--m", "4", "--n", "0"], "--n 0"),
    (["bench", "--ladder", "--sizes", "64,-1"], "--sizes '64,-1'"),
    (["bench", "--presets", "zorder", "--shapes", "64x0x64"], "shape '64x0x64'"),
    (["tune", "--m", "64", "--n", "64", "--k", "-1"], "--k -1"),
    (["banks", "--preset", "zorder", "--m", "0"], "--m 0"),
    (["run", "--preset", "zorder", "--m", "4", "--n", "4", "--k", "4", "--repeat", "-1"], "--repeat -1"),
    # wrong types
    (["inspect", "--bm", "abc"], "invalid int value: 'abc'"),
    (["inspect", "--preset", "zorder", "--split-tile", "maybe"], "--split-tile is a switch"),
    (["run", "--preset", "zorder", "--m", "4", "--n", "4", "--k", "4", "--alpha", "x"], "invalid float value: 'x'"),
    # mismatched shapes
    (["run", "--preset", "sgemv-n16", "--m", "4", "--n", "16", "--k", "4"], "--k is an SGEMM size"),
    (["run", "--preset", "zorder", "--m", "4", "--n", "4"], "SGEMM needs --k"),
    (["bench", "--presets", "zorder", "--shapes", "64x64"], "expected 3 sizes"),
    # unknown arch
    (["gen", "--preset", "zorder", "--arch", "sm_100", "--out", "{tmp}/o"], "invalid choice: 'sm_100'"),
    (["run", "--preset", "zorder", "--m", "4", "--n", "4", "--k", "4", "--arch", "sm_75"], "invalid choice: 'sm_75'"),
    # unwritable outputs
    (["gen", "--preset", "naive", "--out", "{tmp}/file/sub"], "is not a writable folder"),
    (["bench", "--ladder", "--sizes", "64", "--out", "{tmp}/file/t.md"], "--out {tmp}/file/t.md: the folder"),
    (["bench", "--ladder", "--sizes", "64", "--out", "{tmp}"], "is a folder"),
    (["banks", "--preset", "zorder", "--png", "{tmp}/file/b.png"], "--png {tmp}/file/b.png: the folder"),
])
def test_every_bad_input_class_is_one_line_exit_2(tmp_path, capsys, args, needle):
    (tmp_path / "file").write_text("")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    line = _refused(capsys, args)
    assert needle.replace("{tmp}", str(tmp_path)) in line, line
    # ... and changes nothing: no output folder or file appears
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_unwritable_tuning_folder_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path / "file" / "cache"))
    from regtile.runtime import driver

    def no_gpu_work():
        raise AssertionError("the GPU was asked for before the output folder was checked")
    monkeypatch.setattr(driver, "device", no_gpu_work)
    line = _refused(capsys, ["tune", "--m", "64", "--n", "64", "--k", "64"])
    assert "tuning results" in line and "is not a writable folder" in line


@pytest.mark.parametrize("args", [
    ["bench", "--ladder", "--sizes", "64"],
    ["bench", "--sgemv", "--shapes", "64x64"],
    ["run", "--preset", "zorder", "--m", "64", "--n", "64", "--k", "64"],
    ["run", "--preset", "sgemv-n16", "--m", "64", "--n", "16"],
    ["tune", "--m", "64", "--n", "64", "--k", "64"],
])
def test_no_cublas_is_refused_before_any_gpu_work(tmp_path, capsys, monkeypatch, args):
    """A (pretend) GPU but no cuBLAS: one line naming cuBLAS, and no workload, compile or
    launch was started (they would need the GPU)."""
    from types import SimpleNamespace
    from regtile.runtime import bench, cublas, driver
    from regtile.tools import tune

    def started(*a, **k):
        raise AssertionError("GPU work started before the cuBLAS check")
    monkeypatch.setenv("REGTILE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132,
                                                                  driver_version="CUDA 13.0"))
    monkeypatch.setattr(cublas, "_library", None)
    monkeypatch.setattr(cublas, "_candidates", lambda: iter(()))
    for name in ("GemmWorkload", "GemvWorkload", "measure_config"):
        monkeypatch.setattr(bench, name, started)
    monkeypatch.setattr(tune, "compile_all", started)
    monkeypatch.setattr(driver, "load", started)
    line = _refused(capsys, args)
    assert "no cuBLAS library found" in line
    if args[0] == "run":
        assert "--no-cublas" in line


def test_run_with_no_cublas_skips_the_cublas_check(monkeypatch):
    """--no-cublas: no cuBLAS needed, the run goes on to its workload."""
    from types import SimpleNamespace
    from regtile.runtime import bench, cublas, driver

    class Reached(Exception):
        pass

    def workload(*a, **k):
        raise Reached
    monkeypatch.setattr(cublas, "_library", None)
    monkeypatch.setattr(cublas, "_candidates", lambda: iter(()))
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132,
                                                                  driver_version="CUDA 13.0"))
    monkeypatch.setattr(bench, "GemmWorkload", workload)
    with pytest.raises(Reached):
        main(["run", "--preset", "zorder", "--m", "64", "--n", "64", "--k", "64", "--no-cublas"])


@pytest.mark.parametrize("k", [4096, 65536])
def test_run_names_an_untuned_choice_default_whatever_k(monkeypatch, k):
    """`regtile run` without a kernel: with nothing tuned, the choice is regtile.sgemm's default
    for M x N x K (the shape heuristic depends on K: 128x128x65536 is a fused split-K shape at
    K 4096 and not at 65536), named "default", never "tuned"."""
    from types import SimpleNamespace
    from regtile.runtime import choice, driver
    from regtile.tools import cmd_run
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132))
    monkeypatch.setattr(choice, "_tuned", lambda device_name: {})
    args = SimpleNamespace(kernel=None, m=128, n=128, k=k)
    label, cfg, backend, why = cmd_run._chosen_kernel(args, "sm_90")
    assert label == "default" and "nothing tuned" in why
    assert (cfg, backend) == choice.default_sgemm_kernel(128, 128, "sm_90", 132, k)


# ---- issue 17: one CLI convention, version, presets, progress ------------------------------
def test_version(capsys):
    import regtile
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"regtile {regtile.__version__}"


def test_presets_list_every_preset_the_cli_accepts(capsys):
    from regtile.codegen.presets import all_preset_names
    assert main(["presets", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in listed] == list(all_preset_names())
    assert {p["kind"] for p in listed if p["name"].startswith("sgemv")} == {"sgemv"}
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert "SGEMM" in out and "SGEMV" in out and "sgemv-n128" in out


def test_switches_and_the_old_true_false_form_mean_the_same(capsys):
    configs = []
    for flags in (["--no-reg-prefetch"], ["--reg-prefetch", "false"], ["--reg-prefetch=no"]):
        assert main(["banks", "--preset", "zorder", "--json", *flags]) == 0
        configs.append(json.loads(capsys.readouterr().out)["config"])
    assert configs[0] == configs[1] == configs[2] and configs[0]["reg_prefetch"] is False
    for cmd in ("tune", "bench", "sanitize"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "--sass-pass, --no-sass-pass" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "--cublas, --no-cublas" in out and "C = alpha*A*B + beta*C" in out


def test_banks_sass_compiles_a_ptx_member_on_its_backend(capsys):
    """--member of a PTX member (stream-K, clamped edges: no CUDA C form) with --sass compiles it through
    the PTX backend (session 14: it compiled CUDA C and failed, naming a --backend flag banks has not)."""
    assert main(["banks", "--member", "skinny-m32-256", "--sass", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["stream_k"] is True and out["register_banks"]["ffma"] > 0, out["register_banks"]


def test_gen_names_overridden_files_and_writes_them_0644(tmp_path, capsys):
    import os
    old = os.umask(0o022)
    try:
        assert main(["gen", "--preset", "naive", "--bm", "16", "--out", str(tmp_path / "a")]) == 0
        assert "named naive-custom.*" in capsys.readouterr().err
        files = sorted((tmp_path / "a").iterdir())
        assert [p.name for p in files] == ["naive-custom.cu", "naive-custom.cubin", "naive-custom.json",
                                           "naive-custom.ptx", "naive-custom.sass"]
        assert {p.stat().st_mode & 0o777 for p in files} == {0o644}
        # a flag that repeats the preset's value changes nothing, names included
        assert main(["gen", "--preset", "naive", "--bm", "32", "--out", str(tmp_path / "b")]) == 0
        assert "note" not in capsys.readouterr().err
        assert (tmp_path / "b" / "naive.json").exists()
    finally:
        os.umask(old)


def test_show_with_json(capsys):
    assert main(["inspect", "--preset", "naive", "--show", "ptx", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["show"] == "ptx" and ".entry" in d["text"] and d["label"] == "naive"


def test_run_without_a_preset_runs_and_names_regtile_sgemms_choice(monkeypatch, capsys):
    """`regtile run --m --n --k` times regtile.sgemm's own plan (runtime/plans.GemmPlan: the
    shape's kernel choice, or the GEMV route for m or n == 1) and names what it chose."""
    from types import SimpleNamespace
    from regtile.runtime import bench, driver, plans
    from regtile.runtime.choice import default_sgemm_kernel

    class Reached(Exception):
        pass
    seen = []

    class FakePlan:
        def __init__(self, m, n, k, trans_a, trans_b, lda, ldb, ldc, arch=None):
            seen.append(dict(shape=(m, n, k), layouts=(trans_a, trans_b), lds=(lda, ldb, ldc), arch=arch))
            self.config, self.kernel = SimpleNamespace(describe=lambda: "gemv"), None

        def describe(self):
            return "the GEMV plan"

    def timed(launch, work, alpha, beta, repeat, **kw):
        raise Reached
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132,
                                                                  driver_version="CUDA 13.0"))
    monkeypatch.setattr(bench, "GemmWorkload", lambda *a, **k: SimpleNamespace(close=lambda: None))
    monkeypatch.setattr(bench, "check_and_time", timed)
    monkeypatch.setattr(plans, "GemmPlan", FakePlan)
    with pytest.raises(Reached):
        main(["run", "--m", "4096", "--n", "4096", "--k", "4096", "--no-cublas"])
    assert seen == [dict(shape=(4096, 4096, 4096), layouts=(False, False), lds=(4096, 4096, 4096), arch="sm_90")]
    cfg, backend = default_sgemm_kernel(4096, 4096, "sm_90", 132)
    err = capsys.readouterr().err
    assert "regtile.sgemm's default kernel" in err and cfg.describe() in err
    line = _refused(capsys, ["run", "--m", "4096", "--n", "4096", "--k", "4096", "--no-cublas",
                             "--backend", "cuda" if backend == "ptx" else "ptx"])
    assert "--backend" in line and "give --preset" in line
    seen.clear()
    with pytest.raises(Reached):  # m == 1: regtile.sgemm's GEMV route, named
        main(["run", "--m", "1", "--n", "7680", "--k", "2560", "--no-cublas"])
    assert [s["shape"] for s in seen] == [(1, 7680, 2560)]  # one plan: named, then timed
    assert "GEMV route" in capsys.readouterr().err


def test_progress_only_on_a_terminal_and_never_with_json(monkeypatch):
    import io
    from regtile.tools import progress

    class Tty(io.StringIO):
        def isatty(self):
            return True
    for tty, json_output, shown in ((True, False, True), (True, True, False), (False, False, False)):
        err = Tty() if tty else io.StringIO()
        monkeypatch.setattr("sys.stderr", err)
        progress.configure(json_output=json_output)
        bar = progress.Counter(3, "time")
        bar.step("zorder")
        bar.done()
        assert ("time 1/3 zorder" in err.getvalue()) == shown
    monkeypatch.setenv("REGTILE_PROGRESS", "0")
    monkeypatch.setattr("sys.stderr", Tty())
    progress.configure()
    assert not progress.enabled()
    progress.configure()  # leave it as a terminal-less run finds it


def test_inspect_an_sgemv_preset_names_its_reduction(capsys):
    """An SGEMV module's second kernel is the splits' reduction, sized by the plan: inspect says so
    (it used to read the SGEMM config's split_k and crash)."""
    assert main(["inspect", "--preset", "sgemv-n32"]) == 0
    out = capsys.readouterr().out
    assert "the splits' reduction, when the plan splits" in out and "split_k" not in out


def test_member_names_a_family_kernel_on_its_backend():
    """--member NAME takes a shape-family member (the names run and the sweep print) with its own
    backend; flags override its fields; --preset with it is refused (no compile here)."""
    import argparse
    from regtile.codegen.presets import FAMILY
    from regtile.tools.options import UsageError, add_kernel_args, backend_from_args, config_from_args
    p = argparse.ArgumentParser()
    add_kernel_args(p, backend=True)
    args = p.parse_args(["--member", "fused-32x32"])
    assert config_from_args(args) == ("fused-32x32", FAMILY["fused-32x32"].config)
    assert backend_from_args(args) == "fusedk"
    args = p.parse_args(["--member", "wide-128x256", "--ffma-order", "swirl", "--backend", "cuda"])
    label, cfg = config_from_args(args)
    assert label == "wide-128x256-custom" and cfg.ffma_order == "swirl" and backend_from_args(args) == "cuda"
    with pytest.raises(UsageError, match="choose one kernel"):
        config_from_args(p.parse_args(["--member", "fused-32x32", "--preset", "zorder"]))


@pytest.mark.slow
def test_inspect_a_fused_member(capsys):
    """The fused kernel (its own template) gets no shared-memory bank model - the program's model is of another
    kernel - and inspect says so instead of printing one; its registers and SASS are read as any kernel's."""
    assert main(["inspect", "--member", "fused-32x32"]) == 0
    out = capsys.readouterr().out
    assert "regtile_fusedk_" in out and "(fused-32x32," in out and "spill-free" in out
    assert "shared-memory banks: not modelled for the fused split-K kernel" in out and "wavefronts" not in out
    config = next(line for line in out.splitlines() if line.startswith("config"))  # the kernel's own words
    assert "cp.async ring of 4 stages" in config and "stages 1" not in config and "zorder" not in config
    assert main(["inspect", "--member", "fused-32x32", "--trans-b", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert "not_modelled" in d["analyses"]["smem_banks"] and "register_banks" in d["analyses"]


def test_run_member_takes_the_familys_split_for_the_shape():
    """`regtile run --member splitk-...` runs what the sweep names (e.g. "splitk-32x32-f4 split-K 16"),
    not the member's split 1; a one-pass member stays as it is."""
    from regtile.codegen.presets import FAMILY
    from regtile.tools.cmd_run import member_split
    cfg = member_split("splitk-32x32-f4", FAMILY["splitk-32x32-f4"].config, 700, 35, 2048, 132)
    assert cfg.split_k == 16
    assert member_split("fused-32x32", FAMILY["fused-32x32"].config, 700, 35, 2048, 132).split_k > 1
    assert member_split("sq-64x64", FAMILY["sq-64x64"].config, 700, 35, 2048, 132) == FAMILY["sq-64x64"].config


def test_run_reports_the_split_of_a_fused_member_without_a_reduce_kernel():
    """`regtile run --member fused-*` (now with its split) read art.source.reduce.name and crashed
    on the H100: the fused kernel sums its splits in the same launch and has no reduce entry."""
    from regtile.codegen.emit import emit
    from regtile.codegen.presets import FAMILY
    from regtile.tools.cmd_run import member_split, split_fields
    fused = member_split("fused-64x64", FAMILY["fused-64x64"].config, 700, 96, 2048, 132)
    assert split_fields(fused, emit(fused, backend="fusedk")) == {"split_k": fused.split_k, "reduce_kernel": None}
    cuda = FAMILY["splitk-64x64"].config.replace(split_k=4)
    assert split_fields(cuda, emit(cuda, backend="cuda"))["reduce_kernel"].startswith("regtile_splitk_reduce")
    assert split_fields(FAMILY["sq-64x64"].config, None) == {}


def test_run_names_the_kernel_regtile_sgemm_builds_for_unaligned_rows(monkeypatch):
    """`regtile run` without a kernel on rows that are not 16-byte aligned names the kernel GemmPlan
    launches (the unaligned rows' copies or vector floats, applied in runtime/choice.choose_sgemm_kernel),
    not the bare member: it printed one config and timed another."""
    from types import SimpleNamespace
    from regtile.codegen.operand_forms import for_operands
    from regtile.runtime import choice, driver
    from regtile.tools import cmd_run
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132))
    monkeypatch.setattr(choice, "_tuned", lambda device_name: {})
    label, cfg, backend, why = cmd_run._chosen_kernel(SimpleNamespace(kernel=None, m=1009, n=1013, k=1019), "sm_90")
    assert label == "default" and (cfg.unaligned_rows or cfg.unaligned_vectors) and backend == "ptx"
    member, mback = choice.default_sgemm_kernel(1009, 1013, "sm_90", 132, 1019)
    assert (cfg, backend) == (for_operands(member, mback, 1019, 1013, 1009, 1013), mback) and cfg.c_staged
    assert cfg != member
    aligned = choice.choose_sgemm_kernel(1024, 1024, 1024, "sm_90")[0]
    assert not (aligned.unaligned_rows or aligned.unaligned_vectors)
    assert choice.choose_sgemm_kernel(1009, 1013, 1019, "sm_90", lda=1020, ldb=1016)[0] == member.replace(c_staged=True)


def test_the_staged_epilogue_follows_cs_leading_dimension_not_n(monkeypatch):
    """C's rows go through shared memory where ldc % 4 != 0 (operand_forms.for_c), whatever N is: a C view with
    ldc = N + 1 and N % 4 == 0 took the per-float stores until session 27 (the choice tested N), and a padded C
    (ldc % 4 == 0, N ragged) carried the staging it never takes."""
    from types import SimpleNamespace
    from regtile.runtime import choice, driver
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132))
    monkeypatch.setattr(choice, "_tuned", lambda device_name: {})
    packed = choice.choose_sgemm_kernel(1024, 1024, 1024, "sm_90")[0]
    assert not packed.c_staged
    assert choice.choose_sgemm_kernel(1024, 1024, 1024, "sm_90", ldc=1025)[0] == packed.replace(c_staged=True)
    ragged = choice.choose_sgemm_kernel(1009, 1013, 1019, "sm_90", lda=1020, ldb=1016)[0]
    assert ragged.c_staged  # ldc None: packed, N
    assert choice.choose_sgemm_kernel(1009, 1013, 1019, "sm_90", lda=1020, ldb=1016, ldc=1016)[0] == \
        ragged.replace(c_staged=False)


def test_the_choice_takes_the_rows_class_from_the_leading_dimensions(monkeypatch):
    """choose_sgemm_kernel picks the member for the operands' rows' class (heuristic.rows_aligned of lda, ldb and
    ldc): 1000^3 takes another member when C's rows are 1001 floats apart or A's 1001, and a ragged shape another
    when its rows are padded (session 29)."""
    from types import SimpleNamespace
    from regtile.codegen import heuristic
    from regtile.runtime import choice, driver
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132))
    monkeypatch.setattr(choice, "_tuned", lambda device_name: {})

    def tile(cfg):
        return cfg.bm, cfg.bn, cfg.bk, cfg.tm, cfg.tn
    packed = heuristic.member_config(heuristic.choose_member(1000, 1000, 1000, 132), 1000, 1000, 1000, 132)[0]
    other = heuristic.member_config(heuristic.choose_member(1000, 1000, 1000, 132, aligned=False), 1000, 1000, 1000,
                                    132)[0]
    assert tile(packed) != tile(other)
    assert tile(choice.choose_sgemm_kernel(1000, 1000, 1000, "sm_90")[0]) == tile(packed)
    assert tile(choice.choose_sgemm_kernel(1000, 1000, 1000, "sm_90", ldc=1001)[0]) == tile(other)
    assert tile(choice.choose_sgemm_kernel(1000, 1000, 1000, "sm_90", lda=1001)[0]) == tile(other)
    q = (500, 501, 1001)  # packed rows unaligned (N and K odd)
    ragged, padded = (heuristic.member_config(heuristic.choose_member(*q, 132, aligned=a), *q, 132)[0]
                      for a in (None, True))
    assert tile(ragged) != tile(padded)
    assert tile(choice.choose_sgemm_kernel(*q, "sm_90")[0]) == tile(ragged)
    assert tile(choice.choose_sgemm_kernel(*q, "sm_90", lda=1004, ldb=504, ldc=504)[0]) == tile(padded)


def test_run_reports_the_config_the_plan_runs(monkeypatch, capsys):
    """`regtile run` reports the config regtile.sgemm's plan runs (generated for the operands, perhaps its register
    cap lifted: here a stand-in, the chooser's config for 3332 columns, not its own for 3333) and that kernel's
    launch plans."""
    from types import SimpleNamespace
    from regtile.runtime import bench, driver, plans
    from regtile.runtime.choice import default_sgemm_kernel
    from regtile.tools import cmd_run
    main_cfg, _ = default_sgemm_kernel(1111, 3332, "sm_90", 132, 2222)
    parts = []

    class FakePlan:
        def __init__(self, m, n, k, trans_a, trans_b, lda, ldb, ldc, arch=None):
            self.gemv, self.config = None, main_cfg
            self.kernel = SimpleNamespace(artifact=SimpleNamespace(name="k", resources=SimpleNamespace(registers=200),
                                                                   source=None))

    res = bench.Result(1111, 3333, 2222, 1.0, 0.0, ms=0.4, tflops=40.0, rel_err=1e-7, err_rows="all rows",
                       unwritten=0, ok=True)
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132,
                                                                  driver_version="CUDA 13.0"))
    monkeypatch.setattr(bench, "GemmWorkload", lambda *a, **k: SimpleNamespace(close=lambda: None, sets=1))
    monkeypatch.setattr(bench, "check_and_time", lambda *a, **k: res)
    monkeypatch.setattr(plans, "GemmPlan", FakePlan)
    monkeypatch.setattr(cmd_run, "_launch_plans", lambda art, m, n, k: parts.append((m, n, k)) or {})
    assert main(["run", "--m", "1111", "--n", "3333", "--k", "2222", "--no-cublas", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"] == main_cfg.to_dict() and parts == [(1111, 3333, 2222)]
    assert "vector_trim" not in out
