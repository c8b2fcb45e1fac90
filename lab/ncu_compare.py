"""Shared-memory bank model vs Nsight Compute: predicted and measured wavefronts and conflicts.

    python3 -m regtile.lab.ncu_compare --csv docs/data/ncu_smem_2026-11-22.csv --out docs/bank-conflicts.md
    python3 -m regtile.lab.ncu_compare --run --csv build/ncu.csv --out build/bank-conflicts.md   (device)

Compare mode (no GPU): reads the CSV that `--run` writes (one section per preset:
a line `### PRESET SIZE`, then ncu's `--csv` output for that preset's launch), builds
each preset for sm_90 here, predicts the shared-memory counters with
codegen/smem_banks.py following the SASS main loop's LDS/STS widths (ptxas's
vectorization), and prints - or writes as markdown - one table per preset: predicted
and measured instructions, wavefronts and bank conflicts for loads and stores, their
difference, per warp k-tile, and a one-line explanation of each difference.

How a difference is explained (ncu's conflicts counter = wavefronts - ideal, where
ideal is one wavefront per lane group; the model predicts both):
* exact: predicted == measured.
* interference: the measured ideal (wavefronts - conflicts) equals the predicted ideal
  exactly, and ncu's extra wavefronts appear as the same number of extra conflicts -
  extra passes that no address pattern of the instruction explains; below 0.1% of the
  wavefronts they are taken as interference between in-flight shared-memory requests.
* FLAG: anything else - a larger excess of that kind (stated with its size and the
  pattern it follows), instruction counts that differ (a vectorization the model does
  not reproduce), or ideal wavefronts that differ (an address or width the model gets
  wrong).

Run mode (device, needs ncu and cupy): for every SGEMM preset, launches it once at
--size (naive at --naive-size) under
`ncu --clock-control none --metrics ... --csv -k regex:regtile` through this module's
`--launch` entry (compile_source + cupy), appends the section to --csv, then compares.
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..codegen.plan import make_plan
from ..codegen.presets import get_preset, preset_names
from ..codegen.smem_banks import NCU_CONFLICTS, NCU_INST, NCU_WAVEFRONTS, SmemReport, analyze
from ..errors import RegtileError
from ..tools.datafiles import open_text

METRICS = (
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed.sum",
)
NCU_FLAGS = ("--clock-control", "none")
INTERFERENCE_SHARE = 1e-3  # an excess below 0.1% of the wavefronts: interference
OPS = (("LDS", "ld"), ("STS", "st"))


class CompareError(RegtileError):
    """An ncu run or CSV this comparison cannot use."""


# ---- the CSV --------------------------------------------------------------------------------
@dataclass
class Measured:
    preset: str
    size: int
    kernel: str = ""
    block: str = ""
    grid: str = ""
    device: str = ""
    cc: str = ""
    metrics: Dict[str, float] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)  # ncu's own messages, when the section has no rows


def _number(text: str) -> float:
    t = text.replace(",", "").strip()
    try:
        v = float(t)
    except ValueError:
        raise CompareError(f"not a number: {text!r}") from None
    return int(v) if v.is_integer() and "." not in t else v


def parse_csv(text: str) -> List[Measured]:
    """Sections `### PRESET SIZE` each followed by ncu --csv output (quoted rows with
    a header row naming "Kernel Name", "Metric Name", "Metric Value", ...); other lines
    (==PROF==, ==WARNING==) are skipped."""
    out: List[Measured] = []
    cur: Optional[Measured] = None
    header: Optional[List[str]] = None
    for line in text.splitlines():
        if line.startswith("### "):
            parts = line[4:].split()
            if len(parts) != 2 or not parts[1].isdigit():
                raise CompareError(f"section line {line!r}: want '### PRESET SIZE'")
            cur, header = Measured(parts[0], int(parts[1])), None
            out.append(cur)
            continue
        if cur is None or not line.startswith('"'):
            if cur is not None and line.startswith("==ERROR=="):
                cur.notes.append(line)
            continue
        row = next(csv.reader(io.StringIO(line)))
        if header is None or row[:1] == ["ID"]:
            header = row
            continue
        rec = dict(zip(header, row))
        cur.kernel = rec.get("Kernel Name", cur.kernel)
        cur.block, cur.grid = rec.get("Block Size", cur.block), rec.get("Grid Size", cur.grid)
        cur.device, cur.cc = rec.get("Device", cur.device), rec.get("CC", cur.cc)
        if "Metric Name" in rec and "Metric Value" in rec:
            cur.metrics[rec["Metric Name"]] = _number(rec["Metric Value"])
    return out


# ---- prediction and comparison ------------------------------------------------------------
@dataclass
class Row:
    counter: str  # "ld instructions", "ld wavefronts", ...
    metric: str
    predicted: int
    measured: Optional[float]
    per_warp_ktile: Tuple[float, Optional[float]]
    explanation: str

    @property
    def difference(self) -> Optional[float]:
        return None if self.measured is None else self.measured - self.predicted


@dataclass
class Comparison:
    measured: Measured
    report: SmemReport
    kernel: str  # the name the current emitter gives the preset
    loop_mix: Dict[str, int]
    rows: List[Row]
    notes: List[str]
    sts: Optional[Tuple[int, int]] = None  # (FFMAs between first LDG and first STS, loop FFMAs)

    def excess(self, kind: str) -> Optional[Tuple[float, float]]:
        """(extra wavefronts, share of the predicted) where the ideal matches; None otherwise."""
        r = {row.counter: row for row in self.rows}
        wf, bc = r[f"{kind} wavefronts"], r[f"{kind} conflicts"]
        if wf.measured is None or bc.measured is None or wf.difference != bc.difference:
            return None
        return wf.difference, (wf.difference / wf.predicted if wf.predicted else 0.0)

    @property
    def flags(self) -> int:
        return sum(r.explanation.startswith("FLAG") for r in self.rows)


def predict(preset: str, size: int, arch: str = "sm_90") -> Tuple[SmemReport, str, Dict[str, int],
                                                                 Optional[Tuple[int, int]]]:
    """The model's report for one preset at M = N = K = size, following the SASS widths
    of an `arch` build; with the kernel name, the main loop's mix and where its STS sit."""
    from ..tools.artifacts import build
    cfg = get_preset(preset).config
    built = build(preset, cfg, arch)
    mix = built.loop_mix()
    return (analyze(make_plan(cfg), size, size, size, mix or None), built.source.name, mix,
            sts_position(built.sass.loop_instructions()))


