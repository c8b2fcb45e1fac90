"""tools/datafiles: docs/data's readers take a file's name whether it is stored as NAME or gzipped as NAME.gz."""
import gzip
import json

import pytest

from regtile.tools.datafiles import load_json, open_text


def test_reads_the_file_where_it_exists_else_its_gz(tmp_path):
    plain, packed = tmp_path / "a.json", tmp_path / "b.json"
    plain.write_text(json.dumps({"rows": [1]}))
    with gzip.open(str(packed) + ".gz", "wt") as f:
        json.dump({"rows": [2]}, f)
    assert load_json(plain) == {"rows": [1]}
    assert load_json(str(packed)) == {"rows": [2]}          # b.json -> b.json.gz
    assert load_json(str(packed) + ".gz") == {"rows": [2]}  # named .gz: gunzipped
    with open_text(packed, newline="") as f:
        assert f.read() == '{"rows": [2]}'


def test_missing_names_both_paths(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        open_text(tmp_path / "c.csv")
    assert str(tmp_path / "c.csv") in str(e.value) and str(tmp_path / "c.csv.gz") in str(e.value)
