"""The performance issue's sweep and the SASS pass's before/after table, from one run.

    regtile sweep --shapes        best generated kernel per shape of the issue's sweep,
                                  cuBLAS in the same run
    regtile sweep --pass-table    for each kernel: register-bank conflict share and time
                                  without and with the pass
    --json FILE writes the raw rows; --out FILE the markdown table.  (GPU)
`python3 -m regtile.tools.sweep` (main below) is the older spelling of the same, kept for
scripts; the command line's `regtile sweep` (tools/cmd_sweep.py) is the one to use.

Candidates are fixed here, named, so that a table row says which kernel won and
`regtile run` can rebuild it (the printed command).  Split-K variants are added where
the tuner's rule (tools/tune.py split_k_options) offers them for the shape.
"""
from __future__ import annotations

import math
import sys
from typing import List, Sequence, Tuple

from ..codegen.config import SgemmConfig
from ..codegen.presets import get_preset
from .tune import command_line, split_k_options

SHAPES = ((1024, 1024, 1024), (2048, 2048, 2048), (3072, 3072, 3072), (4096, 4096, 4096), (6144, 6144, 6144),
          (8192, 8192, 8192), (4096, 1024, 4096), (1024, 8192, 1024), (8192, 128, 8192), (4097, 4097, 4097),
          (127, 511, 257))


def candidates() -> List[Tuple[str, SgemmConfig, str]]:
    z = get_preset("zorder").config
    wide = z.replace(bn=256, tn=16, min_blocks=1)  # the PTX kernel at parity (docs/backends.md)
    return [
        ("cuda zorder", z, "cuda"),
        ("cuda zorder-256x128", get_preset("zorder-256x128").config, "cuda"),
        ("cuda 64x64x16 8x8", z.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1), "cuda"),
        ("cuda 64x64x8 4x8", z.replace(bm=64, bn=64, tm=4, tn=8, warps=None, min_blocks=1), "cuda"),
        ("ptx 128x256 8x16", wide, "ptx"),
        ("ptx 128x256 8x16 +pass", wide.replace(sass_pass=True), "ptx"),
        ("ptx zorder +pass", z.replace(sass_pass=True), "ptx"),
        # stream-K (codegen/streamk.py): the last partial wave's tiles in even K ranges
        ("ptx 128x256 8x16 +pass stream-K", wide.replace(sass_pass=True, stream_k=True), "ptx"),
        # edge split (codegen/edges.py): ragged edges by a 64x64 stream-K kernel
        ("ptx 128x256 8x16 +pass stream-K edges", wide.replace(sass_pass=True, stream_k=True, edge_split=True),
         "ptx"),
        ("ptx zorder +pass stream-K", z.replace(sass_pass=True, stream_k=True), "ptx"),
        ("ptx zorder-256x128 +pass stream-K", get_preset("zorder-256x128").config.replace(sass_pass=True, stream_k=True),
         "ptx"),
        # small tiles for small shapes: stream-K deals their few tiles' K out over more SMs
        ("ptx 64x64x16 8x8 stream-K", z.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1, stream_k=True), "ptx"),
        ("ptx 64x64x8 4x8 stream-K", z.replace(bm=64, bn=64, tm=4, tn=8, warps=None, min_blocks=1, stream_k=True),
         "ptx"),
    ]


PASS_KERNELS = ("ptx 128x256 8x16", "ptx zorder", "ptx zorder-256x128", "cuda zorder", "cuda zorder-256x128",
                "cuda pad")


def pass_candidates() -> List[Tuple[str, SgemmConfig, str]]:
    z = get_preset("zorder").config
    base = {"ptx 128x256 8x16": (z.replace(bn=256, tn=16, min_blocks=1), "ptx"), "ptx zorder": (z, "ptx"),
            "ptx zorder-256x128": (get_preset("zorder-256x128").config, "ptx"), "cuda zorder": (z, "cuda"),
            "cuda zorder-256x128": (get_preset("zorder-256x128").config, "cuda"),
            "cuda pad": (get_preset("pad").config, "cuda")}
    return [(name, base[name][0], base[name][1]) for name in PASS_KERNELS]


def _measure(cfg, backend, work, repeat, arch):
    from ..runtime import bench
    res, art = bench.measure_config(cfg, work, repeat=repeat, arch=arch, backend=backend)
    return res, art


