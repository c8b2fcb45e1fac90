"""The decision table's fit (tools/table_fit.py, shape_sweep.py --fit) on made-up candidates rows, no GPU: the
fastest member per shape, a later run's rows replacing an earlier one's, and the sticky refit that
keeps a table's member unless the new run times it clearly slower."""
import json

import pytest

from regtile.tools.shape_sweep import main
from regtile.tools.table_fit import fit_table, merge_runs


def _row(m, n, k, **us):
    return {"m": m, "n": n, "k": k, "cublas_us": 100.0,
            "kernels": {name.replace("_", "-"): {"ok": True, "us": t} for name, t in us.items()}}


RUN = {"device": "H100", "sm_count": 132, "rows": [
    _row(1024, 1024, 1024, wide_64x128=50.0, sq_64x64=51.0),  # a near-tie: 2% apart
    _row(2000, 2000, 2000, wide_128x256=300.0, wide_64x128_k16=340.0),  # a clear gain: 13%
]}
BEFORE = [{"m": 1024, "n": 1024, "k": 1024, "best": "sq-64x64"}, {"m": 2000, "n": 2000, "k": 2000, "best": "wide-64x128-k16"}]


def _best(table):
    return {(e["m"], e["n"], e["k"]): e["best"] for e in table["entries"]}


def test_plain_fit_takes_the_fastest_and_a_later_run_replaces_a_shape():
    assert _best(fit_table(RUN)) == {(1024, 1024, 1024): "wide-64x128", (2000, 2000, 2000): "wide-128x256"}
    later = {"rows": [_row(1024, 1024, 1024, wide_64x128=52.0, sq_64x64=51.0)]}
    assert _best(fit_table(merge_runs([RUN, later])))[(1024, 1024, 1024)] == "sq-64x64"


def test_sticky_fit_moves_only_clear_gains():
    table = fit_table(RUN, previous=BEFORE, sticky=0.03)
    assert _best(table) == {(1024, 1024, 1024): "sq-64x64", (2000, 2000, 2000): "wide-128x256"}
    kept = next(e for e in table["entries"] if e["m"] == 1024)
    assert kept["x_cublas"] == round(100.0 / 51.0, 4) and kept["rel"]["sq-64x64"] == 1.02  # the kept member's own
    assert table["sticky"] == 0.03
    assert _best(fit_table(RUN, previous=BEFORE, sticky=0.01))[(1024, 1024, 1024)] == "wide-64x128"


def test_sticky_fit_does_not_keep_a_member_slower_than_cublas():
    """A near-tie below cuBLAS takes this run's fastest: stickiness is for shapes already won."""
    run = {"rows": [dict(_row(1024, 1024, 1024, wide_64x128=50.0, sq_64x64=51.0), cublas_us=50.5)]}
    assert _best(fit_table(run, previous=BEFORE, sticky=0.03))[(1024, 1024, 1024)] == "wide-64x128"
    run["rows"][0]["cublas_us"] = 51.0  # the kept member at par with cuBLAS stays
    assert _best(fit_table(run, previous=BEFORE, sticky=0.03))[(1024, 1024, 1024)] == "sq-64x64"


def test_sticky_cli_reads_the_table_it_rewrites(tmp_path, capsys):
    raw, table = tmp_path / "raw.json", tmp_path / "table.json"
    raw.write_text(json.dumps(RUN))
    table.write_text(json.dumps({"entries": BEFORE}))
    assert main(["--fit", str(raw), "--table", str(table), "--sticky", "0.03"]) == 0
    assert _best(json.loads(table.read_text()))[(1024, 1024, 1024)] == "sq-64x64"


def test_model_from_fits_the_model_on_other_runs_and_names_them(tmp_path):
    """--model-from: the entries from --fit's runs, the model from these runs' suite rows (the table names them)."""
    raw, other, table = tmp_path / "raw.json", tmp_path / "other.json", tmp_path / "table.json"
    raw.write_text(json.dumps(RUN))
    slower = {"rows": [_row(1024, 1024, 1024, wide_64x128=100.0, sq_64x64=102.0),
                       _row(2000, 2000, 2000, wide_128x256=600.0, sq_64x64=900.0)]}
    other.write_text(json.dumps(slower))
    assert main(["--fit", str(raw), "--table", str(table), "--model-from", str(other)]) == 0
    got, own = json.loads(table.read_text()), fit_table(RUN)
    assert _best(got) == _best(own) and got["model_source"] == "other.json"
    assert got["model_tflops"] == fit_table(slower)["model_tflops"] != own["model_tflops"]
    assert "model_source" not in own


