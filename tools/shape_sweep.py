"""The workload suite (benchmarks/shapes.json) against cuBLAS, and the CLI of the fitting of the shape
heuristic's decision table (codegen/heuristic.py; the fit itself: tools/table_fit.py).

    python3 -m regtile.tools.shape_sweep                 (GPU) what regtile.sgemm launches for
        every suite shape against cuBLAS (torch.mm, TF32 off), interleaved in one run;
        writes docs/data/shape-sweep.json and prints the summary table (--md FILE writes it)
    python3 -m regtile.tools.shape_sweep --layout NT     (GPU) the same in another layout against
        cuBLAS's (torch.mm of the transposed views: op(A) = A^T stored K x M, op(B) = B^T stored
        N x K; nn.Linear's y = x W^T is NT, a weight gradient dW = dY^T X is TN); writes
        docs/data/shape-sweep-NT.json
    python3 -m regtile.tools.shape_sweep --candidates --json RAW.json
                                                         (GPU) every candidate member of the
        family per shape (heuristic.candidate_names), cuBLAS in the same rounds
    python3 -m regtile.tools.shape_sweep --fit RAW.json [--sticky 0.03]  (CPU) rewrites
        codegen/heuristic_table.json from a candidates run (--sticky: an entry changes only
        where its member is more than 3% off the fastest)

Method (both GPU modes): operands are torch tensors (random normal, several rotating sets
when a set fits twice in the device's L2); every kernel is first checked once against a
float64 product of the same operands (C poisoned with NaN); then `rounds` rounds, each
timing cuBLAS and every kernel in turn (the order rotates per round) as a batch of
back-to-back launches between two CUDA events, queued behind a GPU sleep so that the host's
launch cost is not timed - kernel against kernel, every launch of a split-K / stream-K /
edge-split SGEMM included.  A shape's time is the median over the rounds of the per-launch
time.  A library pass whose rounds spread by more than DISTURBED_SPREAD on either side (another
process, a clock dip) is timed again once and the steadier pass kept (the row says `retimed`);
the rows keep every round.  The library pass also measures the device's copy bandwidth (a 1 GiB
device-to-device copy, read and written) and gives each row the GB/s its operands and C move
at (`gbs`, counted once) and, for the skinny shapes of >= 32 MB, that as a share of the copy
(`pct_copy`): issue 20's skinny target is >= 85%.  Kernels compile once per config, in
parallel processes, before any timing.  A progress line per shape goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE_PATH = os.path.join(REPO, "benchmarks", "shapes.json")
SWEEP_JSON = os.path.join(REPO, "docs", "data", "shape-sweep.json")
TARGET_MS = 2.0  # GPU time of one timed batch, at most MAX_BATCH launches
MAX_BATCH = 40
HOST_US_PER_LAUNCH = 40e-6  # the GPU sleeps this long per queued launch (host enqueue cost, generous)
CLOCK_HZ = 1.98e9
DISTURBED_SPREAD = 1.10  # slowest over fastest round of a side above which the shape is timed again (once)
SKINNY_MIN_BYTES = 32e6  # the skinny target counts shapes that move at least this much (A, B and C once)
COPY_TARGET = 0.85  # issue 20: skinny shapes at >= 85% of the device's copy bandwidth
COPY_BYTES = 1 << 30
LAYOUTS = ("NN", "NT", "TN", "TT")  # op(A) op(B); T: the operand stored transposed (A^T row-major K x M, B^T N x K)
GEMV_NOTE = ("m or n == 1, or m or n in 2..16 where measured faster: regtile.sgemm runs it as a GEMV "
             "(runtime/gemv.gemv_route, runtime/fewvec.fewvec_route)")


def load_suite(path: Optional[str] = None) -> List[dict]:
    with open(path or SUITE_PATH) as f:
        return json.load(f)


def tolerance(k: int) -> float:
    """The relative error a correct FP32 SGEMM stays under (runtime/bench.py's rule)."""
    return 1e-5 * max(1.0, math.sqrt(k / 8192))


# ---- compile once per config, in parallel -------------------------------------------------
def compile_all(items: Sequence[Tuple[object, str]], arch: str, workers: int = 16) -> Dict[tuple, Optional[str]]:
    """Compile every distinct (config, backend) into the kernel cache (runtime/compiler.compile_many);
    {config_key: None or the error}."""
    from ..runtime.compiler import compile_many
    distinct = {config_key(cfg, backend): (cfg, backend) for cfg, backend in items}
    return dict(zip(distinct, compile_many(list(distinct.values()), arch, workers)))


def config_key(cfg, backend) -> tuple:
    return (json.dumps(cfg.to_dict(), sort_keys=True), backend)


# ---- one shape's operands and its timing ----------------------------------------------------
class ShapeBench:
    """Rotating sets of random A, B and a C each, as torch tensors on the GPU; `layout` (LAYOUTS) stores A as K x M
    where op(A) = A^T and B as N x K where op(B) = B^T, packed (lda, ldb), or with `padded_rows` views of rows padded
    as a repacking plan's copies (lda, ldb: repack.padded of the packed ones, aligned ones too, which a plan would not
    copy; lab/experiments/layout_candidates)."""

    def __init__(self, torch, m: int, n: int, k: int, seed: int = 0, layout: str = "NN", padded_rows: bool = False):
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r}: one of {', '.join(LAYOUTS)}")
        from ..codegen.repack import stored_rows
        self.torch, self.m, self.n, self.k = torch, m, n, k
        self.trans_a, self.trans_b = layout[0] == "T", layout[1] == "T"
        self.lda, self.ldb = bench_leading_dims(m, n, k, self.trans_a, self.trans_b, padded_rows)
        from ..runtime.bench import rotation_sets
        # 50 MB of L2 on the H100, 60 MB on the H200
        self.sets = rotation_sets(traffic_bytes(m, n, k), torch.cuda.get_device_properties(0).L2_cache_size)
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        a_shape, b_shape = stored_rows(m, n, k, self.trans_a, self.trans_b)  # (rows, length) as stored
        self.a = [torch.randn(a_shape[0], self.lda, device="cuda", generator=g)[:, :a_shape[1]]
                  for _ in range(self.sets)]
        self.b = [torch.randn(b_shape[0], self.ldb, device="cuda", generator=g)[:, :b_shape[1]]
                  for _ in range(self.sets)]
        self.c = [torch.empty(m, n, device="cuda") for _ in range(self.sets)]
        self._ref = None
        self._ws = []  # every workspace handed out (regtile), alive until close

    def op_a(self, i: int):
        """op(A) of set i: M x K (a transposed view where A is stored K x M)."""
        return self.a[i].t() if self.trans_a else self.a[i]

    def op_b(self, i: int):
        return self.b[i].t() if self.trans_b else self.b[i]

    def reference(self):
        if self._ref is None:
            self._ref = self.op_a(0).double() @ self.op_b(0).double()
        return self._ref

    def check(self, fn: Callable[[int], None]) -> Tuple[bool, float, int]:
        """(ok, relative error, unwritten elements) of fn(0) against float64."""
        torch = self.torch
        self.c[0].fill_(float("nan"))
        fn(0)
        torch.cuda.synchronize()
        out = self.c[0]
        unwritten = int(torch.isnan(out).sum().item())
        ref = self.reference()
        diff = torch.linalg.vector_norm(torch.nan_to_num(out.double() - ref, nan=float("inf"))).item()
        denom = torch.linalg.vector_norm(ref).item()
        err = diff / denom if denom else diff
        return (unwritten == 0 and err <= tolerance(self.k)), float(err), unwritten

    def cublas(self) -> Callable[[int], None]:
        """torch.mm (cuBLAS) of the sets' op(A) and op(B): a transposed view goes to cuBLAS as its op, no copy."""
        a = [self.op_a(i) for i in range(self.sets)]
        b = [self.op_b(i) for i in range(self.sets)]
        c, mm = self.c, self.torch.mm
        return lambda i: mm(a[i], b[i], out=c[i])

    def regtile(self, kernel, c=None, ldc: int = 0) -> Callable[[int], None]:
        """Every launch regtile.sgemm makes for this kernel (runtime/sgemm_launch.py), on the
        default stream, alpha 1, beta 0; into the sets' C, or `c` (a tensor a set) of leading
        dimension `ldc`."""
        from ..runtime.sgemm_launch import SgemmLaunch, workspace_bytes
        assert not (self.trans_a or self.trans_b), "regtile(kernel) launches row-major A and B (layout NN)"
        m, n, k = self.m, self.n, self.k
        nbytes = workspace_bytes(kernel, m, n, k)
        ws = 0
        if nbytes:  # a larger workspace is a new buffer: the launches made before keep theirs (freed, another
            # allocation could take the memory their split-K partials and stream-K flags still go to)
            if not self._ws or self._ws[-1].numel() < nbytes:
                self._ws.append(self.torch.empty(nbytes, dtype=self.torch.uint8, device="cuda"))
            ws = self._ws[-1].data_ptr()
        c, ldc = (self.c, n) if c is None else (c, ldc)
        launches = [SgemmLaunch(kernel, m, n, k, 1.0, self.a[i].data_ptr(), self.lda, self.b[i].data_ptr(), self.ldb,
                                0.0, c[i].data_ptr(), ldc, ws) for i in range(self.sets)]
        return lambda i: launches[i](0)

    def library(self, plan) -> Callable[[int], None]:
        """What regtile.sgemm launches for the shape: its cached plan (runtime/plans.GemmPlan:
        the heuristic's member, or the GEMV route for m or n == 1), on the default stream."""
        a, b, c = self.a, self.b, self.c
        return lambda i: plan.launch(a[i].data_ptr(), b[i].data_ptr(), c[i].data_ptr(), 1.0, 0.0, 0)

    def close(self):
        self.a = self.b = self.c = []
        self._ref = None
        self._ws = []


