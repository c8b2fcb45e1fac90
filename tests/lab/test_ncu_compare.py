"""ncu_compare: the CSV format, the comparison's explanations, and the committed H100 data."""
from pathlib import Path

import pytest

from regtile.codegen.smem_banks import NCU_CONFLICTS, NCU_INST, NCU_WAVEFRONTS
from regtile.lab import ncu_compare as nc
from regtile.tools.datafiles import open_text

CSV = Path(__file__).resolve().parents[2] / "docs" / "data" / "ncu_smem_2026-11-22.csv"


def _csv_text():
    """The committed CSV's text (CSV or CSV.gz: docs/data stores its files over 300 KB gzipped)."""
    with open_text(CSV) as f:
        return f.read()


HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
        '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def _section(preset, size, kernel, grid, metrics):
    rows = [f"### {preset} {size}", "==PROF== Connected to process 1 (/usr/bin/python3)", HEAD]
    for name, value in metrics.items():
        rows.append(f'"0","1","python3","127.0.0.1","{kernel}","1","7","(256, 1, 1)","{grid}","0","9.0",'
                    f'"Command line profiler metrics","{name}","","{value:,}"')
    return "\n".join(rows) + "\n"


def _tile2d_metrics(ld_extra=0, st_extra=0, ld_inst=134_217_728, ideal_shift=0):
    return {NCU_CONFLICTS["LDS"]: 268_435_456 + ld_extra, NCU_CONFLICTS["STS"]: st_extra,
            NCU_WAVEFRONTS["LDS"]: 671_088_640 + ld_extra + ideal_shift, NCU_WAVEFRONTS["STS"]: 33_554_432 + st_extra,
            NCU_INST["LDS"]: ld_inst, NCU_INST["STS"]: 33_554_432}


def _compare(text):
    return [nc.compare(m) for m in nc.parse_csv(text)]


def test_parse_the_committed_csv():
    ms = nc.parse_csv(_csv_text())
    assert [m.preset for m in ms] == ["naive", "smem", "tile1d", "tile2d", "tile2d-reg", "vec4", "dbuf", "pad",
                                      "zorder", "zorder-256x128"]
    assert all(len(m.metrics) == 8 for m in ms) and ms[0].size == 1024 and ms[1].size == 4096
    t2 = ms[3]
    assert t2.kernel == "regtile_sgemm_128x128x8_8x8_20b7e17295" and t2.grid == "(32, 32, 1)" and t2.cc == "9.0"
    assert t2.metrics[NCU_WAVEFRONTS["LDS"]] == 671_088_640
    assert t2.metrics["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"] == 36.09


@pytest.mark.slow
def test_exact_interference_and_flags():
    from regtile.codegen.emit_cuda import kernel_name
    from regtile.codegen.presets import get_preset
    kernel = kernel_name(get_preset("tile2d").config)
    (c,) = _compare(_section("tile2d", 4096, kernel, "(32, 32, 1)", _tile2d_metrics(ld_extra=500)))
    ex = {r.counter: r.explanation for r in c.rows}
    assert ex["ld instructions"] == "exact" and ex["st wavefronts"] == "exact"
    assert ex["ld wavefronts"].startswith("interference") and "+500 wavefronts" in ex["ld wavefronts"]
    assert c.notes == [] and c.flags == 0
    # a large store excess with the ideal exact: flagged, with where the stores sit
    (c,) = _compare(_section("tile2d", 4096, kernel, "(32, 32, 1)", _tile2d_metrics(st_extra=4_000_000)))
    st = {r.counter: r for r in c.rows}["st wavefronts"]
    assert st.explanation.startswith("FLAG") and "0 of 512 FFMAs after the LDGs" in st.explanation
    # ideal wavefronts that differ: an address the model gets wrong
    (c,) = _compare(_section("tile2d", 4096, kernel, "(32, 32, 1)", _tile2d_metrics(ideal_shift=64)))
    assert "ideal wavefronts" in {r.counter: r for r in c.rows}["ld wavefronts"].explanation
    # instruction counts that differ: not comparable
    (c,) = _compare(_section("tile2d", 4096, kernel, "(32, 32, 1)", _tile2d_metrics(ld_inst=536_870_912)))
    assert {r.counter: r for r in c.rows}["ld instructions"].explanation.startswith("FLAG: 128 instructions")
    # another kernel name than the current build: noted; another grid: flagged
    (c,) = _compare(_section("tile2d", 4096, "regtile_sgemm_other", "(16, 32, 1)", _tile2d_metrics()))
    assert [n.split(":")[0] for n in c.notes] == ["note", "FLAG"]


