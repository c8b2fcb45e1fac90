"""lab/ncu_source.py on a source-page CSV laid out as Nsight Compute writes it
(columns as in docs/data's H100 profiles), with numbers chosen so every share is known."""
import pytest

from regtile.lab import ncu_source

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)",'
          '"# Samples","stall_selected","stall_short_sb","stall_wait","stall_sleep",'
          '"stall_selected (Not Issued)","stall_short_sb (Not Issued)","stall_wait (Not Issued)",'
          '"stall_sleeping (Not Issued)"')
ROWS = [
    '"0x10","      FFMA R1, R2, R3, R1","60","2","60","50","10","0","0","0","2","0","0"',
    '"0x20","@!P1  BRA 0x100","30","6","30","10","0","20","0","0","0","6","0"',
    '"0x30","      LDS.128 R4, [R8+UR4]","10","1","10","5","0","4","1","0","0","0","1"',
]
CSV = ['"Kernel Name","regtile_sgemm_x",', HEADER] + ROWS


def test_shares_by_reason_opcode_and_hottest():
    s = ncu_source.summarize(CSV)
    assert s.kernel == "regtile_sgemm_x" and s.samples == 100 and s.not_issued == 9
    assert s.by_reason == pytest.approx({"selected": 0.65, "wait": 0.24, "short_sb": 0.10, "sleep": 0.01})
    assert s.by_reason_not_issued == pytest.approx({"wait": 0.06, "short_sb": 0.02, "sleep": 0.01})
    assert s.by_opcode == pytest.approx({"FFMA": 0.60, "BRA": 0.30, "LDS": 0.10})  # predicate and width stripped
    assert [h["sass"].split()[1] for h in s.hottest] == ["BRA", "R1,", "R4,"]
    assert s.hottest[0]["not_issued"] == pytest.approx(0.06)
    text = ncu_source.render(s)
    assert "9.00% taken in cycles with no instruction issued" in text and "6.00%  @!P1  BRA" in text


def test_other_csv_is_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="not an Nsight Compute source-page CSV"):
        ncu_source.summarize(['"ID","Metric Name","Metric Value"', '"0","x","1"'])
    bad = tmp_path / "raw.csv"
    bad.write_text('"Address","Source"\n"0x10","FFMA"\n')
    assert ncu_source.main([str(bad)]) == 2
    assert "collect with --set full" in capsys.readouterr().err
