"""The shared-memory op T few-vector kernel reading its vectors in place (FewVecTConfig.direct_vectors: no
stage launch) against the committed plan (the stage kernel first), on 9-16-vector shapes (issue 20,
session 23).  The prototype of session 22 (lab/experiments/stream_t_proto.py), which reads A itself, ran
4-5% ahead of the library's kernel in one call (docs/data/session23/a_13deb7f); the L2 prefetch was not it
(without it the library's kernel was slower still).

Variants, each the direct config's module with its copy loads rewritten (checked against float64 first):
- `ldcg`: as emitted - four scalar __ldcg a copy (one vector's values at four rows: four L2 requests
  to the same sectors);
- `ldca`: the same loads cached in L1 (__ldca), so the second to fourth hit the first's lines;
- `f4`: one float4 __ldcg where the rows are 16-byte aligned and inside (vec_x), else the scalars (this
  form spilled 12 bytes at 16 vectors and 4 rows in flight on sm_90: timed as it compiles, spilling).

    python3 -m lab.experiments.direct_ab [variants=ldcg,ldca,f4] [MxNxK ...]
"""
import re

from lab.experiments import over_shapes, program, take_option, time_plans

SHAPES = ("16x4096x4096", "16x16384x4096", "16x4096x16384", "16x2048x2048", "16x1024x4096", "16x5120x5120",
          "12x8192x3072", "10x8192x2048", "14x4096x4096")
SCALARS = re.compile(r"xn(\d+) = make_float4\((.*)\); \}")


def patched(text: str, variant: str, cfg) -> str:
    if variant == "ldcg":
        return text
    if variant == "ldca":
        return text.replace("__ldcg(sx + ", "__ldca(sx + ")
    vector = "" if cfg.vectors == cfg.staged_vectors else f" && threadIdx.x % {cfg.staged_vectors} < {cfg.vectors}"

    def f4(m):
        t = m.group(1)
        return (f"if (vec_x && p + 3 < r1{vector}) xn{t} = __ldcg(reinterpret_cast<const float4*>(sx)); "
                f"else xn{t} = make_float4({m.group(2)}); }}")
    return SCALARS.sub(f4, text)


class Variant:
    """The direct plan on a kernel compiled from a rewritten text (the interface time_plans needs)."""

    def __init__(self, route, m, n, k, variant):
        from dataclasses import replace
        from regtile.runtime import driver
        from regtile.runtime.compiler import compile_source
        from regtile.runtime.fewvec import FewVecPlan, FewVecRoute
        from regtile.codegen.emit import emit_cuda
        cfg = replace(route.config, direct_vectors=True, unroll=4)
        src = emit_cuda(cfg)
        text = patched(src.text, variant, cfg)
        if variant != "ldcg" and text == src.text:
            raise RuntimeError(f"{variant}: the rewrite matched nothing")
        self.kernel = driver.load(compile_source(replace(src, text=text), driver.device().arch))
        plan = FewVecPlan(self.kernel, cfg, route.plan.rows, route.plan.cols, route.plan.splits)
        self.route = FewVecRoute(plan, k, 1, n, n, False)  # A's rows the vectors: sv = lda, sp = 1

    def launch(self, *args):
        self.route.launch(*args)

    def describe(self):
        return self.route.plan.describe()


def run(argv):
    variants = (take_option(argv, "variants") or "ldcg,ldca,f4").split(",")

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        lib = GemmPlan(m, n, k, False, False, k, n, n)
        assert lib.gemv is not None and lib.gemv.config.smem_vectors, f"{m}x{n}x{k}: {lib.describe()}"
        plans = {"committed": lib, **{v: Variant(lib.gemv, m, n, k, v) for v in variants}}
        row = {"m": m, "n": n, "k": k, "plan": lib.describe(),
               "variants": {name: p.describe() for name, p in plans.items()}}
        row["spill_bytes"] = {name: p.kernel.artifact.resources.spill_store_bytes for name, p in plans.items()}
        row, line = time_plans(torch, bench, plans, row, lib.describe()[:50])
        return row, line + f"  spills {row['spill_bytes']}"

    over_shapes(argv, SHAPES, "direct_ab.json", one)


main = program(run, "variants=ldcg,ldca,f4, then MxNxK shapes")

if __name__ == "__main__":
    raise SystemExit(main())