def sts_position(loop) -> Optional[Tuple[int, int]]:
    """(FFMAs between the main loop's first LDG and its first STS, FFMAs in the loop);
    None without both."""
    ffmas, ldg, first = 0, None, None
    for ins in loop:
        if ins.base == "FFMA":
            ffmas += 1
        elif ins.base == "LDG" and ldg is None:
            ldg = ffmas
        elif ins.base == "STS" and first is None and ldg is not None:
            first = ffmas - ldg
    return None if first is None else (first, ffmas)


def _explain(op: str, pred: SmemReport, meas: Dict[str, float], stages: int,
             sts: Optional[Tuple[int, int]] = None) -> Dict[str, str]:
    """One-line explanations for the op's instruction, wavefront and conflict rows."""
    kind = "ld" if op == "LDS" else "st"
    pi, mi = pred.totals[NCU_INST[op]], meas.get(NCU_INST[op])
    pw, mw = pred.totals[NCU_WAVEFRONTS[op]], meas.get(NCU_WAVEFRONTS[op])
    pc, mc = pred.totals[NCU_CONFLICTS[op]], meas.get(NCU_CONFLICTS[op])
    pideal = pred.totals[f"model.ideal_wavefronts_{kind}"]
    if None in (mi, mw, mc):
        missing = "missing in the CSV"
        return {"inst": missing, "wf": missing, "bc": missing}
    out = {"inst": "exact" if mi == pi else
           f"FLAG: {mi / pred.warp_ktiles:g} instructions per warp k-tile measured, {pi / pred.warp_ktiles:g} "
           f"modelled: the SASS does not issue what the model analyses"}
    if mi != pi:
        out["wf"] = out["bc"] = "FLAG: instruction counts differ (above), the wavefronts cannot be compared"
        return out
    if mw == pw and mc == pc:
        out["wf"] = out["bc"] = "exact"
        return out
    mideal = mw - mc
    if mideal != pideal:
        out["wf"] = out["bc"] = (f"FLAG: ideal wavefronts (wavefronts - conflicts) differ: measured {mideal:,.0f}, "
                                 f"modelled {pideal:,}: an address or width the model gets wrong")
        return out
    excess = mw - pw
    share = excess / pw if pw else float("inf")
    per = excess / pred.warp_ktiles
    what = (f"ideal exact; +{excess:,.0f} wavefronts ({per:.4g} per warp k-tile, {100 * share:.3g}%) that ncu "
            f"also counts as conflicts")
    if share < INTERFERENCE_SHARE:
        line = f"interference: {what}: no address conflict of the instruction gives them; taken as interference " \
               f"between in-flight shared-memory requests"
    elif op == "STS":
        where = "" if sts is None else f"; its STS come {sts[0]} of {sts[1]} FFMAs after the LDGs"
        line = (f"FLAG: {what}, more than interference, not from addresses (the ideal is exact){where}: "
                f"see 'Store excess' (a hypothesis: stores meeting L1 fills of in-flight global loads)")
    else:
        line = f"FLAG: {what}, more than interference and not from addresses (the ideal is exact): unexplained"
    out["wf"] = line
    out["bc"] = "the same excess as the wavefronts (ncu counts every extra wavefront as a conflict)" \
        if not line.startswith("FLAG") else line
    return out


