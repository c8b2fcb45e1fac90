"""Op N few-vector plans with 17-32 vectors (issue 20, session 23): the few-vector op N kernel (FewVecNConfig)
taken past its 16-vector limit while each variant's config is built (fewvec_config.MAX_VECTORS; the library's
route still stops at 16), against regtile.sgemm's plan (the fused / skinny-n members) and cuBLAS.

Row-major C (m x n) = A (m x k) B (k x n) with n of 17-32: A streamed once, each element used n times.  The
members tile it as a GEMM (fused-128x32-f1 on 32768x32x4096 at 0.996x cuBLAS, 74% of copy; 16384x32x16384 at
74%).  Here each lane keeps row_groups x n sums and reads the staged vectors from L1 (lanes_per_row = 8: the
warp's four row groups read the same vector float4s, one 128-byte request).  Its FFMAs alone take about 145 us of
issue on 32768x32x4096 at the H100's 132 SMs; the copy of A at 85% about 215 us.

What it measured on the H100 (docs/data/session23/h_b1930b5; us, the member regtile.sgemm picks / the best
variant, cuBLAS): 32768x32x4096 249.5 / 423.8 (3 rows a lane) / 250.7; 16384x32x16384 489.5 / 771.7 (2 rows, 2 steps,
168 registers) / 542.2; 8192x32x8192 131.4 / 212.4; 4096x32x4096 42.0 / 62.3.  No variant came within 1.5x of the
members at 32 vectors.  8192x24x8192: the best variant 148.7 (16 lanes a row) against cuBLAS's 144.9; its
`committed` figure there is not the library's plan (_config).

Variants are NAME:field=value;... over FewVecNConfig's fields (vectors = n), as lab/experiments/variants_ab.py
spells them; `splits=N` sets the split count (else fewvec_splits's).  Each is checked against float64 first.

    python3 -m lab.experiments.fewvec_n32 [dry=1] [NAME:field=v;... ...] [MxNxK ...]

dry=1 (no GPU): each variant built for sm_90 here, its registers and spills.
"""
from lab.experiments import over_shapes, program, take_option, time_plans
from lab.experiments.variants_ab import parse

SHAPES = ("32768x32x4096", "16384x32x16384", "8192x32x8192", "4096x32x4096", "8192x24x8192")
# spill-free at 32 vectors for sm_90 (dry=1; 2 rows a lane at 2 steps in flight spilled 60 bytes within 128
# registers, 1 row at 4 steps 452: ptxas hoists the vector loads of the steps in flight)
VARIANTS = ("rg2u1:row_groups=2;unroll=1;min_blocks=4", "rg2u1l16:row_groups=2;unroll=1;min_blocks=4;lanes_per_row=16",
            "rg2u1m3:row_groups=2;unroll=1;min_blocks=3", "rg2u2m3:row_groups=2;unroll=2;min_blocks=3",
            "rg1u1m6:row_groups=1;unroll=1;min_blocks=6", "rg1u2:row_groups=1;unroll=2;min_blocks=4",
            "rg3u1m3:row_groups=3;unroll=1;min_blocks=3")


def _config(n: int, fields: dict):
    """The variant's config, built with the vector limit raised for that moment only: left raised (b1930b5),
    regtile.sgemm's own route took the later shapes' n = 24 as few-vector GEMMs too, so 8192x24x8192's
    `committed` time in docs/data/session23/h_b1930b5 is such a plan's, not the library's."""
    from regtile.codegen import fewvec_config
    limit, fewvec_config.MAX_VECTORS = fewvec_config.MAX_VECTORS, 32
    try:
        base = fewvec_config.FewVecNConfig(n, 4, 2, 2, min_blocks=4, lanes_per_row=8, prefetch_steps=2)
        return base.replace(**{f: v for f, v in fields.items() if f != "splits"})
    finally:
        fewvec_config.MAX_VECTORS = limit


class Plan:
    """A few-vector op N plan for C = A B (A m x k, B k x n row-major) on a config of n vectors."""

    def __init__(self, m, n, k, fields):
        from regtile.runtime import fewvec
        cfg = _config(n, fields)
        splits = int(fields["splits"]) if "splits" in fields else None
        plan = fewvec.plan_for(m, k, "N", n, config=cfg, splits=splits)
        self.kernel = plan.kernel
        self.route = fewvec.FewVecRoute(plan, 1, n, k, n, True)  # B's columns the vectors: sv = 1, sp = ldb

    def launch(self, *args):
        self.route.launch(*args)

    def describe(self):
        return self.route.plan.describe()


def dry(specs, shapes):
    from regtile.runtime.compiler import compile_config
    for shape in shapes:
        n = int(shape.split("x")[1])
        for name, fields in (parse(s) for s in specs):
            try:
                r = compile_config(_config(n, fields), "sm_90", allow_spills=True).resources
                print(shape, name, f"{r.registers} registers, {r.spill_store_bytes} B spilled", flush=True)
            except Exception as e:
                print(shape, name, "REFUSED", str(e)[:150], flush=True)


def run(argv):
    dry_run = take_option(argv, "dry") == "1"
    specs = [a for a in argv if ":" in a] or list(VARIANTS)
    shapes = [a for a in argv if ":" not in a] or list(SHAPES)
    if dry_run:
        dry(specs, shapes)
        return

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        lib = GemmPlan(m, n, k, False, False, k, n, n)
        plans, row = {"committed": lib}, {"m": m, "n": n, "k": k, "plan": lib.describe()}
        for name, fields in (parse(s) for s in specs):
            try:
                p = Plan(m, n, k, fields)
                if p.kernel.artifact.resources.spill_store_bytes:
                    raise RuntimeError(f"spills {p.kernel.artifact.resources.spill_store_bytes} bytes")
                plans[name] = p
            except Exception as e:  # a refused variant: say why and go on
                row.setdefault("refused", {})[name] = str(e)[:200]
        row["variants"] = {name: p.describe() for name, p in plans.items()}
        return time_plans(torch, bench, plans, row, lib.describe()[:40])

    over_shapes(shapes, SHAPES, "fewvec_n32.json", one)


main = program(run, "dry=1, NAME:field=v;... variants, then MxNxK shapes")

if __name__ == "__main__":
    raise SystemExit(main())
