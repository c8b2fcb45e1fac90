"""Offline (no GPU): a per-member fixed cost in the heuristic's model, fitted with its throughput.

The committed model (codegen/heuristic.model_time) prices every launch LAUNCH_US (3 us) and fits one number
per member, its throughput: the median of FLOPs over (time - launches x 3 us) on the suite.  A member whose
small-shape cost is more than the launch (the fused split-K members: their split's sums; a deep prologue)
gets a low median throughput that makes it look cheap on small shapes and dear on big ones (session 14's
held-out picks: 49x512x4608 fused-64x64 modelled 14.7 us, ran 23.0; 4096x32x11008 fused-128x32-f1 modelled
132.1, ran 92.6).  Here each member gets two numbers, a fixed cost a launch and a throughput, fitted together
on the same rows (least |log(model / measured)|), and the two models are judged on what they pick:
  - the suite left out a shape at a time (the left-out shape out of the table *and* out of the model's fit);
  - session 14's held-out candidates (every member timed on 67 shapes of real models the table never saw),
    through the whole choice (the neighbours' ratios carried by the model, else the model) and the model alone.

  python3 -m lab.experiments.model_fit_eval [CANDIDATES.json]
"""
import json
import math
import os

from lab.experiments import program

HELD_OUT = "docs/data/heldout-session14/i_b74cc20/shape-candidates-session14-heldout12_b74cc20.json"
FIXED_US = [x * 0.25 for x in range(0, 81)]     # 0 .. 20 us a launch
TFLOPS = [4.0 + x * 0.25 for x in range(0, 241)]  # 4 .. 64 TFLOP/s


def suite_rows():
    """The rows the committed table was fitted on (its `source` runs, merged as `--fit` merges them)."""
    from regtile.codegen import heuristic as h
    from regtile.tools.shape_sweep import merge_runs
    raws = []
    for name in h._table_data()["source"].split(", "):
        with open(os.path.join("docs", "data", name)) as f:
            raws.append(json.load(f))
    return merge_runs(raws)["rows"]


def _samples(rows, sm_count):
    """{member: [(FLOPs on every SM, traffic, launches, fix-up us, measured us)]}."""
    from regtile.codegen import heuristic as h
    out = {}
    for r in rows:
        for name, us in h.timed_members(r).items():
            flops, traffic, launches = h.model_parts(name, r["m"], r["n"], r["k"], sm_count)
            out.setdefault(name, []).append((flops, traffic, launches, h.fixup_us(name, r["m"], r["n"], r["k"],
                                                                                    sm_count), us))
    return out


def fit_two(rows, sm_count=132):
    """{member: (fixed us a launch, TFLOP/s)} minimising the summed |log(model / measured)|."""
    import numpy as np
    from regtile.codegen import heuristic as h
    c0 = np.array(FIXED_US)[:, None, None]
    tf = np.array(TFLOPS)[None, :, None]
    out = {}
    for name, s in _samples(rows, sm_count).items():
        a = np.array(s, dtype=float)
        flops, traffic, launches, fix, us = (a[:, i][None, None, :] for i in range(5))
        pred = np.maximum(flops / (tf * 1e6), traffic / (h.COPY_TBPS * 1e6)) + c0 * launches + fix
        err = np.abs(np.log(pred / us)).sum(axis=2)
        i, j = np.unravel_index(np.argmin(err), err.shape)
        out[name] = (FIXED_US[i], TFLOPS[j])
    return out


def fit_median(rows, sm_count=132):
    """{member: (LAUNCH_US, TFLOP/s)}: the committed fit (heuristic.fit_model_tflops) on these rows."""
    from regtile.codegen import heuristic as h
    return {name: (h.LAUNCH_US, tf) for name, tf in h.fit_model_tflops(rows, sm_count).items()}


FITS = {"median": fit_median, "two-parameter": fit_two}


def two_time(params):
    """model_time with per-member (fixed us, TFLOP/s); members without a fit keep the committed model."""
    from regtile.codegen import heuristic as h
    committed = h.model_time

    def model_time(name, m, n, k, sm_count):
        if name not in params:
            return committed(name, m, n, k, sm_count)
        c0, tflops = params[name]
        flops, traffic, launches = h.model_parts(name, m, n, k, sm_count)
        return (max(flops / (tflops * 1e6), traffic / (h.COPY_TBPS * 1e6)) + c0 * launches
                + h.fixup_us(name, m, n, k, sm_count))
    return model_time


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