def compare(meas: Measured, arch: str = "sm_90") -> Comparison:
    report, kernel, mix, sts = predict(meas.preset, meas.size, arch)
    notes = []
    if meas.kernel and meas.kernel != kernel:
        notes.append(f"note: the CSV measured {meas.kernel}, the current build is {kernel} (the name hashes the "
                     f"config: its fields or the emitter changed since); the instruction counts below check that "
                     f"the shared-memory code is still the one measured")
    grid = [int(x) for x in re.findall(r"\d+", meas.grid)]
    if grid:
        blocks = 1
        for g in grid:
            blocks *= g
        if blocks != report.blocks:
            notes.append(f"FLAG: grid {meas.grid} is {blocks} blocks, the model counts {report.blocks}")
    notes += meas.notes
    cfg = get_preset(meas.preset).config
    rows = []
    for op, kind in OPS:
        ex = _explain(op, report, meas.metrics, cfg.stages, sts)
        for what, metric, key in (("instructions", NCU_INST[op], "inst"), ("wavefronts", NCU_WAVEFRONTS[op], "wf"),
                                  ("conflicts", NCU_CONFLICTS[op], "bc")):
            p = report.totals[metric]
            m = meas.metrics.get(metric)
            wk = report.warp_ktiles
            rows.append(Row(f"{kind} {what}", metric, p, m, (p / wk, None if m is None else m / wk), ex[key]))
    return Comparison(meas, report, kernel, mix, rows, notes, sts)


# ---- output ---------------------------------------------------------------------------------
def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.4g}" if abs(x) < 1000 else f"{x:,.1f}"
    return f"{int(x):,}"


def _signed(x) -> str:
    if x is None:
        return "-"
    return "0" if x == 0 else ("+" if x > 0 else "-") + _fmt(abs(x))


def _per(p: float, m: Optional[float]) -> str:
    def f(v):
        return "-" if v is None else (f"{v:g}" if float(v).is_integer() else f"{v:.4f}")
    return f"{f(p)} / {f(m)}"