def bench_leading_dims(m: int, n: int, k: int, trans_a: bool, trans_b: bool,
                       padded_rows: bool = False) -> Tuple[int, int]:
    """(lda, ldb) of a ShapeBench's operands: packed (their stored rows' lengths, repack.stored_rows), or with
    `padded_rows` padded as a repacking plan's copies are (repack.padded)."""
    from ..codegen.repack import padded, stored_rows
    (_, len_a), (_, len_b) = stored_rows(m, n, k, trans_a, trans_b)
    return (padded(len_a), padded(len_b)) if padded_rows else (len_a, len_b)


def time_interleaved(torch, fns: Dict[str, Callable[[int], None]], sets: int, rounds: int) -> Dict[str, List[float]]:
    """Microseconds per launch of each fn, one value per round (see the module docstring)."""
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    est = {}
    for name, fn in fns.items():  # warm up, and size the batch
        fn(0)
        torch.cuda.synchronize()
        e0, e1 = ev(), ev()
        e0.record()
        fn(1 % sets)
        e1.record()
        e1.synchronize()
        est[name] = max(e0.elapsed_time(e1), 1e-3)
    batch = {name: max(2, min(MAX_BATCH, int(TARGET_MS / t))) for name, t in est.items()}
    out = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        marks = []
        for name in order:
            nb = batch[name]
            torch.cuda._sleep(int(nb * HOST_US_PER_LAUNCH * CLOCK_HZ))
            e0, e1 = ev(), ev()
            e0.record()
            for j in range(nb):
                fns[name]((r + j) % sets)
            e1.record()
            marks.append((name, nb, e0, e1))
        torch.cuda.synchronize()
        for name, nb, e0, e1 in marks:
            out[name].append(1e3 * e0.elapsed_time(e1) / nb)
    return out


