"""Where a measurement came from and how it is written down: the source commit, the raw
JSON, a markdown table (tools/cmd_bench.py, tools/sgemv_sweep.py, benchmarks/*.py)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Iterable, Optional, Sequence


def commit() -> str:
    """The git commit of this source tree ($REGTILE_COMMIT where the tree travelled without .git,
    as to the device machine), or "unknown"."""
    if os.environ.get("REGTILE_COMMIT"):
        return os.environ["REGTILE_COMMIT"]
    try:
        here = Path(__file__).resolve().parent.parent
        return subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or "unknown"
    except Exception:
        return "unknown"


def markdown_table(columns: Sequence[str], rows: Iterable[Sequence], right_from: int) -> str:
    """A markdown table; the columns from index `right_from` on (the numbers) right-aligned."""
    lines = ["| " + " | ".join(columns) + " |",
             "|" + "|".join("---" if i < right_from else "---:" for i in range(len(columns))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def finish(results: dict, json_path: Optional[str], title: str, columns: Sequence[str], rows: Iterable[Sequence],
           right_from: int) -> None:
    """A benchmark's end: its results as JSON (when asked), then its title and table on stdout."""
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)
    print(title)
    print(markdown_table(columns, rows, right_from))