def render_markdown(comps: Sequence[Comparison], header: Dict[str, str], source: str) -> str:
    lines = ["# Shared-memory bank conflicts: model vs Nsight Compute", ""]
    lines.append(f"Generated by `python3 -m regtile.lab.ncu_compare --csv {source}` from the measurements in "
                 f"`{source}`.")
    lines.append("")
    for k, v in header.items():
        if v:
            lines.append(f"- {k}: {v}")
    lines += ["- metrics: " + ", ".join(f"`{m}`" for m in METRICS[:6]),
              "- model: `codegen/smem_banks.py` following the sm_90 SASS main loop's LDS/STS widths (ptxas's "
              "vectorization of the plan's scalar accesses), built here from the current source",
              "- per warp k-tile: a counter / (blocks x warps per block x k-tiles)", ""]
    lines += ["## Summary", "",
              "| preset | size | ld wavefronts pred / meas per warp k-tile | ld conflicts | st wavefronts | "
              "st conflicts | flags |", "|---|---|---|---|---|---|---|"]
    for c in comps:
        r = {row.counter: row for row in c.rows}
        cells = [_per(*r[k].per_warp_ktile) for k in ("ld wavefronts", "ld conflicts", "st wavefronts",
                                                       "st conflicts")]
        lines.append(f"| {c.measured.preset} | {c.measured.size} | " + " | ".join(cells) +
                     f" | {c.flags + sum(n.startswith('FLAG') for n in c.notes) or ''} |")
    lines += ["", "How the differences read: ncu's conflicts counter is wavefronts minus the ideal (one per lane "
              "group). Where the measured ideal (wavefronts - conflicts) equals the modelled one exactly, the "
              "extra wavefronts are counted in both counters and no address pattern of the instruction produces "
              f"them; below {100 * INTERFERENCE_SHARE:g}% they are read as interference between in-flight requests. "
              "Larger ones, and anything else, are flagged.", ""]
    lines += store_excess_section(comps)
    for c in comps:
        m = c.measured
        rep = c.report
        lines.append(f"## {m.preset} (M = N = K = {m.size})")
        lines.append("")
        mix = ", ".join(f"{k} {v}" for k, v in c.loop_mix.items() if k.split(".")[0] in ("LDS", "STS"))
        lines.append(f"kernel `{m.kernel or c.kernel}`, grid {m.grid or '-'} = {rep.blocks} blocks x "
                     f"{rep.warps_per_block} warps x {rep.k_tiles} k-tiles = {rep.warp_ktiles:,} warp k-tiles; "
                     f"sm_90 main loop {mix or 'no shared-memory instructions'}.")
        if rep.vectorization is not None:
            lines.append("")
            lines += [f"{t.strip()}" + ("  " if i < len(rep.vectorization.render_lines()) - 1 else "")
                      for i, t in enumerate(rep.vectorization.render_lines())]
        for n in c.notes:
            lines += ["", n]
        lines += ["", "| counter | predicted | measured | difference | per warp k-tile (pred / meas) | explanation |",
                  "|---|---:|---:|---:|---:|---|"]
        for row in c.rows:
            lines.append(f"| {row.counter} | {_fmt(row.predicted)} | {_fmt(row.measured)} | "
                         f"{_signed(row.difference)} | {_per(*row.per_warp_ktile)} | {row.explanation} |")
        lines.append("")
    return "\n".join(lines)