def sweep_shapes(repeat: int, progress) -> List[dict]:
    from ..runtime import bench, driver
    dev = driver.device()
    rows = []
    for (m, n, k) in SHAPES:
        work = bench.GemmWorkload(m, n, k)
        try:
            cres, _ = bench.measure_cublas(work, repeat=repeat, check=False)
            row = {"shape": [m, n, k], "cublas_ms": cres.ms, "kernels": []}
            for label, cfg, backend in candidates():
                splits = split_k_options(cfg, m, n, k, dev.sm_count) if backend == "cuda" else (1,)
                for s in splits:
                    c = cfg.replace(split_k=s)
                    res, art = _measure(c, backend, work, repeat, dev.arch)
                    name = label + (f" split-K {s}" if s > 1 else "")
                    row["kernels"].append({"kernel": name, "ms": res.ms, "tflops": res.tflops, "ok": res.ok,
                                           "x_cublas": cres.ms / res.ms, "rel_err": res.rel_err,
                                           "command": f"regtile run {command_line(c)} --backend {backend} "
                                                      f"--m {m} --n {n} --k {k}"})
                    progress(f"{m}x{n}x{k} {name}: {cres.ms / res.ms:.3f}x cuBLAS{'' if res.ok else ' WRONG'}")
        finally:
            work.close()
        ok = [x for x in row["kernels"] if x["ok"]]
        row["best"] = max(ok, key=lambda x: x["x_cublas"]) if ok else None
        rows.append(row)
    return rows


def shapes_table(rows: Sequence[dict], header: Sequence[str]) -> str:
    out = list(header) + ["", "| shape (MxNxK) | cuBLAS TFLOP/s | best generated kernel | TFLOP/s | x cuBLAS |",
                          "| --- | --- | --- | --- | --- |"]
    xs = []
    for r in rows:
        m, n, k = r["shape"]
        ctf = 2.0 * m * n * k / (r["cublas_ms"] * 1e-3) / 1e12
        b = r["best"]
        if b is None:
            out.append(f"| {m}x{n}x{k} | {ctf:.1f} | (none correct) | | |")
            continue
        xs.append(b["x_cublas"])
        out.append(f"| {m}x{n}x{k} | {ctf:.1f} | {b['kernel']} | {b['tflops']:.1f} | {b['x_cublas']:.3f} |")
    if xs:
        out += ["", f"Geometric mean of x cuBLAS over the {len(xs)} shapes: "
                    f"**{math.exp(sum(math.log(x) for x in xs) / len(xs)):.3f}**"]
    out += ["", "Commands that rebuild each winner:", ""]
    for r in rows:
        if r["best"]:
            out.append(f"- {r['shape'][0]}x{r['shape'][1]}x{r['shape'][2]}: `{r['best']['command']}`")
    return "\n".join(out)


def pass_table(sizes: Sequence[int], repeat: int, progress) -> List[dict]:
    from ..runtime import bench, driver
    dev = driver.device()
    works = {s: bench.GemmWorkload(s, s, s) for s in sizes}
    rows = []
    try:
        cub = {s: bench.measure_cublas(w, repeat=repeat, check=False)[0].ms for s, w in works.items()}
        for label, cfg, backend in pass_candidates():
            row = {"kernel": label, "backend": backend}
            for sp in (False, True):
                key = "after" if sp else "before"
                for s, w in works.items():
                    res, art = _measure(cfg.replace(sass_pass=sp), backend, w, repeat, dev.arch)
                    row[f"{key}_{s}"] = {"ms": res.ms, "tflops": res.tflops, "ok": res.ok, "x_cublas": cub[s] / res.ms}
                    progress(f"{label} pass={sp} {s}^3: {res.tflops:.2f} TFLOP/s")
                if sp:
                    rep = art.sass_pass.to_dict()
                    row["conflict_share_before"] = rep["conflict_share_before"]
                    row["conflict_share_after"] = rep["conflict_share_after"]
                    row["unavoidable"] = rep["unavoidable_conflicts"]
                    row["ffma"] = rep["ffma_in_loop"]
            rows.append(row)
        for s in sizes:
            rows.append({"cublas": s, "ms": cub[s]})
    finally:
        for w in works.values():
            w.close()
    return rows


def pass_markdown(rows: Sequence[dict], sizes: Sequence[int], header: Sequence[str]) -> str:
    out = list(header) + [""]
    cols = " | ".join(f"{s}^3 before | {s}^3 after" for s in sizes)
    out += [f"| kernel | conflicted FFMAs before | after (unavoidable) | {cols} |",
            "| --- | --- | --- | " + " | ".join("---" for _ in range(2 * len(sizes))) + " |"]
    for r in rows:
        if "kernel" not in r:
            continue
        cells = []
        for s in sizes:
            for key in ("before", "after"):
                x = r[f"{key}_{s}"]
                cells.append(f"{x['tflops']:.2f} ({x['x_cublas']:.3f}x){'' if x['ok'] else ' WRONG'}")
        out.append(f"| {r['kernel']} | {100 * r['conflict_share_before']:.1f}% | "
                   f"{100 * r['conflict_share_after']:.1f}% ({r['unavoidable']} of {r['ffma']}) | {' | '.join(cells)} |")
    cub = [r for r in rows if "cublas" in r]
    out += ["", "cuBLAS in the same run: " + ", ".join(
        f"{r['cublas']}^3 {2.0 * r['cublas'] ** 3 / (r['ms'] * 1e-3) / 1e12:.2f} TFLOP/s" for r in cub)]
    return "\n".join(out)


def main(argv=None) -> int:
    """The older spelling `python3 -m regtile.tools.sweep ...`: the same as `regtile sweep ...`."""
    from .cli import main as cli_main
    return cli_main(["sweep"] + list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
