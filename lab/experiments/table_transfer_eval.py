"""Offline (no GPU): how the heuristic's table picks for shapes it was not fitted on, scored with a candidates
run that timed every member on those shapes (shape_sweep --candidates; session 14's held-out sets:
docs/data/heldout-session14/i_b74cc20/shape-candidates-session14-heldout12_b74cc20.json).

For each shape that the family runs (not the GEMV / few-vector routes) and each way of choosing, the chosen
member's measured time against cuBLAS's in the same run and against the fastest member's: the geometric means,
the shapes at >= 1.0x cuBLAS, and the worst picks.  Ways of choosing:
  committed   heuristic.choose_member as it is: since session 14 the neighbours' measured ratios carried to
              the shape by the model, each neighbour's ratio of a member times model_time(member, shape) /
              model_time(member, neighbour) (heuristic.table_choice's `transfer_sms`)
  measured    the neighbours' ratios as measured (table_choice without `transfer_sms`: the rule until session 14)
  model       heuristic.model_choice alone
  oracle      the fastest member measured

  python3 -m lab.experiments.table_transfer_eval [CANDIDATES.json ...]
"""
import math

from lab.experiments import program

DEFAULT = ["docs/data/heldout-session14/i_b74cc20/shape-candidates-session14-heldout12_b74cc20.json"]


def family_rows(rows):
    """(row, {member: us}) of the candidates rows that the family runs (regtile.sgemm routes m or n == 1 and
    the few-vector shapes elsewhere: tools/shape_sweep.gemv_routed) with a member timed."""
    from regtile.codegen import heuristic_fit as hf
    from regtile.tools.shape_sweep import gemv_routed
    for r in rows:
        timed = hf.timed_members(r)
        if timed and not gemv_routed(r["m"], r["n"], r["k"]):
            yield r, timed


def evaluate(paths, sm_count: int = 132):
    from regtile.codegen import heuristic as h
    from regtile.tools.datafiles import load_json
    rows = []
    for p in paths:
        d = load_json(p)
        rows += d["rows"] if isinstance(d, dict) else d
    ways = {
        "committed": lambda m, n, k, names: h.choose_member(m, n, k, sm_count),
        "measured": lambda m, n, k, names: (h.table_choice(m, n, k, names)
                                            or h.model_choice(names, m, n, k, sm_count)),
        "model": lambda m, n, k, names: h.model_choice(names, m, n, k, sm_count),
    }
    out = {w: [] for w in list(ways) + ["oracle"]}
    for r, timed in family_rows(rows):
        m, n, k = r["m"], r["n"], r["k"]
        names = h.candidate_names(m, n, k, sm_count)
        best = min(timed.values())
        for w, choose in ways.items():
            pick = choose(m, n, k, names)
            out[w].append((f"{m}x{n}x{k}", pick, timed.get(pick), r["cublas_us"], best))
        out["oracle"].append((f"{m}x{n}x{k}", min(timed, key=timed.get), best, r["cublas_us"], best))
    return out


def run(argv):
    out = evaluate(argv or DEFAULT)
    for w, picks in out.items():
        ok = [(s, p, us, cb, best) for s, p, us, cb, best in picks if us is not None]
        geo = math.exp(sum(math.log(cb / us) for _, _, us, cb, _ in ok) / len(ok))
        vs_best = math.exp(sum(math.log(us / best) for _, _, us, _, best in ok) / len(ok))
        at = sum(cb / us >= 1.0 for _, _, us, cb, _ in ok)
        print(f"{w:9s}: {len(ok)} shapes ({len(picks) - len(ok)} picks untimed), x cuBLAS geomean {geo:.3f}, "
              f">= 1.0x {at}, over the fastest member {vs_best:.3f}")
        for s, p, us, cb, best in sorted(ok, key=lambda t: t[3] / t[2])[:5]:
            print(f"    {s} {p} {us:.1f} us, x{cb / us:.3f} (fastest {best:.1f})")


main = program(run, "candidates JSON files")


if __name__ == "__main__":
    import sys
    sys.exit(main())