def store_excess_section(comps: Sequence[Comparison]) -> List[str]:
    """The store-side excess across presets, beside where each loop puts its STS."""
    rows = []
    for c in comps:
        ex = c.excess("st")
        if ex is None or c.sts is None:
            continue
        r = {row.counter: row for row in c.rows}
        rows.append((c, ex, r["st wavefronts"].per_warp_ktile))
    if not rows:
        return []
    pct = lambda x: f"{100 * x:.3g}%"  # noqa: E731
    soon = [(c, ex) for c, ex, _ in rows if c.sts[0] == 0]
    late = [(c, ex) for c, ex, _ in rows if c.sts[0] > 0]
    ld = [c.excess("ld") for c in comps]
    ld_max = max((e[1] for e in ld if e is not None), default=0.0)
    out = ["## Store excess", "",
           f"The load excess is at most {pct(ld_max)} in any kernel. The store excess is larger in some, and there "
           "too the ideal matches exactly, so no address pattern of the stores produces it. Where the main loop "
           "puts its shared stores, against the excess:", ""]
    if soon:
        out.append("- stores right after the LDGs they wait on (0 FFMAs between): "
                   + ", ".join(f"{c.measured.preset} {pct(ex[1])}" for c, ex in soon) + ";")
    if late:
        out.append("- stores later in the k-tile: " + ", ".join(
            f"{c.measured.preset} {pct(ex[1])} ({c.sts[0]} of {c.sts[1]} FFMAs after the LDGs)" for c, ex in late)
            + ".")
    out.append("")
    if soon and late and min(ex[1] for _, ex in soon) > max(ex[1] for _, ex in late):
        out.append("Every kernel that stores right after its loads has more excess than every kernel that stores "
                   "later. That fits store wavefronts meeting the L1 fills of in-flight global loads (L1 and shared "
                   "memory share the data banks). It is a hypothesis, not yet tested; one test would be the "
                   "single-stage kernels with the stores moved a k-slice later.")
    else:
        out.append("Where the stores sit does not order the excess: unexplained.")
    out += ["", "| preset | stages | STS after the first LDG (FFMAs of the loop) | st wavefronts per warp k-tile "
            "pred / meas | excess |", "|---|---:|---:|---:|---:|"]
    for c, (extra, share), per in rows:
        cfg = get_preset(c.measured.preset).config
        out.append(f"| {c.measured.preset} | {cfg.stages} | {c.sts[0]} of {c.sts[1]} | {_per(*per)} | "
                   f"{100 * share:.3g}% |")
    out.append("")
    return out


def render_text(comps: Sequence[Comparison]) -> str:
    out = []
    for c in comps:
        out.append(f"{c.measured.preset} {c.measured.size}  ({c.report.warp_ktiles:,} warp k-tiles)")
        for n in c.notes:
            out.append(f"  {n}")
        for r in c.rows:
            out.append(f"  {r.counter:<16} pred {_fmt(r.predicted):>15} meas {_fmt(r.measured):>15} "
                       f"diff {_signed(r.difference):>12}  {_per(*r.per_warp_ktile):>18}  {r.explanation}")
    return "\n".join(out)


# ---- run mode (device) ----------------------------------------------------------------------
def ncu_command(preset: str, size: int, ncu: str = "ncu", python: str = sys.executable) -> List[str]:
    return [ncu, *NCU_FLAGS, "--metrics", ",".join(METRICS), "--csv", "-k", "regex:regtile",
            python, "-m", "regtile.lab.ncu_compare", "--launch", preset, str(size)]


def run_ncu(csv_path: Path, presets: Sequence[str], size: int, naive_size: int, ncu: str = "ncu") -> None:
    """Profile every preset once and write the CSV sections (overwrites csv_path)."""
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    with open(csv_path, "w") as f:
        for p in presets:
            s = naive_size if p == "naive" else size
            cmd = ncu_command(p, s, ncu)
            print(f"### {p} {s}: {shlex.join(cmd)}", file=sys.stderr)
            res = subprocess.run(cmd, capture_output=True, text=True)
            f.write(f"### {p} {s}\n{res.stdout}")
            if res.returncode != 0:
                f.write("".join(f"==ERROR== {line}\n" for line in res.stderr.strip().splitlines()[-5:]))
                print(f"ncu failed for {p} ({res.returncode}): {res.stderr.strip()[-400:]}", file=sys.stderr)


