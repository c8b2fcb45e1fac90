"""Offline (no GPU): forms of the heuristic's fallback model (codegen/heuristic.model_time), judged on what they pick.

The model decides wherever the table has no suite shape near (most held-out shapes, and most suite shapes when
each is left out).  Each form is fitted on the suite's candidates runs (the committed table's sources) and
judged by the picks' time over the fastest member's (geometric mean, through the whole choice: the table's
neighbours carried by the model, else the model), and how many picks reach cuBLAS:
  - on the held-out candidates runs, where every member was timed on shapes of real models the table never saw
    (SETS: session 14's held-out 1 and 2, session 15's held-out 3 and 4);
  - on the suite, each shape left out of the table in turn (the model fitted on every suite shape).
The held-out runs timed the family of their day: a pick is made among the members its row timed (as
tests/codegen/test_heuristic.py judges held-out picks), and a line under each form counts the rows where the choice
among every candidate took a member added since.
Forms:
  committed       heuristic.model_time as it is (since b0440de the fused members' fixed cost, fit_model)
  fixed-every     a fixed cost a launch fitted with the throughput for every member (heuristic's own fitter)
  occupancy       + the blocks an SM holds (ptxas's registers, member_occupancy) and a lone block's time a
                  k-tile, fitted per member (numpy grid)
  warps4          the committed model with a throughput scaled by the warps an SM holds below 4
`cross=1` also fits the occupancy form on the suite and the other held-out sets, judged on each set in turn.

  python3 -m lab.experiments.model_fit_eval [forms=a,b] [cross=1]
"""
import functools
import json
import math
import os

from lab.experiments import program, take_option, timed_choice

SETS = {"held-out 1+2": "docs/data/heldout-session14/i_b74cc20/shape-candidates-session14-heldout12_b74cc20.json",
        "held-out 3": "docs/data/heldout-session15/a_ae29e62/shape-candidates-heldout3_ae29e62.json",
        "held-out 4": "docs/data/heldout-session15/a_ae29e62/shape-candidates-heldout4_ae29e62.json"}
FIXED_US = [x * 0.25 for x in range(0, 81)]      # the occupancy form's grids: 0 .. 20 us a launch,
TFLOPS = [4.0 + x * 0.25 for x in range(0, 241)]  # 4 .. 64 TFLOP/s,
LAT_US = [x * 0.025 for x in range(0, 121)]       # 0 .. 3 us a k-tile for a block alone on its SM


def suite_rows():
    """The suite's rows the committed table's model was fitted on (its `model_source` runs where it names them, else
    its `source` runs: table_fit.model_runs; merged as `--fit` merges them, the fitting grids' rows left out as
    `--fit` leaves them out of the model)."""
    from regtile.codegen import heuristic as h
    from regtile.tools.datafiles import load_json
    from regtile.tools.table_fit import fitting_row, merge_runs, model_runs
    raws = [load_json(os.path.join("docs", "data", name)) for name in model_runs(h._table_data())]
    return [r for r in merge_runs(raws)["rows"] if not fitting_row(r)]


def set_rows(label):
    from regtile.tools.datafiles import load_json
    return load_json(SETS[label])["rows"]


