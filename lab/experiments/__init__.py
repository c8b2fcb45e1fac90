"""One-off device experiments behind results in docs/data (docs/perf-log.md, docs/tuning.md and
docs/sass-pass.md cite each).  Not part of the installed package: run one from the repository
root as `python3 -m lab.experiments.NAME [args]` (on the device machine it writes its JSON under
$OUT, else the current folder); `--help` says what it measured and needs no GPU.  They
monkeypatch or rewrite what they measure (a module constant, a cubin's instructions), and keep
the code as it ran, which is why they live here and not in the package's stages."""
import argparse
import sys


def program(run, args_help=None):
    """The experiment's main(argv): --help prints its docstring; the arguments go to run(argv)."""
    module = sys.modules[run.__module__]
    name = module.__spec__.name if module.__spec__ else module.__name__

    def main(argv=None) -> int:
        p = argparse.ArgumentParser(prog=f"python3 -m {name}", description=module.__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        if args_help:
            p.add_argument("argv", nargs="*", metavar="ARG", help=args_help)
        args, rest = p.parse_known_args(argv)
        run(list(getattr(args, "argv", [])) + rest)
        return 0
    return main


# ---- what the experiments share (imports inside: --help needs no GPU) -------------------
def best_config(**changes):
    """The best kernel of docs/perf-log.md (issue 9): the zorder preset widened to 128x256x8 8x16,
    one block an SM, SASS pass (PTX backend, sm_90), with `changes` on top."""
    from regtile.codegen.presets import get_preset
    return get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, sass_pass=True).replace(**changes)


def load_ptx(cfg):
    """cfg compiled through the PTX backend for sm_90 and loaded."""
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    return driver.load(compile_config(cfg, "sm_90", backend="ptx"))


def workloads(shapes):
    """(shape, its GemmWorkload: rotating operand sets) for each M x N x K, each closed after its turn."""
    from regtile.runtime import bench
    for shape in shapes:
        work = bench.GemmWorkload(*shape)
        try:
            yield shape, work
        finally:
            work.close()


def time_kernel(kern, work, rnd: int):
    """One loaded kernel on the workload (alpha 1, beta 0, 20 timed launches), its result checked
    against float64 in round 0."""
    from regtile.runtime import bench
    r = bench.check_and_time(bench.kernel_launcher(kern, work, 1.0, 0.0), work, 1.0, 0.0, 20, check=(rnd == 0))
    assert r.ok or rnd, (kern.label, r.rel_err, r.unwritten)
    return r


def below_cublas(sweep: str = "docs/data/shape-sweep.json"):
    """(rows by (m, n, k), the (m, n, k) below 1.0x worst first) of a shape sweep's JSON
    (regtile.tools.shape_sweep: rows {m, n, k, x_cublas, ...}; or SWEEP.gz); nothing where the file is missing."""
    from regtile.tools.datafiles import load_json
    try:
        rows = {(r["m"], r["n"], r["k"]): r for r in load_json(sweep)}
    except FileNotFoundError:
        return {}, []
    return rows, sorted((s for s, r in rows.items() if r["x_cublas"] < 1.0), key=lambda s: rows[s]["x_cublas"])


def timed_choice(h, r, timed, sm_count: int = 132, table=None):
    """The heuristic's choice (h: codegen/heuristic) for a candidates row's shape, packed row-major as choose_member
    makes it (the table's neighbours carried to the shape by the model, else the model; `table`: entries in place of
    the committed ones), among the members the row timed (`timed`: {member: us}, or a table entry's `rel`), as
    tests/codegen/test_heuristic.py judges the held-out picks: a member added to the family after the run has no time
    in its rows.  -> (that pick, "table" or "model": which made it, whether the choice among every candidate picks a
    member outside `timed`: the offline evaluators count those rows)."""
    m, n, k = r["m"], r["n"], r["k"]
    names = h.candidate_names(m, n, k, sm_count)
    pick, why = h.choice_among([nm for nm in names if nm in timed], m, n, k, sm_count, table)
    return pick, why, h.choice_among(names, m, n, k, sm_count, table)[0] not in timed


