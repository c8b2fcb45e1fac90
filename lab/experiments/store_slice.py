"""Where the two-stage loop stores the next tile into shared memory, and what ptxas makes of it (issue 20,
session 19).

Nsight Compute's stall samples on 512x8192x8192 (wide-128x256; docs/data/session19/b_1abb0b5) put 4.6% of the
samples on "wait" against cuBLAS's 0.3%, 2.3 points of them at the k-tile's end, where ptxas issues the last
slice's six fragment loads, the six shared stores and the barrier back to back, each four cycles after the
other (S04), with no FFMA between: the program (codegen/program.py main_loop) stores the next tile after the
body's last FFMAs, and ptxas moves that slice's FFMAs below the barrier.

This variant stores the next tile after k-slice S instead (an IfNext(StoreTile) between two halves of the
body; legal with two stages: the next stage was last read before the previous barrier), so that ptxas has
FFMAs on both sides of the stores.  CPU: `--sass` prints, per variant, the loop's instructions that issue with
no FFMA between them (runs of non-FFMA instructions with their stall counts).  GPU: times the variants
against the committed kernel and cuBLAS.

Measured at 50aead0 (lab/device_runs/session19_c.sh, docs/data/session19/c_50aead0, H100, us; lib / late / pred /
pred_late, cuBLAS): every variant slower - 512x8192x8192 1329.5 / 1335.3 / 1398.9 / 1343.5 (1319.0), 4096^3 2610.8 /
2652.9 / 2734.2 / 2652.2, 8192x128x8192 (wide-64x128-k16, S = 14) 344.9 / 350.2 / 350.7 / 363.7.  ptxas's bunches do
shrink (`--sass`: the loop's stall counts summed, 1460 -> 1447 / 1439 / 1407 cycles a k-tile for wide-128x256), but
around the predicated stores and loads ptxas orders the FFMAs otherwise and the SASS pass is left with 114-124
conflicted FFMAs a k-tile it cannot avoid ("unavoidable" in its report) against 26 as committed.  Not taken.

    python3 -m lab.experiments.store_slice --sass [MEMBER] [S ...]
    python3 -m lab.experiments.store_slice [MEMBER] [S ...] [MxNxK ...]      (GPU)
"""
import contextlib
import re
import sys

from . import program

DEFAULT_MEMBER = "wide-128x256"


@contextlib.contextmanager
def store_after(slice_):
    """program.main_loop with the two-stage loop's StoreTile after k-slice `slice_` (None: as committed)."""
    from regtile.codegen import program as pg
    original = pg.main_loop
    if slice_ is None:
        yield
        return

    def patched(plan):
        steps = original(plan)
        cfg = plan.cfg
        if cfg.stages != 2:
            return steps
        (pipe,) = steps
        *first, tloop = pipe.steps
        loop = list(tloop.steps)
        i = next(j for j, s in enumerate(loop) if isinstance(s, pg.Compute) and s.stage == "this")
        compute, store = loop[i], loop[i + 1]
        assert isinstance(store, pg.IfNext) and isinstance(store.steps[0], pg.StoreTile), store
        body = list(compute.steps)
        cut = next(j for j, s in enumerate(body) if isinstance(s, pg.Comment) and s.text == f"k-slice {slice_}")
        loop[i:i + 2] = [pg.Compute("this", tuple(body[:cut])), store, pg.Compute("this", tuple(body[cut:]))]
        return (pg.Pipeline(tuple(first) + (pg.TileLoop(tloop.stages, tuple(loop)),)),)

    pg.main_loop = patched
    try:
        yield
    finally:
        pg.main_loop = original