def leave_one_out(rows, fit, sm_count=132):
    """Each suite shape out of the table and (fit given) out of the model's fit: its pick's time over
    its fastest member's (geomean), and how often the model decided."""
    from regtile.codegen import heuristic as h
    table = h.load_table()
    by_shape = {(r["m"], r["n"], r["k"]): r for r in rows}
    rels, by_model = [], 0
    for i, e in enumerate(table):
        q = (e["m"], e["n"], e["k"])
        fn = two_time(fit([r for s, r in by_shape.items() if s != q], sm_count)) if fit else None
        with _Model(h, fn):
            names = h.candidate_names(*q)
            pick = h.table_choice(*q, names, table[:i] + table[i + 1:], transfer_sms=sm_count)
            if pick is None:
                by_model += 1
                pick = h.model_choice(names, *q, sm_count)
        rels.append(e["rel"].get(pick, 2.0))
    return _geo(rels), by_model


def held_out(path, fn, sm_count=132):
    """On the held-out candidates: (way -> (over the fastest member, at >= cuBLAS, n, worst picks))."""
    from lab.experiments.table_transfer_eval import family_rows
    from regtile.codegen import heuristic as h
    with open(path) as f:
        rows = json.load(f)["rows"]
    out = {}
    with _Model(h, fn):
        for way in ("choice", "model"):
            over, at, worst = [], 0, []
            for r, timed in family_rows(rows):
                m, n, k = r["m"], r["n"], r["k"]
                names = h.candidate_names(m, n, k, sm_count)
                pick = (h.choose_member(m, n, k, sm_count) if way == "choice"
                        else h.model_choice(names, m, n, k, sm_count))
                best = min(timed.values())
                over.append(timed[pick] / best)
                at += r["cublas_us"] >= timed[pick]
                worst.append((timed[pick] / best, f"{m}x{n}x{k}", pick, timed[pick], min(timed, key=timed.get), best))
            out[way] = (_geo(over), at, len(over), sorted(worst, reverse=True)[:6])
    return out


def run(argv):
    rows = suite_rows()
    params = {label: fit(rows) for label, fit in FITS.items()}
    print("per-member fits on the suite (fixed us a launch, TFLOP/s), median / two-parameter:")
    for name in sorted(params["two-parameter"]):
        print(f"    {name:22s} " + "  ".join("%5.2f us %5.2f" % params[label].get(name, (0, 0)) for label in FITS))
    for label, fn in [("committed", None)] + [(label, two_time(p)) for label, p in params.items()]:
        for way, (geo, at, n, worst) in held_out(argv[0] if argv else HELD_OUT, fn).items():
            print(f"{label:14s} held-out {way:6s}: over the fastest {geo:.4f}, >= cuBLAS {at} of {n}")
            for w in worst:
                print("      %.3f %s %s %.1f (fastest %s %.1f)" % w)
    for label, fit in [("committed", None)] + list(FITS.items()):
        geo, by_model = leave_one_out(rows, fit)
        print(f"{label:14s} suite leave-one-out: over the fastest {geo:.4f} ({by_model} by the model)")


main = program(run, "held-out candidates JSON (default: session 14's)")

if __name__ == "__main__":
    import sys
    sys.exit(main())


# ---- v2: occupancy and a lone block's latency -------------------------------------------
OCC_PATH = "/tmp/occ.json"
LAT_US = [x * 0.025 for x in range(0, 121)]      # 0 .. 3 us a k-tile for a block alone on its SM


def _occ():
    with open(OCC_PATH) as f:
        return json.load(f)


