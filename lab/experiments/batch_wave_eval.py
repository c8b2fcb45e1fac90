"""Offline (no GPU): would a saturating partial-wave model pick batched members better than codegen/batch_choice.py's?

batch_choice.batch_time charges a batch's last, partial wave of blocks as a full one: one SM's per_sm blocks.  The held-out
NT 8 x 64x4096x14336 suggested otherwise: plain-64x64's 512 blocks (3.9 an SM of its 5) ran in 0.78 of a full wave, the
k16 tile's 256 (1.9 of 3) in 0.96 of one (session 45 f, session 46 a).  The model tried here: an SM's last wave costs
max(its blocks, b_sat) blocks, where the member's throughput saturates at b_sat blocks an SM (b_sat = per_sm is
batch_time's model); b_sat fitted per member by coordinate descent on every member-timed row of RUNS (m and n above
BATCH_SKINNY), scored as batch_choice_eval scores a pick: its time over the row's fastest member, geometric mean.

Session 46: the descent kept b_sat = per_sm for every member (no other value picks better: 1.0158 x the fastest on the
220 rows either way), so the partial wave is not where the picks lose in aggregate.

Session 47: the batched one-pass kernels triggered the next call at entry in every run above; on the partial waves
that let the next call's blocks pile onto the free slots (lab/experiments/batched_pdl_ab.py).  Run f_8394c21 timed every
member with the trigger at exit: `python3 -m lab.experiments.batch_wave_eval docs/data/session47/f_8394c21/*.json`.

  python3 -m lab.experiments.batch_wave_eval [RUN.json ...]     (default: RUNS)
"""
import json
import math
import sys

from lab.experiments import program
from lab.experiments.batch_choice_eval import ALIAS

RUNS = ["docs/data/session45/b_99c23e3/batched_sweep.json", "docs/data/session45/d_930d427/batched_sweep.json",
        "docs/data/session45/d_930d427/batched_sweep_heldout.json", "docs/data/session45/f_c854914/batched_sweep.json",
        "docs/data/session45/f_c854914/batched_sweep_heldout.json", "docs/data/session46/a_1242a49/batched_sweep.json",
        "docs/data/session46/a_1242a49/batched_sweep_heldout.json", "docs/data/session46/d_da3c761/batched_sweep.json",
        "docs/data/session46/d_da3c761/batched_sweep_heldout.json",
        "docs/data/session46/d_da3c761/batched_sweep_heldout2.json"]
SMS = 132


def wave_time(name: str, m: int, n: int, k: int, batch: int, trans_b: bool, b_sat: dict) -> float:
    """batch_time's model with the last wave charged max(its blocks an SM, b_sat[name]) blocks (per_sm without it)."""
    from regtile.codegen.batch_choice import BATCH_TILES
    from regtile.codegen.heuristic import COPY_TBPS, _ceil
    from regtile.codegen.presets import get_member
    _, nn_blocks, bt_blocks, rate = next(t for t in BATCH_TILES if t[0] == name)
    c = get_member(name).config
    per_sm = bt_blocks if trans_b else nn_blocks
    blocks = batch * _ceil(m, c.bm) * _ceil(n, c.bn)
    full, last = divmod(blocks, per_sm * SMS)
    block = c.bm * c.bn * (2.0 * _ceil(k, c.bk) * c.bk * SMS / (rate * 1e6) + 4.0 * SMS / (COPY_TBPS * 1e6))
    t = full * per_sm * block
    if last:
        t += max(_ceil(last, SMS), min(b_sat.get(name, per_sm), per_sm)) * block
    return t


def pick(r: dict, b_sat: dict) -> str:
    from regtile.codegen.batch_choice import BATCH_TILES, _runs
    from regtile.codegen.heuristic import MAX_PAD, SMALL_MAX_PAD, SMALL_MN
    m, n, k, batch, lay = r["m"], r["n"], r["k"], r["batch"], r["layout"]
    bound = SMALL_MAX_PAD if batch * m * n <= SMALL_MN else MAX_PAD
    names = [t[0] for t in BATCH_TILES if _runs(t[0], m, n, lay[0] == "T", lay[1] == "T", bound)] or ["plain-32x32"]
    return min(names, key=lambda nm: wave_time(nm, m, n, k, batch, lay[1] == "T", b_sat))


def score(rows, b_sat: dict) -> float:
    """Geometric mean of the pick's time over the fastest member's, over the rows whose pick was timed."""
    over = []
    for r in rows:
        mu = r["members_us"]
        p = pick(r, b_sat)
        t = mu.get(p, mu.get(ALIAS.get(p, "")))
        if t is not None:
            over.append(t / min(mu.values()))
    return math.exp(sum(map(math.log, over)) / len(over))


def run(argv) -> None:
    from regtile.codegen.batch_choice import BATCH_SKINNY, BATCH_TILES
    rows = [r for path in (argv or RUNS) for r in json.load(open(path))["rows"]
            if r["m"] > BATCH_SKINNY and r["n"] > BATCH_SKINNY and r.get("members_us")]
    per_sm = {t[0]: t[1] for t in BATCH_TILES}
    print(f"{len(rows)} rows; batch_time's model (b_sat = per_sm): the pick {score(rows, {}):.4f} x the fastest member")
    b_sat = dict(per_sm)
    for rnd in range(3):
        for name in per_sm:
            b_sat[name] = min(range(1, per_sm[name] + 1), key=lambda s: (score(rows, {**b_sat, name: s}), -s))
        print(f"round {rnd + 1}: b_sat {b_sat}: the pick {score(rows, b_sat):.4f} x the fastest member", flush=True)


main = program(run, "[RUN.json ...]")

if __name__ == "__main__":
    sys.exit(main())