def test_a_refit_keeps_the_model_source_the_table_names_unless_told(tmp_path, monkeypatch, capsys):
    """--fit rewriting a table that names a model_source fits the model on those runs (under docs/data) by default,
    and on --fit's own runs with --refit-model."""
    from regtile.tools import table_fit
    monkeypatch.setattr(table_fit, "DATA", str(tmp_path))
    raw, other, table = tmp_path / "raw.json", tmp_path / "other.json", tmp_path / "table.json"
    raw.write_text(json.dumps(RUN))
    slower = {"rows": [_row(1024, 1024, 1024, wide_64x128=100.0, sq_64x64=102.0),
                       _row(2000, 2000, 2000, wide_128x256=600.0, sq_64x64=900.0)]}
    other.write_text(json.dumps(slower))
    table.write_text(json.dumps({"entries": BEFORE, "source": "raw.json", "model_source": "other.json"}))
    assert main(["--fit", str(raw), "--table", str(table), "--sticky", "0.03"]) == 0
    got = json.loads(table.read_text())
    assert got["model_source"] == "other.json" and got["model_tflops"] == fit_table(slower)["model_tflops"]
    assert main(["--fit", str(raw), "--table", str(table), "--refit-model"]) == 0
    got = json.loads(table.read_text())
    assert "model_source" not in got and got["model_tflops"] == fit_table(RUN)["model_tflops"]
    for bad in (["--model-from", str(other), "--refit-model"], ["--table", str(tmp_path / "none.json"), "--sticky",
                                                                  "0.03"]):
        with pytest.raises(SystemExit):
            main(["--fit", str(raw), *(bad if "--table" in bad else ["--table", str(table), *bad])])
    assert "--refit-model" in capsys.readouterr().err


def test_the_committed_table_is_what_fit_gives_from_its_sources():
    """codegen/heuristic_table.json regenerated from the candidates runs it names (docs/data), sticky to itself, its
    model from the runs model_source names where it names them: the same entries and the same model (throughputs,
    and the fused members' fixed costs)."""
    import os
    from regtile.codegen.heuristic import TABLE_PATH
    from regtile.tools.datafiles import load_json
    with open(TABLE_PATH) as f:
        committed = json.load(f)
    data = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "data")
    def runs(names):
        return merge_runs([load_json(os.path.join(data, name)) for name in names.split(", ")])  # NAME or NAME.gz
    model_source = committed.get("model_source", "")  # the runs the model was fitted on, where not `source`
    again = fit_table(runs(committed["source"]), committed["source"], committed["entries"], committed["sticky"],
                      model_raw=runs(model_source) if model_source else None, model_source=model_source)
    for key in ("entries", "model_tflops", "model_fixed_us", "model_source"):
        assert again.get(key) == committed.get(key), key


def test_the_fused_members_fixed_cost_is_fitted_with_their_throughput():
    """Made-up times of 10 us a launch and 30 TFLOP/s on four shapes: fit_model finds both for a fused member;
    the others keep LAUNCH_US and a median throughput."""
    from regtile.codegen.heuristic import LAUNCH_US, model_parts
    from regtile.codegen.heuristic_fit import fit_model
    shapes = [(64, 512, 4096), (256, 256, 8192), (1024, 128, 2048), (2048, 2048, 1024)]
    rows = []
    for m, n, k in shapes:
        flops, _, launches = model_parts("fused-64x64", m, n, k, 132)
        rows.append({"m": m, "n": n, "k": k, "cublas_us": 1.0,
                     "kernels": {"fused-64x64": {"ok": True, "us": flops / 30e6 + 10.0 * launches}}})
    tflops, fixed = fit_model(rows)
    assert fixed == {"fused-64x64": 10.0} and tflops["fused-64x64"] == 30.0 and LAUNCH_US != 10.0


def test_the_model_is_fitted_on_the_suite_rows_alone():
    """The small-problem grid's rows (group "fit") become entries but leave the model's throughputs alone:
    with them the model's form, which prices full SMs, picked 1.9x the fastest member on a held-out shape."""
    suite_only = fit_table(RUN)
    grid = {"m": 96, "n": 128, "k": 64, "group": "fit", "cublas_us": 9.0,
            "kernels": {"wide-64x128": {"ok": True, "us": 40.0}, "wide-128x256": {"ok": True, "us": 45.0}}}
    both = fit_table({**RUN, "rows": RUN["rows"] + [grid]})
    assert (96, 128, 64) in _best(both) and (96, 128, 64) not in _best(suite_only)
    assert both["model_tflops"] == suite_only["model_tflops"]
    grid_as_suite = fit_table({**RUN, "rows": RUN["rows"] + [dict(grid, group="small")]})
    assert grid_as_suite["model_tflops"] != suite_only["model_tflops"]  # the row would have moved it
    ragged = fit_table({**RUN, "rows": RUN["rows"] + [dict(grid, n=129, k=65, group="fit-ragged")]})  # session 29
    assert (96, 129, 65) in _best(ragged) and ragged["model_tflops"] == suite_only["model_tflops"]


def test_merged_runs_name_every_device_whose_rows_they_keep():
    """The table mixes devices since session 29 (the H100's runs, the H200's ragged grids): its `device` names each
    device with a row kept, in order, and none whose rows a later run replaced."""
    from regtile.tools.table_fit import merge_runs
    row = {"m": 64, "n": 64, "k": 64, "cublas_us": 1.0, "kernels": {}}
    h100 = {"device": "H100", "rows": [row, dict(row, m=128)]}
    h200 = {"device": "H200", "rows": [dict(row, k=65)]}
    assert merge_runs([h100, h200])["device"] == "H100 + H200"
    assert merge_runs([h100, {"device": "H200", "rows": [dict(row), dict(row, m=128)]}])["device"] == "H200"