def cublas_ms(work) -> float:
    """cuBLAS on the same workload (20 timed launches, unchecked)."""
    from regtile.runtime import bench
    return bench.measure_cublas(work, repeat=20, check=False)[0].ms


def time_steps(out: dict, prefix: str, kern, work) -> None:
    """A stream-K kernel's launches on the workload's first set: the plan (out[prefix + " plan"])
    and each launch alone, timing only (out[prefix + " step J LABEL grid GRID"], a round each)."""
    from regtile.runtime import bench
    from regtile.runtime.sgemm_launch import SgemmLaunch
    m, n, k, ws = work.m, work.n, work.k, work.workspace(1 << 28)
    launch = SgemmLaunch(kern, m, n, k, 1.0, work.a[0].ptr, k, work.b[0].ptr, n, 0.0, work.c[0].ptr, n, ws)
    out[f"{prefix} plan"] = launch.plan.describe()
    for j, (kk, grid, packed) in enumerate(launch.steps):
        one = lambda i, s, kk=kk, grid=grid, packed=packed: kk.launch(grid, (), s, packed=packed)  # noqa: E731
        ms = bench.check_and_time(one, work, 1.0, 0.0, 20, check=False).ms
        out.setdefault(f"{prefix} step {j} {kk.label} grid {grid}", []).append(ms)


def save(out: dict, filename: str) -> None:
    """Print each result (a list of rounds as its median and the rounds) and write them all as
    JSON to $OUT/filename (the current folder without $OUT)."""
    import json
    import os
    import statistics
    for key, v in out.items():
        print(key, f"{statistics.median(v):.4f} {[round(x, 4) for x in v]}" if isinstance(v, list) else v, flush=True)
    with open(os.path.join(os.environ.get("OUT", "."), filename), "w") as f:
        json.dump(out, f, indent=1)


def interleaved(arts: dict, args, filename: str) -> int:
    """The variants (compiled artifacts, results wrong on purpose) timed against cuBLAS in
    interleaved rounds, check=False, unless --dry (built and checked through nvdisasm only)."""
    if not args.dry:
        from regtile.tools import interleave
        interleave.run(arts, args.sizes or [4096], filename, check=False)
    return 0


