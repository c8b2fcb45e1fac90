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
def test_bad_input_is_one_line_and_exit_2(args, needle):
    res = _cli(*args)
    assert res.returncode == 2, res
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert needle in lines[0]


def test_unwritable_out_is_refused(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("")
    res = _cli("gen", "--preset", "naive", "--out", str(blocker / "sub"))
    assert res.returncode == 2 and "--out" in res.stderr
    assert not (blocker.parent / "sub").exists()


def test_help_has_examples():
    res = _cli("--help")
    assert res.returncode == 0 and "regtile gen --preset zorder" in res.stdout
    res = _cli("gen", "--help")
    assert res.returncode == 0 and "examples" in res.stdout