@functools.lru_cache(maxsize=1)
def member_occupancy():
    """{member: blocks an SM} of each sm_90 member's main kernel, from ptxas's registers (compiled here, for
    1024 x 1024 x 4096) and its threads: 64K registers in 256-register warp allocations, 64 warps an SM."""
    from regtile.codegen import heuristic as h
    from regtile.codegen.presets import FAMILY
    from regtile.runtime.compiler import compile_config
    out = {}
    for name in FAMILY:
        if name == "cuda-zorder":
            continue
        cfg, backend = h.member_config(name, 1024, 1024, 4096, 132)
        regs = compile_config(cfg, "sm_90", backend=backend).resources.registers
        warps = cfg.threads // 32
        out[name] = min(65536 // (-(-regs * 32 // 256) * 256) // warps, 64 // warps, 32)
    return out


# ---- the forms: each a model_time (None: the committed one) ------------------------------------
# Each takes heuristic.model_time's arguments, fixup=False too: table_choice's transfer leaves stream-K's fix-up out
# (heuristic.TRANSFER_FIXUP, since 0d89f54: the forms, which took five arguments, raised a TypeError from then on).
def fixed_every(rows, sm_count=132):
    """model_time with a fixed cost and a throughput for every member (heuristic_fit._fit_fixed_and_tflops)."""
    from regtile.codegen import heuristic as h
    from regtile.codegen import heuristic_fit as hf
    params = {name: hf._fit_fixed_and_tflops(s) for name, s in hf._model_samples(rows, sm_count).items()}

    def model_time(name, m, n, k, sm_count, fixup=True):
        c0, tflops = params[name]
        flops, traffic, launches = h.model_parts(name, m, n, k, sm_count)
        return (max(flops / (tflops * 1e6), traffic / (h.COPY_TBPS * 1e6)) + c0 * launches
                + (h.fixup_us(name, m, n, k, sm_count) if fixup else 0.0))
    return model_time


def occupancy_parts(name, m, n, k, sm_count):
    """(blocks sharing an SM, turns of them, k-tiles a block, FLOPs of a block's k-tile, launches, traffic,
    stream-K fix-up us) of a member on M x N x K."""
    from regtile.codegen import heuristic as h
    mem = h.get_member(name)
    c = mem.config
    occ = member_occupancy()[name]
    tiles = h._ceil(m, c.bm) * h._ceil(n, c.bn)
    kt = h._ceil(k, c.bk)
    launches = 1
    if c.stream_k:
        blocks = max(tiles, min(sm_count, max(tiles, tiles * kt // h.MIN_ITERS)))
        kb = tiles * kt / blocks
        per_sm = blocks / sm_count
        launches = 2 if tiles % sm_count else 1
        r = min(max(per_sm, 1.0), occ)
        turns = max(per_sm / r, 1.0)
    else:
        s = 1
        if name.startswith("splitk-") or mem.backend == h.FUSED:
            s = h.split_for(m, n, k, c.bm, c.bn, c.bk, sm_count, mem.fill, mem.min_ktiles, mem.max_split, mem.within_fill)
            launches = 2 if s > 1 and mem.backend != h.FUSED else 1
        kb = h._ceil(kt, s)
        per_sm = h._ceil(tiles * s, sm_count)
        r = min(per_sm, occ)
        turns = h._ceil(per_sm, occ)
    traffic = h.model_parts(name, m, n, k, sm_count)[1]
    return r, turns, kb, 2.0 * c.bm * c.bn * c.bk, launches, traffic, h.fixup_us(name, m, n, k, sm_count)


def _occupancy_time(r, turns, kb, kflops, launches, traffic, fix, c0, tflops, lat, sm_count, maximum=max):
    """The occupancy form's microseconds (`maximum`: numpy.maximum over the fitting grid)."""
    from regtile.codegen.heuristic import COPY_TBPS
    per_tile = maximum(lat, r * kflops * sm_count / (tflops * 1e6))
    return maximum(turns * kb * per_tile, traffic / (COPY_TBPS * 1e6)) + c0 * launches + fix


def occupancy(rows, sm_count=132):
    """model_time with (fixed us, TFLOP/s, a lone block's us a k-tile) fitted per member on a numpy grid."""
    import numpy as np
    from regtile.codegen import heuristic_fit as hf
    samples = {}
    for r in rows:
        for name, us in hf.timed_members(r).items():
            samples.setdefault(name, []).append(occupancy_parts(name, r["m"], r["n"], r["k"], sm_count) + (us,))
    grid = (np.array(FIXED_US, dtype=np.float32)[:, None, None, None],
            np.array(TFLOPS, dtype=np.float32)[None, :, None, None],
            np.array(LAT_US, dtype=np.float32)[None, None, :, None])
    params = {}
    for name, s in samples.items():
        a = np.array(s, dtype=np.float32)
        *parts, us = (a[:, i][None, None, None, :] for i in range(8))
        err = np.abs(np.log(_occupancy_time(*parts, *grid, sm_count, maximum=np.maximum) / us)).sum(axis=3)
        i, j, l = np.unravel_index(np.argmin(err), err.shape)
        params[name] = (FIXED_US[i], TFLOPS[j], LAT_US[l])

    def model_time(name, m, n, k, sm_count, fixup=True):
        *parts, fix = occupancy_parts(name, m, n, k, sm_count)
        return _occupancy_time(*parts, fix if fixup else 0.0, *params[name], sm_count)
    return model_time


def warps4(rows, sm_count=132, w0=4):
    """The committed model_time with the FLOP term scaled by w0 / warps where an SM holds fewer than w0 warps."""
    from regtile.codegen import heuristic as h
    committed = h.model_time

    def model_time(name, m, n, k, sm_count, fixup=True):
        t = committed(name, m, n, k, sm_count, fixup)
        r = occupancy_parts(name, m, n, k, sm_count)[0]
        warps = r * h.get_member(name).config.threads // 32
        flops, traffic, _ = h.model_parts(name, m, n, k, sm_count)
        compute = flops / (h.model_tflops()[name] * 1e6)
        if warps >= w0 or compute < traffic / (h.COPY_TBPS * 1e6):
            return t
        return t + compute * (w0 / warps - 1)
    return model_time


FORMS = {"committed": lambda rows: None, "fixed-every": fixed_every, "occupancy": occupancy, "warps4": warps4}


# ---- judging ---------------------------------------------------------------------------------
class _Model:
    """h.model_time replaced for the duration (table_choice and model_choice look it up by name)."""
    def __init__(self, h, fn):
        self.h, self.fn = h, fn

    def __enter__(self):
        self.saved, self.h.model_time = self.h.model_time, self.fn or self.h.model_time

    def __exit__(self, *exc):
        self.h.model_time = self.saved


def _geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def held_out(rows, fn, sm_count=132):
    """(the picks' time over the fastest member's, picks at >= cuBLAS, shapes, the worst picks, rows whose pick
    among every candidate was a member the run did not time) of the whole choice with model_time `fn` on candidates
    rows (the shapes the family runs), each pick among the members its row timed (timed_choice)."""
    from lab.experiments.table_transfer_eval import family_rows
    from regtile.codegen import heuristic as h
    over, at, worst, untimed = [], 0, [], 0
    with _Model(h, fn):
        for r, timed in family_rows(rows):
            m, n, k = r["m"], r["n"], r["k"]
            # members added since the run (the BK 32 ones, fused-128x16) have no time here: not judged
            (pick, _, outside), best = timed_choice(h, r, timed, sm_count), min(timed.values())
            untimed += outside
            over.append(timed[pick] / best)
            at += r["cublas_us"] >= timed[pick]
            worst.append((timed[pick] / best, f"{m}x{n}x{k}", pick, timed[pick], min(timed, key=timed.get), best))
    return _geo(over), at, len(over), sorted(worst, reverse=True)[:4], untimed


def leave_one_out(fn, sm_count=132):
    """Each suite shape out of the table in turn (the model as given, fitted on every suite shape): its pick's
    time over its fastest member's (geomean), how often the model decided, and how many shapes' pick among every
    candidate was a member the entry's runs did not time (the pick made among those they timed: timed_choice)."""
    from regtile.codegen import heuristic as h
    table = h.load_table()
    with open("benchmarks/shapes.json") as f:
        suite = {(r["m"], r["n"], r["k"]) for r in json.load(f)}
    rels, by_model, untimed = [], 0, 0
    with _Model(h, fn):
        for i, e in enumerate(table):
            q = (e["m"], e["n"], e["k"])
            if q not in suite:  # the fitting grids' entries stay in the table, as neighbours
                continue
            # a table fitted on earlier runs (grid_refit_eval's) has no ratio of the members added since: not judged
            pick, how, outside = timed_choice(h, e, e["rel"], sm_count, table[:i] + table[i + 1:])
            by_model += how == "model"
            untimed += outside
            rels.append(e["rel"][pick])
    return _geo(rels), by_model, untimed


def run(argv):
    from regtile.tools.table_fit import merge_runs
    forms = (take_option(argv, "forms") or ",".join(FORMS)).split(",")
    cross = take_option(argv, "cross") == "1"
    rows = suite_rows()
    sets = {label: set_rows(label) for label in SETS}
    for form in forms:
        fn = FORMS[form](rows)
        parts, untimed = [], []
        for label, srows in sets.items():
            geo, at, n, worst, outside = held_out(srows, fn)
            parts.append(f"{label} {100 * (geo - 1):.1f}% ({at} of {n} >= cuBLAS)")
            untimed.append(f"{label} {outside}")
        loo, by_model, loo_untimed = leave_one_out(fn)
        print(f"{form:12s} " + ", ".join(parts) + f"; suite left out {100 * (loo - 1):.1f}% ({by_model} by the model)",
              flush=True)
        print(f"{'':12s} rows whose pick was a member the run did not time (judged among those it timed): "
              + ", ".join(untimed) + f", suite left out {loo_untimed}", flush=True)
    if cross:
        for label in sets:
            others = [{"rows": sets[o]} for o in sets if o != label]
            fn = occupancy(merge_runs([{"rows": rows}] + others)["rows"])
            geo, at, n, _, outside = held_out(sets[label], fn)
            print(f"occupancy fitted with the other held-out sets: {label} {100 * (geo - 1):.1f}% ({at} of {n}; "
                  f"{outside} rows picked a member the run did not time)", flush=True)


main = program(run, "forms=a,b (default all) and cross=1")

if __name__ == "__main__":
    import sys
    sys.exit(main())