def device_kernels(torch, fn, calls: int = 1) -> dict:
    """{kernel name: [device us of each launch]} of what `calls` calls of fn() launch on the GPU,
    recorded by torch.profiler (CUPTI: the names Nsight Compute shows)."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type.name == "CUDA" and e.device_time > 0:
            kernels.setdefault(e.name, []).append(e.device_time)
    return kernels


def checks(bench, fns) -> dict:
    """{name: {ok, rel_err, unwritten}} of each fn of {name: fn} against float64 on a tools/shape_sweep ShapeBench
    (C NaN-poisoned first)."""
    check = {}
    for name, fn in fns.items():
        ok, err, unwritten = bench.check(fn)
        check[name] = {"ok": ok, "rel_err": err, "unwritten": unwritten}
    return check


def patched_plan(m, n, k, operands, patches, cfg=None, backend=None):
    """A GemmPlan (of `cfg` on `backend`, else regtile.sgemm's choice) compiled with each (owner, attribute, value) of
    `patches` set while it is built (fixup_ab.patched: a module constant the emitters read)."""
    from contextlib import ExitStack
    from regtile.runtime.plans import GemmPlan
    from .fixup_ab import patched
    with ExitStack() as stack:
        for owner, attribute, value in patches:
            stack.enter_context(patched(owner, attribute, value))
        return GemmPlan(m, n, k, *operands, config=cfg, backend=backend)


def gemv_route_plan(bench, m: int, n: int, k: int):
    """(plan, operands, row, skip) for the GEMV-route A/Bs: regtile.sgemm's plan of the shape in the bench's layout,
    the GemmPlan operands after (m, n, k) to build its variants with, the JSON row begun, and the line to print
    instead when the plan takes no GEMV or few-vector route (else None)."""
    from regtile.runtime.plans import GemmPlan
    operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
    lib = GemmPlan(m, n, k, *operands)
    row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b], "plan": lib.describe()}
    skip = None if lib.gemv is not None else f"not a GEMV or few-vector route ({lib.describe()[:60]})"
    return lib, operands, row, skip


def check_and_time_interleaved(torch, bench, fns, checked, rounds: int = 5):
    """({name: {ok, rel_err, unwritten}} of the `checked` variants against float64, {name: median us})
    of `fns` on a tools/shape_sweep ShapeBench, timed interleaved kernel against kernel."""
    import statistics
    from regtile.tools.shape_sweep import time_interleaved
    check = checks(bench, {name: fns[name] for name in checked})
    times = time_interleaved(torch, fns, bench.sets, rounds)
    return check, {name: round(statistics.median(t), 2) for name, t in times.items()}


def layout_spec(spec: str):
    """(layout, m, n, k, trans_a, trans_b, lda, ldb) of "LAYOUT:MxNxK" ("MxNxK": NN), the operands packed."""
    from regtile.codegen.heuristic import leading_dims
    layout, _, shape = spec.rpartition(":")
    layout = layout or "NN"
    m, n, k = (int(v) for v in shape.split("x"))
    ta, tb = layout[0] == "T", layout[1] == "T"
    lda, ldb, _ = leading_dims(m, n, k, ta, tb)
    return layout, m, n, k, ta, tb, lda, ldb


def time_members(torch, bench, members: dict, spec: str):
    """regtile.sgemm's plan ("lib") and a plan of each {name: (config, backend)} on a tools/shape_sweep ShapeBench (in
    its layout), checked against float64, then timed interleaved with cuBLAS: (check, us, the plans' names).  A member
    that cannot run there is named on stdout and left out."""
    from regtile.runtime.plans import GemmPlan
    m, n, k = bench.m, bench.n, bench.k
    plans = {"lib": GemmPlan(m, n, k, bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)}
    for name, (cfg, be) in members.items():
        try:
            plans[name] = GemmPlan(m, n, k, bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n, config=cfg,
                                   backend=be)
        except Exception as e:
            print(f"{spec} {name}: {type(e).__name__}: {e}", flush=True)
    fns = dict(cublas=bench.cublas(), **{nm: bench.library(p) for nm, p in plans.items()})
    check, us = check_and_time_interleaved(torch, bench, fns, tuple(plans))
    return check, us, tuple(plans)


def check_view(torch, fn, c, rows: int, cols: int, ref) -> dict:
    """{ok, rel_err, unwritten} of fn(0) writing C[:rows, :cols] of the buffer `c` against `ref` (float64): `c`
    NaN-poisoned first, and everything outside that view must stay NaN (a padded C's columns, a bench's C beyond a
    sub-problem)."""
    c.fill_(float("nan"))
    fn(0)
    torch.cuda.synchronize()
    got = c[:rows, :cols]
    unwritten = int(torch.isnan(got).sum().item())
    err = (torch.linalg.vector_norm(torch.nan_to_num(got.double() - ref, nan=float("inf")))
           / torch.linalg.vector_norm(ref)).item()
    kept = bool(torch.isnan(c[:rows, cols:]).all().item()) and bool(torch.isnan(c[rows:, :]).all().item())
    return {"ok": unwritten == 0 and err <= 1e-5 and kept, "rel_err": err, "unwritten": unwritten}


def checked_row(torch, bench, fns, row: dict, unchecked=()):
    """The per-shape A/Bs' last step: every variant of `fns` but "cublas" (and `unchecked`: parts of a variant)
    checked against float64, all timed interleaved; `row` gets the checks and times.  -> (row, the versus line)."""
    checked = tuple(name for name in fns if name != "cublas" and name not in unchecked)
    check, us = check_and_time_interleaved(torch, bench, fns, checked)
    row.update(check=check, us=us)
    return row, versus(us, check, [name for name in fns if name != "cublas"])


def versus(us, check, names) -> str:
    """One line of an A/B: cuBLAS's time, then each variant's and its ratio to cuBLAS (WRONG where its
    check against float64 failed)."""
    return f"cuBLAS {us['cublas']:.1f}  " + "  ".join(
        f"{name} {us[name]:.1f} (x{us['cublas'] / us[name]:.3f}"
        f"{' WRONG' if name in check and not check[name]['ok'] else ''})" for name in names)


def take_option(argv, key: str):
    """Remove every `key=value` argument from argv (in place); the last value, else None.  The A/Bs'
    options (variants=a,b, held=1, only=a,b) are such arguments, before the shapes."""
    found = [a for a in argv if a.startswith(key + "=")]
    for a in found:
        argv.remove(a)
    return found[-1][len(key) + 1:] if found else None


def registers(art):
    """{kernel role: registers} of a compiled module, from the final cubin (after the SASS pass)."""
    from regtile.sass.cubin import kernel_info
    return {role: kernel_info(art.cubin, src.name).registers for role, src in art.source.kernels()}


def member_for_shape(name: str, m: int, n: int, k: int, sm_count: int = 132, trans_a: bool = False,
                     trans_b: bool = False, lda: int = 0, ldb: int = 0):
    """operand_forms.member_for_shape at the H100's 132 SMs by default (lda / ldb: the packed operands' where 0)."""
    from regtile.codegen.operand_forms import member_for_shape as for_shape
    return for_shape(name, m, n, k, sm_count, trans_a, trans_b, lda, ldb)


def time_plans(torch, bench, plans, row: dict, label: str):
    """The A/Bs' last step: every plan ({name: GemmPlan}) and cuBLAS checked against float64, then timed
    interleaved; `row` gets the checks, the times and each plan's registers.  -> (row, the A/B line
    ending in [label])."""
    fns = dict(cublas=bench.cublas(), **{name: bench.library(plan) for name, plan in plans.items()})
    check, u = check_and_time_interleaved(torch, bench, fns, tuple(plans))
    row.update(check=check, us=u, registers={name: registers(p.kernel.artifact) for name, p in plans.items()})
    return row, versus(u, check, plans) + f"  [{label}]"


def time_graphs(torch, variants, batch: int = 20, rounds: int = 11):
    """{name: (graph us, stream us)} of {name: (stream, fn)}: each variant's fn(0) ... fn(batch - 1) captured as a
    CUDA graph on its stream (tools/sgemv_sweep._Timer), replays interleaved over `rounds`, median us a call; and the
    same calls launched from Python one by one ("stream": bound by the host for kernels of a few us)."""
    import statistics
    from regtile.tools.sgemv_sweep import _Timer
    timers = {name: _Timer(torch, st) for name, (st, _) in variants.items()}
    graphs = {name: timers[name].graph(fn, batch) for name, (_, fn) in variants.items()}
    for g in graphs.values():
        for _ in range(5):
            g()
    gt, stt = {name: [] for name in variants}, {name: [] for name in variants}
    names = list(variants)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            gt[name].append(graphs[name]())
            stt[name].append(timers[name].us(variants[name][1], batch))
    return {name: (round(statistics.median(gt[name]), 3), round(statistics.median(stt[name]), 3)) for name in names}


def time_plans_graphs(torch, bench, plans, row: dict, label: str):
    """time_plans through CUDA graphs: every plan checked against float64 (on the default stream), then each plan and
    cuBLAS on its own stream timed by time_graphs on the bench's rotating sets; row["us"]: the median us a call in
    the graphs, row["us_stream"]: time_graphs' "stream".  -> (row, the A/B line of the graphs' times ending in
    [label])."""
    check = checks(bench, {name: bench.library(plan) for name, plan in plans.items()})
    a, b, c, sets = bench.a, bench.b, bench.c, bench.sets
    streams = {name: torch.cuda.Stream() for name in ("cublas", *plans)}
    mm = bench.cublas()

    def cublas(i, s=streams["cublas"]):
        with torch.cuda.stream(s):
            mm(i % sets)
    fns = dict(cublas=cublas, **{
        name: (lambda i, p=plan, s=streams[name].cuda_stream:
               p.launch(a[i % sets].data_ptr(), b[i % sets].data_ptr(), c[i % sets].data_ptr(), 1.0, 0.0, s))
        for name, plan in plans.items()})
    for fn in fns.values():
        fn(0)  # the plan binds this stream's launches (and cuBLAS its workspace) before the capture
    torch.cuda.synchronize()
    times = time_graphs(torch, {name: (streams[name], fn) for name, fn in fns.items()})
    u = {name: round(g, 2) for name, (g, _) in times.items()}
    row.update(check=check, us=u, us_stream={name: round(st, 2) for name, (_, st) in times.items()},
               registers={name: registers(p.kernel.artifact) for name, p in plans.items()})
    return row, versus(u, check, plans) + f"  [{label}]"


def over_shapes(argv, default, filename: str, one) -> None:
    """The per-shape A/B experiments' loop: for each [LAYOUT:]MxNxK of argv (else `default`; layout_spec) a
    tools/shape_sweep ShapeBench in that layout, one(torch, bench, m, n, k) -> (its JSON row, the line to print),
    the bench closed after it; the rows as {"rows": [...]} in `filename` (write_out)."""
    from regtile.tools.shape_sweep import ShapeBench, _setup_torch
    torch = _setup_torch()
    rows = []
    for spec in argv or default:
        layout, m, n, k = layout_spec(spec)[:4]
        bench = ShapeBench(torch, m, n, k, layout=layout)
        try:
            row, line = one(torch, bench, m, n, k)
        finally:
            bench.close()
        print(f"{spec}: {line}", flush=True)
        rows.append(row)
    write_out(filename, {"rows": rows})


def shapes_program(module: str, default, filename: str, one, args_help: str = "[MxNxK ...]"):
    """main(argv) of a per-shape A/B: over_shapes(argv or `default`, `filename`, one), --help printing `module`'s
    docstring (program)."""
    def run(argv):
        over_shapes(argv, default, filename, one)
    run.__module__ = module
    return program(run, args_help)


def pass_step_ab(switch: str, off_label: str, report: str):
    """A per-shape A/B of one optional step of the SASS pass: the plan regtile.sgemm builds ("lib") against the
    same config built with runtime/sass_stage.`switch` False (`off_label`), when the plan's kernel runs the pass;
    `report` names the step's part of the pass report (PassReport.`report`), kept in the row.  In the bench's
    layout (over_shapes: LAYOUT:MxNxK)."""
    def one(torch, bench, m, n, k):
        from regtile.runtime import sass_stage
        from regtile.runtime.plans import GemmPlan
        from .fixup_ab import patched
        operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
        lib = GemmPlan(m, n, k, *operands)
        row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b],
               "config": lib.config.describe() if lib.gemv is None else "GEMV"}
        if lib.gemv is not None or not getattr(lib.config, "sass_pass", False):
            return row, f"no SASS pass ({row['config']})"
        row["step"] = getattr(lib.kernel.artifact.sass_pass, report)
        with patched(sass_stage, switch, False):
            other = GemmPlan(m, n, k, *operands, config=lib.config, backend=lib.backend)
        counts = ", ".join(f"{key} {v}" for key, v in row["step"].items() if isinstance(v, int))
        return time_plans(torch, bench, {"lib": lib, off_label: other}, row, f"{lib.kernel.label}; {counts}")
    return one


def write_out(filename: str, payload) -> None:
    """The experiment's JSON, under $OUT (the device run's folder) or the current folder."""
    import json
    import os
    with open(os.path.join(os.environ.get("OUT", "."), filename), "w") as f:
        json.dump(payload, f, indent=1)


# ---- the stream prototypes' kernels (stream_t_proto, stream_n_proto) --------------------------------------
# A prototype's main kernel takes the SGEMM's arguments, then the split workspace Wk and each split's K length;
# with gridDim.y == 1 it writes C, else its split's M x N partial to Wk, and the reduce entry (SPLIT_REDUCE, a
# programmatic launch: it waits for the main kernel) sums the splits in order into C.
SPLIT_PARAMS = (("M", "int"), ("N", "int"), ("K", "int"), ("alpha", "float"), ("A", "const float*"), ("lda", "int"),
                ("B", "const float*"), ("ldb", "int"), ("beta", "float"), ("C", "float*"), ("ldc", "int"),
                ("Wk", "float*"), ("kchunk", "int"))
SPLIT_REDUCE_PARAMS = (("M", "int"), ("N", "int"), ("splits", "int"), ("alpha", "float"), ("Wk", "const float*"),
                       ("beta", "float"), ("C", "float*"), ("ldc", "int"))
SPLIT_REDUCE = r"""
extern "C" __global__ void {name}_reduce({params})
{{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)M * N) return;
    float s = 0.f;
    for (int j = 0; j < splits; ++j) s += Wk[(size_t)j * M * N + i];
    float* cp = C + (i / N) * ldc + i % N;
    *cp = alpha * s + (beta != 0.f ? beta * *cp : 0.f);
}}
"""


def split_head(name: str, min_blocks: int) -> str:
    """A prototype main kernel's declaration: THREADS (its macro) a block, at least `min_blocks` an SM, and
    SPLIT_PARAMS - the arguments time_split_kernels packs, in that order."""
    from regtile.codegen.kernel import c_params
    return f'extern "C" __global__ void __launch_bounds__(THREADS, {min_blocks})\n{name}({c_params(SPLIT_PARAMS)})'


def split_source(name: str, main_text: str, threads: int, smem_bytes: int):
    """The prototype's module: its main kernel `name` (SPLIT_PARAMS, `threads` a block, `smem_bytes` of dynamic
    shared memory) and the reduce entry."""
    from regtile.codegen.kernel import KernelSource, LaunchGeometry, c_params
    red = KernelSource(name + "_reduce", "cuda", "", LaunchGeometry(block=(256, 1, 1), tile_m=1, tile_n=1,
                                                                     dynamic_smem_bytes=0, programmatic=True),
                       SPLIT_REDUCE_PARAMS)
    geo = LaunchGeometry(block=(threads, 1, 1), tile_m=1, tile_n=1, dynamic_smem_bytes=smem_bytes)
    text = main_text + SPLIT_REDUCE.format(name=name, params=c_params(SPLIT_REDUCE_PARAMS))
    return KernelSource(name, "cuda", text, geo, SPLIT_PARAMS, reduce=red)


def time_split_kernels(torch, bench, m: int, n: int, k: int, kernels: dict):
    """regtile.sgemm's plan for the shape, cuBLAS and each prototype kernel ({label: (loaded kernel, grid x,
    splits, kchunk, meta)}: grid (x, splits), each split kchunk long) checked against float64 and timed
    interleaved on the ShapeBench.  -> (JSON row, line: times, GB/s, splits / blocks an SM / registers)."""
    from regtile.runtime.plans import GemmPlan
    plan = GemmPlan(m, n, k, False, False, k, n, n)
    fns = {"cublas": bench.cublas(), "plan": bench.library(plan)}
    meta = {}
    for label, (kern, grid_x, s, kchunk, info) in kernels.items():
        ws = torch.empty(max(1, s * m * n), device="cuda") if s > 1 else None
        wsp = ws.data_ptr() if ws is not None else 0
        mains, reds = [], []
        for i in range(bench.sets):
            a, b, c = bench.a[i].data_ptr(), bench.b[i].data_ptr(), bench.c[i].data_ptr()
            mains.append(kern.pack((m, n, k, 1.0, a, k, b, n, 0.0, c, n, wsp, kchunk)))
            reds.append(kern.reduce.pack((m, n, s, 1.0, wsp, 0.0, c, n)))
        grid, rgrid = (grid_x, s, 1), (-(-(m * n) // 256), 1, 1)

        def fn(i, kern=kern, grid=grid, mains=mains, reds=reds, s=s, rgrid=rgrid, keep=ws):
            kern.launch(grid, (), 0, packed=mains[i])
            if s > 1:
                kern.reduce.launch(rgrid, (), 0, packed=reds[i])
        fns[label] = fn
        meta[label] = dict(info, splits=s, grid=grid, blocks_per_sm=kern.blocks_per_sm,
                           registers=kern.artifact.resources.registers)
    names = [x for x in fns if x != "cublas"]
    check, us = check_and_time_interleaved(torch, bench, fns, names)
    traffic = 4 * (m * k + k * n + m * n)
    gbs = {name: round(traffic / t / 1e3) for name, t in us.items()}
    row = dict(m=m, n=n, k=k, plan=plan.describe(), check=check, us=us, gbs=gbs, meta=meta)
    return row, versus(us, check, names) + "  GB/s " + " ".join(f"{x} {gbs[x]}" for x in names) + \
        "  " + " ".join(f"{x}:s{meta[x]['splits']}b{meta[x]['blocks_per_sm']}r{meta[x]['registers']}" for x in meta)
