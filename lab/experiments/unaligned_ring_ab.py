"""The cp.async ring (config stages 3 / 4, codegen/ptx_ring.py) on unaligned rows (issue 20, session 36).

Where an operand's rows are not 16-byte aligned the big members copy each vector's floats through staging registers
(config.unaligned_vectors): NT's unaligned-K shapes ran 0.85-0.94x cuBLAS in session 35 (2049x2047x1025 at 71%
issue against cuBLAS's three-stage xmma kernel at 86%, docs/data/session35/b_fa60b57).  The ring copies them by a
4-byte cp.async a float, straight into shared memory.  The ring has no SASS-pass forms, so its variants run without
the pass; "nopass" is the plan's own config without the pass, to tell the two apart.

For each [LAYOUT:]MxNxK: the plan regtile.sgemm builds ("lib"), "nopass", and the ring of each stage count S in
each form: "ringSv", each vector's floats where the vectors' copies put them (a warp's 4-byte copy touches a line a
lane pair on row-major tiles), "ringSr" the float copies (config.unaligned_rows: consecutive threads on consecutive
floats of a line), against cuBLAS in the layout, checked against float64 (C NaN-poisoned), then timed interleaved.
Writes unaligned_ring_ab.json under $OUT.  Session 36 (docs/data/session36): forms v 8-36% slower than "nopass";
forms r 1.2% behind it on NT (d_117db78; a2_7e95f4f's r ran the checked copies: the float path was not emitted).

Session 37 ran it on the TN shapes whose picks are small PTX members (docs/data/session37): in TN A^T's rows run along
M, so both operands' copies are 16-byte cp.asyncs where the rows are aligned.  The variants of every shape compile
first, 16 at a time (precompile).

    python3 -m lab.experiments.unaligned_ring_ab [stages=3,4] [forms=r,v] [LAYOUT:MxNxK ...]
"""
from lab.experiments import layout_spec, over_shapes, program, take_option, time_plans

SHAPES = ["NT:2049x2047x1025", "NT:4099x4093x4091", "NT:6143x2047x3071", "NT:8191x8193x1025", "NN:4095x4095x4095",
          "NN:2047x4097x1023", "NN:1023x4095x2047", "TN:2049x2047x1025", "TN:8191x8193x1025", "NN:4096x4096x4096",
          "NT:4096x4096x4096"]


def ring_config(cfg, stages: int, form: str):
    """`cfg` (a plan's config) as the ring of `stages` stages, without the SASS pass, its unaligned rows in `form`:
    "v" each vector's floats, "r" the float copies (either where `cfg` has either float form)."""
    floats = cfg.unaligned_rows or cfg.unaligned_vectors
    forms = {"v": dict(unaligned_rows=False, unaligned_vectors=floats and cfg.edge_clamp),
             "r": dict(unaligned_rows=floats, unaligned_vectors=False)}
    return cfg.replace(stages=stages, sass_pass=False, hoist_head=False, **forms[form])


def variants(cfg, stages, forms) -> dict:
    """{name: config, or the ConfigError that refused it} the A/B times beside the plan `cfg`: "nopass" (its config
    without the SASS pass, where it has it), "two" (its two-stage loop, where it runs the ring: operand_forms.for_ring's
    TN members, whose hoist_head is off anyway, so that an A/B in TN still times the loop the ring replaced) and
    "ringSF" (ring_config of each stage count S and form F)."""
    from regtile.codegen.config import ConfigError
    out = {}
    if cfg.sass_pass:
        out["nopass"] = cfg.replace(sass_pass=False)
    if cfg.stages > 2:
        out["two"] = cfg.replace(stages=2)
    for s in stages:
        for form in forms:
            try:
                out[f"ring{s}{form}"] = ring_config(cfg, s, form)
            except ConfigError as e:
                out[f"ring{s}{form}"] = e
    return out


def precompile(specs, stages, forms) -> None:
    """Every shape's plan config and its variants into the kernel cache, 16 processes at a time (the plans then load
    them): the A/B's compiles in parallel rather than a plan at a time."""
    import time
    from regtile.runtime import driver
    from regtile.runtime.choice import choose_sgemm_kernel
    from regtile.runtime.compiler import compile_many
    t0 = time.time()
    arch = driver.device().arch
    items = set()
    for spec in specs:
        _, m, n, k, ta, tb, lda, ldb = layout_spec(spec)
        cfg, backend = choose_sgemm_kernel(m, n, k, arch, ta, tb, 0, lda, ldb)
        if backend == "ptx":
            items |= {(c, backend) for c in [cfg, *variants(cfg, stages, forms).values()] if not isinstance(c, Exception)}
    errors = [e for e in compile_many(sorted(items, key=repr), arch, 16) if e]
    print(f"precompiled {len(items)} kernels in {time.time() - t0:.0f} s ({len(errors)} refused)", flush=True)


def run(argv):
    stages = [int(v) for v in (take_option(argv, "stages") or "3,4").split(",")]
    forms_wanted = (take_option(argv, "forms") or "r").split(",")
    precompile(argv or SHAPES, stages, forms_wanted)

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        operands = (bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n)
        lib = GemmPlan(m, n, k, *operands)
        row = {"m": m, "n": n, "k": k, "layout": "NT"[bench.trans_a] + "NT"[bench.trans_b], "plan": lib.describe()}
        if lib.gemv is not None or lib.backend != "ptx":
            return row, f"not a PTX member ({lib.describe()[:60]})"
        plans = {"lib": lib}
        for name, cfg in variants(lib.config, stages, forms_wanted).items():
            try:
                if isinstance(cfg, Exception):
                    raise cfg
                plans[name] = GemmPlan(m, n, k, *operands, config=cfg, backend="ptx")
            except Exception as e:  # a config the ring cannot take: named, left out
                print(f"{m}x{n}x{k} {name}: {type(e).__name__}: {e}", flush=True)
        return time_plans(torch, bench, plans, row, lib.describe()[:60])

    over_shapes(argv, SHAPES, "unaligned_ring_ab.json", one)


main = program(run, "stages=S,... then [LAYOUT:]MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