def spread(rounds: Sequence[float]) -> float:
    """Slowest over fastest round."""
    return max(rounds) / min(rounds)


def time_steady(timer: Callable[[], Dict[str, List[float]]]) -> Tuple[Dict[str, List[float]], bool]:
    """(rounds by name, retimed): timer() once, and once more where a side's rounds spread by more
    than DISTURBED_SPREAD; the pass whose worst spread is smaller is kept."""
    times = timer()
    worst = max(spread(t) for t in times.values())
    if worst <= DISTURBED_SPREAD:
        return times, False
    again = timer()
    return (again, True) if max(spread(t) for t in again.values()) < worst else (times, True)


def copy_gbs(torch, reps: int = 10) -> float:
    """The device's copy bandwidth: a COPY_BYTES device-to-device copy, read and written, GB/s (median)."""
    src = torch.empty(COPY_BYTES // 4, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    out = []
    for _ in range(reps):
        e0, e1 = ev(), ev()
        e0.record()
        dst.copy_(src)
        e1.record()
        e1.synchronize()
        out.append(2 * COPY_BYTES / (e0.elapsed_time(e1) * 1e-3) / 1e9)
    del src, dst
    return statistics.median(out)


def traffic_bytes(m: int, n: int, k: int) -> int:
    """A, B and C once, FP32."""
    return 4 * (m * k + k * n + m * n)


def _setup_torch():
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.cuda.init()
    return torch


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _dump(path: str, obj) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


# ---- mode 1: every candidate per shape (the fitting run) ------------------------------------
def sweep_candidates(suite: Sequence[dict], json_path: str, rounds: int = 3, budget_s: float = 1e9,
                     workers: int = 16) -> List[dict]:
    from ..codegen import heuristic, operand_forms
    from ..runtime import driver
    t0 = time.time()
    dev_sms, arch = None, "sm_90"
    plan = []
    items = []
    for s in suite:
        m, n, k = s["m"], s["n"], s["k"]
        cands = []
        for name in heuristic.candidate_names(m, n, k):
            cfg, backend = operand_forms.member_for_shape(name, m, n, k, 132)
            cands.append((name, cfg, backend))
            items.append((cfg, backend))
        plan.append((s, cands))
    errs = compile_all(items, arch, workers)
    _progress(f"compiled {len(errs)} configs in {time.time() - t0:.0f} s; "
              f"{sum(1 for e in errs.values() if e)} failed")
    torch = _setup_torch()
    dev = driver.device()
    dev_sms = dev.sm_count
    rows = []
    loaded = {}
    for idx, (s, cands) in enumerate(plan):
        if time.time() - t0 > budget_s:
            _progress(f"time budget of {budget_s:.0f} s reached: {len(suite) - idx} shapes left out")
            break
        m, n, k = s["m"], s["n"], s["k"]
        row = {"m": m, "n": n, "k": k, "group": s.get("group", ""), "kernels": {}}
        try:
            times = _candidate_times(torch, driver, dev, m, n, k, cands, errs, loaded, row, rounds)
        except Exception as e:  # one shape's failure (memory, a launch) does not end the sweep
            row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
            rows.append(row)
            _progress(f"[{idx + 1}/{len(plan)}] {m}x{n}x{k}: FAILED {row['error']}")
            torch.cuda.empty_cache()
            continue
        row["cublas_us"] = statistics.median(times.pop("cublas"))
        for name, t in times.items():
            row["kernels"][name].update(us=statistics.median(t), rounds=[round(x, 3) for x in t])
        timed = {nm: v["us"] for nm, v in row["kernels"].items() if "us" in v}
        best = min(timed, key=timed.get) if timed else None
        row["best"] = best
        rows.append(row)
        _dump(json_path, {"device": dev.name, "sm_count": dev_sms, "rows": rows})
        _progress(f"[{idx + 1}/{len(plan)}] {m}x{n}x{k}: cuBLAS {row['cublas_us']:.1f} us, best {best} "
                  f"{timed.get(best, float('nan')):.1f} us (x{row['cublas_us'] / timed[best] if best else 0:.3f}) "
                  f"of {len(timed)}; {time.time() - t0:.0f} s")
    return rows


def _candidate_times(torch, driver, dev, m, n, k, cands, errs, loaded, row, rounds):
    from ..runtime.compiler import compile_config
    bench = ShapeBench(torch, m, n, k)
    try:
        fns = {"cublas": bench.cublas()}
        for name, cfg, backend in cands:
            key = config_key(cfg, backend)
            if errs.get(key):
                row["kernels"][name] = {"ok": False, "error": errs[key]}
                continue
            if key not in loaded:
                loaded[key] = driver.load(compile_config(cfg, dev.arch, backend=backend))
            fn = bench.regtile(loaded[key])
            ok, err, unwritten = bench.check(fn)
            row["kernels"][name] = {"ok": ok, "rel_err": err, "unwritten": unwritten, "split_k": cfg.split_k}
            if ok:
                fns[name] = fn
        return time_interleaved(torch, fns, bench.sets, rounds)
    finally:
        bench.close()


def _label(cfg, backend, m, n, k, arch, sms, trans_a: bool = False, trans_b: bool = False) -> str:
    """The family member (and how the heuristic chose it) of a plan's SGEMM kernel `cfg` on packed operands in the
    layout (a repacking plan's: its GEMM's, on the copies), or "tuned ..." where it is not the member the heuristic
    gives (with_layout and for_operands applied alike, as heuristic.choose_kernel chooses)."""
    from ..codegen import heuristic, layouts, operand_forms
    lda, ldb = _gemm_leading_dims(m, n, k, trans_a, trans_b)  # a repacking plan's GEMM: the padded copies'
    aligned = heuristic.rows_aligned(m, n, k, trans_a, trans_b, lda, ldb)
    d = heuristic.describe_choice(m, n, k, arch, sms, aligned, trans_a=trans_a, trans_b=trans_b)
    mcfg, mbe = heuristic.member_config(d["member"], m, n, k, sms)
    laid = layouts.with_layout(mcfg, trans_a, trans_b)
    if (operand_forms.for_operands(laid, mbe, lda, ldb, m, n, k=k), mbe) != (cfg, backend):
        return f"tuned {cfg.bm}x{cfg.bn}x{cfg.bk} {cfg.tm}x{cfg.tn} ({backend})"
    split = f" split-K {cfg.split_k}" if cfg.split_k > 1 else ""
    return (f"{d['member']}{split} ({d['by']})" + (" +unaligned rows" if cfg.unaligned_rows else "")
            + (" +unaligned vectors" if cfg.unaligned_vectors else "") + (" +last column" if cfg.last_col else "")
            + (" +C staged" if cfg.c_staged else "") + (f" +{cfg.max_registers} registers" if cfg.max_registers else "")
            + (f" +ring of {cfg.stages}" if cfg.stages > 2 else ""))


def gemv_routed(m: int, n: int, k: int, trans_a: bool = False, trans_b: bool = False) -> bool:
    """Does regtile.sgemm run this GEMM on packed operands in the layout as a GEMV (m or n == 1) or a few-vector GEMV
    (fewvec_config.route: m or n of 2-16 above the bound of the op the layout gives)?"""
    from ..codegen.fewvec_config import route
    from ..codegen.heuristic import leading_dims
    lda, ldb, _ = leading_dims(m, n, k, trans_a, trans_b)
    return m == 1 or n == 1 or route(m, n, k, trans_a, lda, trans_b, ldb) is not None


def _gemm_leading_dims(m: int, n: int, k: int, trans_a: bool, trans_b: bool) -> Tuple[int, int]:
    """The (lda, ldb) the plan's GEMM runs with on packed operands (repack.gemm_leading_dims: the padded copies' where
    it repacks them; the sweeps time sm_90)."""
    from ..codegen.heuristic import leading_dims
    from ..codegen.repack import gemm_leading_dims
    lda, ldb, _ = leading_dims(m, n, k, trans_a, trans_b)
    return gemm_leading_dims(m, n, k, trans_a, trans_b, lda, ldb)


def sweep_library(suite: Sequence[dict], json_path: str, rounds: int = 5, budget_s: float = 1e9,
                  workers: int = 16, layout: str = "NN") -> List[dict]:
    from ..runtime import driver
    from ..runtime.choice import choose_sgemm_kernel
    from ..runtime.plans import GemmPlan
    t0 = time.time()
    torch = _setup_torch()
    dev = driver.device()
    # compile ahead, in parallel, the SGEMM kernels the plans below will load (GemmPlan's choice)
    trans_a, trans_b = layout[0] == "T", layout[1] == "T"
    ahead = [choose_sgemm_kernel(s["m"], s["n"], s["k"], dev.arch, trans_a, trans_b, 0,
                                 *_gemm_leading_dims(s["m"], s["n"], s["k"], trans_a, trans_b)) for s in suite
             if not gemv_routed(s["m"], s["n"], s["k"], trans_a, trans_b)]
    errs = compile_all(ahead, dev.arch, workers)
    _progress(f"compiled {len(errs)} configs in {time.time() - t0:.0f} s")
    copy = copy_gbs(torch)
    _progress(f"copy bandwidth {copy:.0f} GB/s (1 GiB, read + written)")
    rows = []
    for idx, s in enumerate(suite):
        if time.time() - t0 > budget_s:
            _progress(f"time budget of {budget_s:.0f} s reached: {len(suite) - idx} shapes left out")
            break
        m, n, k = s["m"], s["n"], s["k"]
        bench = ShapeBench(torch, m, n, k, seed=idx, layout=layout)
        plan = GemmPlan(m, n, k, trans_a, trans_b, bench.lda, bench.ldb, n, arch=dev.arch)
        try:
            fn = bench.library(plan)
            ok, err, _ = bench.check(fn)
            fns = {"cublas": bench.cublas(), "regtile": fn}
            times, retimed = time_steady(lambda: time_interleaved(torch, fns, bench.sets, rounds))
        finally:
            bench.close()
        r_us, c_us = statistics.median(times["regtile"]), statistics.median(times["cublas"])
        row = {"m": m, "n": n, "k": k, "regtile_us": round(r_us, 3), "cublas_us": round(c_us, 3),
               "x_cublas": round(c_us / r_us, 4),
               "kernel": (f"GEMV {plan.gemv.plan.describe()}" if plan.gemv is not None
                          else _label(plan.spilled or plan.config, plan.backend, m, n, k, dev.arch, dev.sm_count,
                                      trans_a, trans_b)
                          + (" +register cap lifted" if plan.spilled is not None else "")
                          + (" +repacked" if getattr(plan, "repack", None) is not None else "")),
               "group": s.get("group", ""), "ok": ok, "rel_err": err,
               "regtile_rounds": [round(t, 3) for t in times["regtile"]],
               "cublas_rounds": [round(t, 3) for t in times["cublas"]],
               "gbs": round(traffic_bytes(m, n, k) / r_us / 1e3, 1)}
        if layout != "NN":
            row["layout"] = layout
        if retimed:
            row["retimed"] = True
        if row["group"] == "skinny" and traffic_bytes(m, n, k) >= SKINNY_MIN_BYTES:
            row["pct_copy"] = round(100 * row["gbs"] / copy, 1)
            row["copy_gbs"] = round(copy)
        if plan.gemv is not None:
            row["note"] = GEMV_NOTE
        rows.append(row)
        _dump(json_path, rows)
        _progress(f"[{idx + 1}/{len(suite)}] {m}x{n}x{k}{'' if layout == 'NN' else ' ' + layout}: "
                  f"regtile {r_us:.1f} us, cuBLAS {c_us:.1f} us, "
                  f"x{c_us / r_us:.3f} {row['kernel']}{'' if ok else ' WRONG'}; {time.time() - t0:.0f} s")
    return rows


def geomean(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summary_markdown(rows: Sequence[dict], header: Sequence[str] = ()) -> str:
    xs = [r["x_cublas"] for r in rows]
    gemm = [r["x_cublas"] for r in rows if "note" not in r]
    out = list(header)
    out += ["", f"{len(rows)} shapes; geometric mean x cuBLAS **{geomean(xs):.3f}** (without the m = 1 / n = 1 "
                f"GEMVs: {geomean(gemm):.3f}); {sum(1 for x in xs if x >= 1.0)} shapes >= 1.0x, "
                f"{sum(1 for x in xs if x < 0.9)} below 0.9x; {sum(1 for r in rows if not r.get('ok'))} wrong.", ""]
    skinny = [r for r in rows if "pct_copy" in r]
    if skinny:
        low = ", ".join(f"{r['m']}x{r['n']}x{r['k']} {r['pct_copy']:.1f}%" for r in skinny
                        if r["pct_copy"] < 100 * COPY_TARGET)
        out += [f"Skinny shapes of >= {SKINNY_MIN_BYTES / 1e6:.0f} MB at >= {100 * COPY_TARGET:.0f}% of the copy "
                f"bandwidth ({skinny[0]['copy_gbs']} GB/s): "
                f"{sum(1 for r in skinny if r['pct_copy'] >= 100 * COPY_TARGET)} of {len(skinny)}"
                + (f"; below: {low}." if low else "."), ""]
    retimed = [f"{r['m']}x{r['n']}x{r['k']}" for r in rows if r.get("retimed")]
    if retimed:
        out += [f"Timed again (a pass's rounds spread by more than {100 * (DISTURBED_SPREAD - 1):.0f}%): "
                f"{', '.join(retimed)}.", ""]
    groups = sorted({r.get("group", "") for r in rows})
    out += ["| group | shapes | geomean x cuBLAS | min | max |", "| --- | --- | --- | --- | --- |"]
    for g in groups:
        gx = [r["x_cublas"] for r in rows if r.get("group", "") == g]
        out.append(f"| {g} | {len(gx)} | {geomean(gx):.3f} | {min(gx):.3f} | {max(gx):.3f} |")
    out += ["", "| m | n | k | group | regtile us | cuBLAS us | x cuBLAS | kernel |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        flag = " (GEMV route)" if "note" in r else ""
        out.append(f"| {r['m']} | {r['n']} | {r['k']} | {r.get('group', '')} | {r['regtile_us']:.1f} | "
                   f"{r['cublas_us']:.1f} | {r['x_cublas']:.3f}{'' if r.get('ok', True) else ' WRONG'} | "
                   f"{r['kernel']}{flag} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.tools.shape_sweep", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--candidates", action="store_true", help="time every candidate member per shape (GPU)")
    g.add_argument("--fit", metavar="RAW_JSON", nargs="+",
                   help="rewrite the decision table from --candidates runs (CPU; a later run's shapes replace "
                        "an earlier one's)")
    p.add_argument("--suite", default=None, help="suite JSON (default benchmarks/shapes.json)")
    p.add_argument("--json", default=None, help="output JSON (default docs/data/shape-sweep.json; "
                                                "--candidates: required)")
    p.add_argument("--md", default=None, help="also write the summary table here")
    p.add_argument("--table", default=None, help="--fit: the table to write (default codegen/heuristic_table.json)")
    p.add_argument("--sticky", type=float, default=0.0, metavar="FRACTION",
                   help="--fit: a shape keeps the member the table had where it is within FRACTION of the "
                        "fastest in the runs (e.g. 0.03; default 0: the fastest)")
    p.add_argument("--model-from", metavar="RAW_JSON", nargs="+", default=None,
                   help="--fit: fit the model on these runs' suite rows instead of --fit's (a later run's shapes "
                        "replace an earlier one's; the table names them in model_source, by file name).  Default: the "
                        "runs the rewritten table's model_source names, where it names them, read from docs/data")
    p.add_argument("--refit-model", action="store_true",
                   help="--fit: fit the model on --fit's runs even where the rewritten table names a model_source")
    p.add_argument("--layout", default="NN", choices=LAYOUTS,
                   help="the library sweep's layout, op(A) op(B) against cuBLAS's (default NN; T: the operand "
                        "stored transposed; output docs/data/shape-sweep-LAYOUT.json unless --json)")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 3 candidates, 5 library)")
    p.add_argument("--budget-s", type=float, default=1e9, help="stop starting new shapes after this many seconds")
    p.add_argument("--only", default=None, help="comma-separated groups of the suite to run")
    args = p.parse_args(argv)
    if args.fit:
        from .table_fit import refit
        return refit(args.fit, args.table, args.sticky, args.model_from, args.refit_model, p.error)
    suite = load_suite(args.suite)
    if args.only:
        keep = set(args.only.split(","))
        suite = [s for s in suite if s.get("group") in keep]
    if args.candidates:
        if not args.json:
            p.error("--candidates needs --json RAW.json")
        if args.layout != "NN":
            p.error(f"--layout {args.layout}: --candidates times row-major A and B (NN), as the table is fitted")
        suite = sorted(suite, key=lambda s: s["m"] * s["n"] * s["k"])  # the cheap shapes first under a budget
        sweep_candidates(suite, args.json, rounds=args.rounds or 3, budget_s=args.budget_s)
        return 0
    path = args.json or (SWEEP_JSON if args.layout == "NN" else SWEEP_JSON.replace(".json", f"-{args.layout}.json"))
    rows = sweep_library(suite, path, rounds=args.rounds or 5, budget_s=args.budget_s, layout=args.layout)
    from ..runtime import driver
    dev = driver.device()
    text = summary_markdown(rows, [f"Device: {dev.name}, {dev.sm_count} SMs; {time.strftime('%Y-%m-%d')}"
                                   + ("" if args.layout == "NN" else f"; layout {args.layout} (op(A) op(B)) against "
                                      f"cuBLAS's {args.layout}")])
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