def launch(preset: str, size: int) -> None:
    """Compile the preset for this GPU and launch it once at M = N = K = size (cupy)."""
    import cupy as cp
    import numpy as np
    from ..codegen.emit import emit_cuda
    from ..runtime.compiler import compile_source
    cfg = get_preset(preset).config
    src = emit_cuda(cfg)
    major, minor = cp.cuda.Device().compute_capability[:1], cp.cuda.Device().compute_capability[1:]
    art = compile_source(src, f"sm_{major}{minor}")
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"{src.name}.cubin"
    path.write_bytes(art.cubin)
    fn = cp.RawModule(path=str(path)).get_function(src.name)
    a = cp.random.standard_normal((size, size), dtype=cp.float32)
    b = cp.random.standard_normal((size, size), dtype=cp.float32)
    c = cp.zeros((size, size), dtype=cp.float32)
    values = {"M": np.int32(size), "N": np.int32(size), "K": np.int32(size), "alpha": np.float32(1),
              "A": a, "lda": np.int32(size), "B": b, "ldb": np.int32(size), "beta": np.float32(0), "C": c,
              "ldc": np.int32(size)}
    args = tuple(values[name] for name, _ in src.params)
    g = src.geometry
    fn(g.grid(size, size), g.block, args, shared_mem=g.dynamic_smem_bytes)
    cp.cuda.Device().synchronize()


# ---- CLI ------------------------------------------------------------------------------------
def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--launch"]:
        if len(argv) != 3:
            print("usage: --launch PRESET SIZE", file=sys.stderr)
            return 2
        launch(argv[1], int(argv[2]))
        return 0
    p = argparse.ArgumentParser(prog="python3 -m regtile.lab.ncu_compare", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:3]))
    p.add_argument("--csv", type=Path, required=True, help="the measurements (read; written first with --run)")
    p.add_argument("--out", type=Path, help="write the comparison as markdown here (default: print a text table)")
    p.add_argument("--run", action="store_true", help="(device) profile every preset with ncu into --csv first")
    p.add_argument("--size", type=int, default=4096, help="M = N = K for --run (default 4096)")
    p.add_argument("--naive-size", type=int, default=1024, help="M = N = K of the naive preset for --run (default 1024)")
    p.add_argument("--presets", nargs="*", help="only these presets (default: the SGEMM ladder)")
    p.add_argument("--ncu", default="ncu", help="the ncu executable for --run (default: ncu on PATH)")
    p.add_argument("--arch", default="sm_90", help="build the predictions for this arch (default sm_90)")
    for key, what in (("device", "device name"), ("driver", "driver version"), ("date", "date of the measurement"),
                      ("commit", "commit the measured kernels were built from")):
        p.add_argument(f"--{key}", default="", help=f"{what}, for the markdown header")
    args = p.parse_args(argv)
    presets = args.presets or list(preset_names())
    try:
        if args.run:
            run_ncu(args.csv, presets, args.size, args.naive_size, args.ncu)
        with open_text(args.csv) as f:  # docs/data's CSV, or CSV.gz where it is stored gzipped
            measured = [m for m in parse_csv(f.read()) if m.preset in presets]
        if not measured:
            raise CompareError(f"no preset sections in {args.csv}")
        comps = [compare(m, args.arch) for m in measured]
    except (CompareError, OSError) as e:
        print(f"ncu_compare: error: {e}", file=sys.stderr)
        return 2
    if args.out:
        header = {"device": args.device, "driver": args.driver, "date": args.date,
                  "kernels built from commit": args.commit,
                  "ncu": "`ncu " + " ".join(NCU_FLAGS) + " --metrics ... --csv -k regex:regtile`, "
                         "one launch per preset (naive at 1024, the others at 4096)"}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(render_markdown(comps, header, str(args.csv)) + "\n")
        print(f"wrote {args.out}")
    print(render_text(comps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
