"""Kernels against cuBLAS, interleaved in time, for the experiment scripts under docs/data
(GPU).  The method is runtime/bench.interleave_with_cublas; this prints one line per kernel
and size and writes {"device", "result"} as JSON under $OUT (or the current folder)."""
from __future__ import annotations

import json
import os
from typing import Dict, Iterable, Sequence


def sizes_from(argv: Sequence[str], default: Iterable[int] = (4096, 8192)) -> list:
    """Cube sizes from the command line's numeric arguments, else `default`."""
    return [int(a) for a in argv if a.isdigit()] or list(default)


def run(artifacts: Dict[str, object], sizes: Iterable[int], json_name: str, check: bool = True) -> dict:
    """Load each artifact (name -> compiler.Artifact), time all of them against cuBLAS at each
    size^3 (check=False: timing only, for variants wrong on purpose), print and save."""
    from ..runtime import bench, driver
    dev = driver.device()
    loaded = {name: driver.load(art, name) for name, art in artifacts.items()}
    out = {s: bench.interleave_with_cublas(loaded, s, check=check) for s in sizes}
    width = max(len(n) for n in artifacts) + 2
    for s, rows in out.items():
        for name, r in rows.items():
            print(s, f"{name:{width}s} median x{r['median']:.4f} [{r['min']:.4f}, {r['max']:.4f}] "
                     f"{r['median_tflops']:.2f} TFLOP/s", flush=True)
    with open(os.path.join(os.environ.get("OUT", "."), json_name), "w") as f:
        json.dump({"device": dev.name, "result": out}, f, indent=1)
    return out
