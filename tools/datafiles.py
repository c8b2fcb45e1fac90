"""Reading the measurement archive (docs/data), where files over 300 KB are stored gzipped as NAME.gz.

    open_text(path)  a text file object of `path` if it exists (gunzipped where its name ends in .gz),
                     else of `path + ".gz"` gunzipped; FileNotFoundError naming both where neither exists
    load_json(path)  json.load of open_text(path)

A reader given the name a file had before it was gzipped (foo.json, as the docs and the decision table's `source`
name it) reads foo.json.gz; a file never gzipped reads as before.
"""
from __future__ import annotations

import gzip
import json
import os
from typing import IO, Any, Optional


def resolve(path) -> str:
    """The file open_text reads for `path`: `path` where it exists, else `path + ".gz"`; FileNotFoundError naming
    both where neither exists."""
    path = os.fspath(path)
    if os.path.exists(path):
        return path
    gz = path + ".gz"
    if os.path.exists(gz):
        return gz
    raise FileNotFoundError(2, f"neither {path} nor {gz} exists", path)


def open_text(path, newline: Optional[str] = None) -> IO[str]:
    """`path` opened for reading as text, or `path + ".gz"` gunzipped where `path` does not exist (a path that
    itself ends in .gz is gunzipped); FileNotFoundError naming both where neither exists."""
    found = resolve(path)
    if found.endswith(".gz"):
        return gzip.open(found, "rt", newline=newline)
    return open(found, newline=newline)


def load_json(path) -> Any:
    """The JSON of `path` (or `path + ".gz"`: open_text)."""
    with open_text(path) as f:
        return json.load(f)
