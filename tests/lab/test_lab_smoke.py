"""Every program of the lab stays runnable: each module of regtile.lab and of lab/experiments
(run from the repository root as lab.experiments.NAME) imports without a GPU and its --help
exits 0 (the experiments import their GPU work only when they run); the device-run recipes
parse as bash; docs/data holds data, not code; the old tools.* names still resolve."""
import importlib
import pathlib
import pkgutil
import shutil
import subprocess

import pytest

import regtile.lab

ROOT = pathlib.Path(__file__).resolve().parents[2]
LAB = ROOT / "lab"
PROGRAMS = ["regtile.lab." + m.name for m in pkgutil.iter_modules(regtile.lab.__path__) if not m.ispkg]
EXPERIMENTS = ["lab.experiments." + p.stem for p in sorted((LAB / "experiments").glob("*.py"))
               if p.stem != "__init__"]


def test_the_lab_holds_the_programs_and_experiments():
    assert {"regtile.lab.regbank_calib", "regtile.lab.regbank_variants", "regtile.lab.ncu_compare",
            "regtile.lab.ncu_source", "regtile.lab.register_sweep"} <= set(PROGRAMS)
    assert len(EXPERIMENTS) >= 15


@pytest.mark.parametrize("name", PROGRAMS + EXPERIMENTS)
def test_help_runs_without_a_gpu(name, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))  # lab.experiments: from the repository root, as they run
    mod = importlib.import_module(name)
    if not hasattr(mod, "main"):
        pytest.skip(f"{name} is a library of the lab, not a program")
    with pytest.raises(SystemExit) as e:
        mod.main(["--help"])
    assert e.value.code == 0
    assert "usage: python3 -m " + name in capsys.readouterr().out.replace("\n", " ")


@pytest.mark.parametrize("name", PROGRAMS + EXPERIMENTS)
def test_python_m_runs_main(name, monkeypatch):
    """`python3 -m NAME` runs the program: its module calls main() under __main__ (without it, the
    device recipes' `python3 -m lab.experiments.NAME` would do nothing and exit 0)."""
    monkeypatch.syspath_prepend(str(ROOT))
    mod = importlib.import_module(name)
    if not hasattr(mod, "main"):
        pytest.skip(f"{name} is a library of the lab, not a program")
    source = pathlib.Path(mod.__file__).read_text()
    assert 'if __name__ == "__main__":' in source and "main(" in source.split('if __name__ == "__main__":')[-1]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
@pytest.mark.parametrize("script", sorted((LAB / "device_runs").glob("*.sh")), ids=lambda p: p.name)
def test_device_run_recipes_parse(script):
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0


def test_docs_data_holds_no_code():
    data = ROOT / "docs" / "data"
    if not data.is_dir():
        pytest.skip("no docs/data beside this checkout")
    assert not [p.name for p in data.rglob("*") if p.suffix in (".py", ".sh", ".patch")]


def test_old_tools_names_resolve_to_the_lab():
    from regtile import tools
    from regtile.tools import register_sweep
    assert register_sweep is importlib.import_module("regtile.lab.register_sweep")
    assert tools.ncu_source is importlib.import_module("regtile.lab.ncu_source")


def test_cublas_kernels_takes_the_losing_shapes_of_a_sweep(tmp_path, monkeypatch):
    """lab.experiments.cublas_kernels profiles the shapes below 1.0x, worst first, or those given."""
    import json
    monkeypatch.syspath_prepend(str(ROOT))
    from lab.experiments import cublas_kernels
    sweep = tmp_path / "s.json"
    sweep.write_text(json.dumps([{"m": 1, "n": 2, "k": 3, "x_cublas": 0.9}, {"m": 4, "n": 5, "k": 6, "x_cublas": 1.2},
                                 {"m": 7, "n": 8, "k": 9, "x_cublas": 0.5}]))
    shapes, rows, calls, layout = cublas_kernels._shapes(["--sweep", str(sweep), "--calls", "2"])
    assert shapes == [(7, 8, 9), (1, 2, 3)] and calls == 2 and len(rows) == 3 and layout == "NN"
    assert cublas_kernels._shapes(["--sweep", str(sweep), "65x33x4097"])[0] == [(65, 33, 4097)]
    assert cublas_kernels._shapes(["--layout", "TN", "--sweep", str(sweep)])[3] == "TN"  # a layout's sweep (session 30)