def v2_parts(name, m, n, k, sm_count):
    """(blocks a wave's SM holds r, waves, k-tiles a block, FLOPs of a block's k-tile, launches, traffic, fix-up)."""
    from regtile.codegen import heuristic as h
    mem = h.get_member(name)
    c = mem.config
    occ = _occ()[name]
    tiles = h._ceil(m, c.bm) * h._ceil(n, c.bn)
    kt = h._ceil(k, c.bk)
    launches = 1
    if c.stream_k:
        busy = min(sm_count, max(tiles, tiles * kt // h.MIN_ITERS))
        blocks = max(tiles, busy)
        kb = tiles * kt / blocks
        per_sm = blocks / sm_count
        launches = 2 if tiles % sm_count else 1
        r = min(max(per_sm, 1.0), occ)
        waves = max(per_sm / r, 1.0)
    else:
        s = 1
        if name.startswith("splitk-") or mem.backend == h.FUSED:
            s = h.split_for(m, n, k, c.bm, c.bn, c.bk, sm_count, mem.fill, mem.min_ktiles, mem.max_split)
            launches = 2 if s > 1 and mem.backend != h.FUSED else 1
        blocks = tiles * s
        kb = h._ceil(kt, s)
        per_sm = h._ceil(blocks, sm_count)
        r = min(per_sm, occ)
        waves = h._ceil(per_sm, occ)
    traffic = 4.0 * (m * k * h._ceil(n, c.bn) + k * n * h._ceil(m, c.bm)) / 2 + 4.0 * m * n
    return r, waves, kb, 2.0 * c.bm * c.bn * c.bk, launches, traffic, h.fixup_us(name, m, n, k, sm_count)


def fit_v2(rows, sm_count=132):
    """{member: (fixed us a launch, TFLOP/s, lone block's us a k-tile)} minimising the summed |log error|."""
    import numpy as np
    from regtile.codegen import heuristic as h
    samples = {}
    for r in rows:
        for name, us in h.timed_members(r).items():
            samples.setdefault(name, []).append(v2_parts(name, r["m"], r["n"], r["k"], sm_count) + (us,))
    c0 = np.array(FIXED_US, dtype=np.float32)[:, None, None, None]
    tf = np.array(TFLOPS, dtype=np.float32)[None, :, None, None]
    lat = np.array(LAT_US, dtype=np.float32)[None, None, :, None]
    out = {}
    for name, s in samples.items():
        a = np.array(s, dtype=np.float32)
        r, waves, kb, kflops, launches, traffic, fix, us = (a[:, i][None, None, None, :] for i in range(8))
        per_tile = np.maximum(lat, r * kflops * sm_count / (tf * 1e6))
        pred = np.maximum(waves * kb * per_tile, traffic / (h.COPY_TBPS * 1e6)) + c0 * launches + fix
        err = np.abs(np.log(pred / us)).sum(axis=3)
        i, j, l = np.unravel_index(np.argmin(err), err.shape)
        out[name] = (FIXED_US[i], TFLOPS[j], LAT_US[l])
    return out


def v2_time(params):
    from regtile.codegen import heuristic as h
    committed = h.model_time

    def model_time(name, m, n, k, sm_count):
        if name not in params:
            return committed(name, m, n, k, sm_count)
        c0, tflops, lat = params[name]
        r, waves, kb, kflops, launches, traffic, fix = v2_parts(name, m, n, k, sm_count)
        per_tile = max(lat, r * kflops * sm_count / (tflops * 1e6))
        return max(waves * kb * per_tile, traffic / (h.COPY_TBPS * 1e6)) + c0 * launches + fix
    return model_time


# ---- v3: v2 with a lone block's k-tile priced from its FFMAs, one factor for every member -----------
CLOCK_MHZ = 1755  # the H100 SXM's boost clock under load (docs/notes h100-baseline)
LATENCY_FACTORS = [0.5 + 0.25 * x for x in range(0, 11)]  # 0.5 .. 3: cycles a FFMA of one warp's k-tile


def lone_ktile_us(name, factor):
    """A block alone on its SM: its warps each issue BK x TM x TN FFMAs a k-tile, a scheduler each at
    most one a cycle; `factor` cycles a FFMA (latency and the loads between)."""
    from regtile.codegen import heuristic as h
    c = h.get_member(name).config
    return factor * c.bk * c.tm * c.tn / CLOCK_MHZ


def fit_v3(rows, sm_count=132):
    """{member: (fixed us, TFLOP/s, lone k-tile us)}: per factor of LATENCY_FACTORS the two per-member
    numbers fitted as fit_two's, the factor with the least summed |log error| over every member."""
    import numpy as np
    from regtile.codegen import heuristic as h
    samples = {}
    for r in rows:
        for name, us in h.timed_members(r).items():
            samples.setdefault(name, []).append(v2_parts(name, r["m"], r["n"], r["k"], sm_count) + (us,))
    c0 = np.array(FIXED_US, dtype=np.float32)[:, None, None]
    tf = np.array(TFLOPS, dtype=np.float32)[None, :, None]
    best = None
    for factor in LATENCY_FACTORS:
        total, out = 0.0, {}
        for name, s in samples.items():
            a = np.array(s, dtype=np.float32)
            r, waves, kb, kflops, launches, traffic, fix, us = (a[:, i][None, None, :] for i in range(8))
            lat = lone_ktile_us(name, factor)
            per_tile = np.maximum(lat, r * kflops * sm_count / (tf * 1e6))
            pred = np.maximum(waves * kb * per_tile, traffic / (h.COPY_TBPS * 1e6)) + c0 * launches + fix
            err = np.abs(np.log(pred / us)).sum(axis=2)
            i, j = np.unravel_index(np.argmin(err), err.shape)
            total += float(err[i, j])
            out[name] = (FIXED_US[i], TFLOPS[j], lat)
        if best is None or total < best[0]:
            best = (total, factor, out)
    return best[2]