@pytest.mark.slow
def test_committed_data_every_ideal_and_instruction_count_is_exact():
    comps = _compare(_csv_text())
    for c in comps:
        rows = {r.counter: r for r in c.rows}
        for kind in ("ld", "st"):
            assert rows[f"{kind} instructions"].explanation == "exact", c.measured.preset
            assert c.excess(kind) is not None and c.excess(kind)[0] >= 0  # ideal exact, excess in both counters
        assert not [n for n in c.notes if n.startswith("FLAG")]  # same grid; names may differ (config hash)
    by = {c.measured.preset: {r.counter: r for r in c.rows} for c in comps}
    assert by["tile2d"]["ld wavefronts"].per_warp_ktile == (160, 160) and by["tile2d"]["ld conflicts"].measured == \
        268_435_456
    # the load excess is interference everywhere; stores are flagged in the single-stage rungs and zorder
    for c in comps:
        assert not {r.counter: r for r in c.rows}["ld wavefronts"].explanation.startswith("FLAG")
    flagged = {c.measured.preset for c in comps if {r.counter: r for r in c.rows}["st wavefronts"].explanation
               .startswith("FLAG")}
    assert flagged == {"smem", "tile1d", "tile2d", "tile2d-reg", "vec4", "zorder"}


@pytest.mark.slow
def test_markdown_and_cli(tmp_path, capsys):
    text = _csv_text()
    small = "### " + "### ".join(s for s in text.split("### ")[1:] if s.startswith(("tile2d ", "pad ")))
    src = tmp_path / "m.csv"
    src.write_text(small)
    out = tmp_path / "bc.md"
    assert nc.main(["--csv", str(src), "--out", str(out), "--device", "NVIDIA H100 80GB HBM3",
                    "--commit", "539a175"]) == 0
    md = out.read_text()
    assert md.startswith("# Shared-memory bank conflicts") and "- device: NVIDIA H100 80GB HBM3" in md
    assert "## tile2d (M = N = K = 4096)" in md and "## pad (M = N = K = 4096)" in md
    assert "| ld wavefronts | 671,088,640 | 671,088,640 | 0 | 160 / 160 | exact |" in md
    assert "## Store excess" in md and "following ptxas's vectorization seen in the SASS" in md
    assert "tile2d 4096" in capsys.readouterr().out
    assert nc.main(["--csv", str(tmp_path / "none.csv")]) == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("### tile2d\n")
    assert nc.main(["--csv", str(bad)]) == 2


def test_ncu_command_and_launch_args():
    cmd = nc.ncu_command("zorder", 4096, "ncu", "python3")
    assert cmd[:3] == ["ncu", "--clock-control", "none"] and "--csv" in cmd
    assert cmd[cmd.index("--metrics") + 1] == ",".join(nc.METRICS)
    assert cmd[-6:] == ["python3", "-m", "regtile.lab.ncu_compare", "--launch", "zorder", "4096"]
    assert nc.main(["--launch", "zorder"]) == 2


def test_run_writes_sections_even_when_ncu_fails(tmp_path):
    out = tmp_path / "n.csv"
    nc.run_ncu(out, ["tile2d"], 256, 64, ncu="false")  # `false` stands in for a failing ncu
    text = out.read_text()
    assert text.startswith("### tile2d 256\n")
    assert nc.parse_csv(text)[0].metrics == {}
