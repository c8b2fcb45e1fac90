"""The shared-memory op T few-vector kernel (FewVecTConfig.smem_vectors) as committed against its first form
(issue 20, session 22): at 3707651 the emitter read the staged vectors with __ldg (ptxas moved the first
step's LDG.CONSTANT above the PDL wait: wrong sums on a CUDA graph replay) and had one loop for the float4
and scalar paths; 08b72b9 reads them with __ldcg and has a loop a path, and ran 10-15% slower on the H100.
Which change costs it: each form with either load, the rule's config and splits, timed interleaved against
cuBLAS, each checked against float64 (the __ldg forms can be wrong only when the stage kernel is late).

    python3 -m lab.experiments.fewvec_ts_ab old=FILE [MxNxK ...]

FILE: {shape: {config, text}} of the first form, the rule's config for each shape and its module as the tree
at OLD_COMMIT emitted it (lab/device_runs/session22_ts_3707651.json: written from a worktree of that commit;
the device's copy of the tree has no git history).
"""
from lab.experiments import check_and_time_interleaved, over_shapes, program, take_option, versus

OLD_COMMIT = "3707651"
DEFAULT = ("16x4096x4096", "16x16384x4096", "16x8192x8192", "15x4096x4096")


def _with_load(src, load: str):
    """The module's text with the staged vectors' loads spelled `load` (__ldg or __ldcg)."""
    from regtile.codegen.kernel import KernelSource
    other = "__ldcg(xv" if load == "__ldg" else "__ldg(xv"
    text = src.text.replace(other, load + "(xv")
    return KernelSource(src.name, "cuda", text, src.geometry, src.params, entries=src.entries)


def run(argv):
    import json
    with open(take_option(argv, "old")) as f:
        old = json.load(f)
    over_shapes(argv, DEFAULT, "fewvec_ts_ab.json", lambda *a: one(old, *a))


def one(old, torch, bench, m, n, k):
    from regtile.codegen.emit import emit
    from regtile.codegen.fewvec_config import FewVecTConfig, choose_fewvec, fewvec_splits
    from regtile.codegen.kernel import KernelSource
    from regtile.runtime import driver, fewvec
    from regtile.runtime.compiler import compile_source
    dev = driver.device()
    cfg = choose_fewvec(k, n, "T", m)
    new = emit(cfg)
    forms = {"new_ldcg": (cfg, _with_load(new, "__ldcg")), "new_ldg": (cfg, _with_load(new, "__ldg"))}
    first = old.get(f"{m}x{n}x{k}")
    if first is not None:  # the first form: its config (15 vectors: 4 rows in flight), its module's text
        ocfg = FewVecTConfig.from_dict(first["config"])
        src = emit(ocfg)
        src = KernelSource(src.name, "cuda", first["text"], src.geometry, src.params, entries=src.entries)
        forms.update(old_ldg=(ocfg, _with_load(src, "__ldg")), old_ldcg=(ocfg, _with_load(src, "__ldcg")))
    fns = {"cublas": bench.cublas()}
    for name, (cfg, src) in forms.items():
        kern = driver.load(compile_source(src, dev.arch), label=name)
        plan = fewvec.FewVecPlan(kern, cfg, k, n, fewvec_splits(cfg, k, n, dev.sm_count, kern.blocks_per_sm))
        route = fewvec.FewVecRoute(plan, k, 1, n, n, False)  # vector v: row v of A (m x k); B k x n
        fns[name] = bench.library(route)
    check, us = check_and_time_interleaved(torch, bench, fns, [x for x in fns if x != "cublas"])
    row = dict(m=m, n=n, k=k, configs={name: c.describe() for name, (c, _) in forms.items()}, check=check, us=us)
    return row, versus(us, check, [x for x in fns if x != "cublas"])


main = program(run, "old=FILE, then MxNxK shapes (m 9-16: the smem_vectors rule's kernel)")

if __name__ == "__main__":
    raise SystemExit(main())