@contextlib.contextmanager
def predicated(on=True):
    """The two-stage loop's store and preload predicated on has_next (`@has_next st.shared` / `ld.shared`)
    instead of skipped by a branch, so that they share a basic block with the FFMAs around them; where the
    guarded steps hold their own predicates or labels, the branch as committed."""
    from regtile.codegen import program as pg
    from regtile.codegen.ptx_loops import LoopsMixin
    original = LoopsMixin._IfNext

    def patched(self, s):
        if not isinstance(s.steps[0], (pg.StoreTile, pg.Compute)):
            return original(self, s)
        lines = self.b.lines
        start = len(lines)
        self.render(s.steps)
        body = lines[start:]
        if any(ln.startswith("\t@") or not ln.startswith("\t") for ln in body):
            del lines[start:]
            return original(self, s)
        lines[start:] = [f"\t@{self.has_next} {ln[1:]}" if ln.startswith(("\tst.shared", "\tld.shared")) else ln
                         for ln in body]
    if on:
        LoopsMixin._IfNext = patched
    try:
        yield
    finally:
        LoopsMixin._IfNext = original


def member_cfg(name):
    from regtile.codegen.presets import get_member
    m = get_member(name)
    return m.config, m.backend


def sass_report(name, slices):
    from regtile.tools.artifacts import build
    from regtile.sass.disasm import listing
    cfg, backend = member_cfg(name)
    for s, ung in [(None, False)] + [(x, False) for x in slices] + [(None, True)] + [(x, True) for x in slices]:
        with store_after(s), predicated(ung):
            built = build(f"{name}-store{s}", cfg, "sm_90", use_cache=False, backend=backend)
        text = listing(built.sass.loop_instructions())
        lines = text.splitlines()
        runs, run = [], []
        for line in lines:
            m = re.search(r"\[[^\]]*:S(\d+)\]\s+(@!?U?P\w+\s+)?(\S+)", line)
            if not m:
                continue
            op = m.group(3).split(".")[0]
            if op == "FFMA":
                if len(run) >= 3:
                    runs.append(run)
                run = []
            else:
                run.append(f"{op}:{m.group(1)}")
        stalls = sum(int(x.split(":")[1]) for r in runs for x in r)
        total = sum(int(m.group(1)) for m in (re.search(r":S(\d+)\]", ln) for ln in lines) if m)
        print(f"== store after k-slice {s if s is not None else 'last (committed)'}{', predicated' if ung else ''}: {len(lines)} loop lines, "
              f"{len(runs)} runs of 3+ non-FFMA instructions, {stalls} stall cycles in them; {total} over the whole listing")
        for r in runs:
            print("   ", " ".join(r))


DEFAULT_SHAPES = ["512x8192x8192", "4096x4096x4096", "8192x128x8192", "512x16384x4096", "2048x2048x2048",
                  "4099x4093x4091", "8192x8192x8192", "96x4096x11008"]


def one(torch, bench, m, n, k):
    """The plan regtile.sgemm builds ("lib") and the same config with the store after k-slice BK - 2 ("late"),
    predicated ("pred"), and both ("pred_late")."""
    from regtile.runtime.plans import GemmPlan
    from . import time_plans
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.config.stages != 2 or lib.backend != "ptx":
        return row, f"not a two-stage PTX kernel ({row['config']})"
    late = lib.config.bk - 2
    plans = {"lib": lib}
    for label, s_, pred in (("late", late, False), ("pred", None, True), ("pred_late", late, True)):
        with store_after(s_), predicated(pred):
            plans[label] = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config, backend=lib.backend)
    return time_plans(torch, bench, plans, row, f"{lib.kernel.label}; late = after k-slice {late}")


def run(argv):
    sass = "--sass" in argv
    args = [a for a in argv if a != "--sass"]
    if sass:
        name = next((a for a in args if not a[0].isdigit()), DEFAULT_MEMBER)
        return sass_report(name, [int(a) for a in args if a.isdigit()])
    from . import over_shapes
    over_shapes([a for a in args if "x" in a], DEFAULT_SHAPES, "store_slice.json", one)


main = program(run, "[--sass] [MEMBER] [S ...] [MxNxK ...]")

if __name__ == "__main__":
    sys.exit(main())
