"""Config variants of the plan regtile.sgemm builds for a shape, against that plan as committed and cuBLAS.

A variant is `NAME:field=value;field=value`: the fields replace those of the plan's config (an SGEMM member's
SgemmConfig, or a few-vector plan's FewVecNConfig / FewVecTConfig); `splits=N`, `splits=*2` or `splits=/2` sets
a few-vector plan's split count (absolute, or from the committed plan's; without it the split rule's for the
variant's config).  Values are Python literals
(`warps=(2,2)`).  Without variants each shape takes DEFAULT's for its kind of plan: the few-vector op N knobs
(rows a lane, steps in flight, lanes a row, warps a block, splits) and, for the skinny members, a register cap
(`max_registers`, PTX .maxnreg) that lets one more block onto each SM.  Every plan is checked against float64
and timed interleaved (lab.experiments.time_plans).  `NAME@MEMBER:...` starts from a family member's config for the
shape instead of the plan's (`NAME@table:`: the member the shape heuristic picks).  `dry=1` builds the variants for sm_90 on this machine (no
GPU) and prints their registers and stack frames instead: a variant that spills is left out of a run.

  python3 -m lab.experiments.variants_ab [dry=1] [NAME:field=v;field=v ...] [MxNxK ...]
"""
import ast

from lab.experiments import over_shapes, program, take_option, time_plans

FEWVEC_N = ["u1:unroll=1", "u4:unroll=4", "rg1u4:row_groups=1;unroll=4", "rg4u1:row_groups=4;unroll=1",
            "rg4u2:row_groups=4;unroll=2", "l16:lanes_per_row=16", "l16rg4:lanes_per_row=16;row_groups=4;unroll=1",
            "w8:warps_per_block=8;min_blocks=2", "w2:warps_per_block=2;min_blocks=8", "s*2:splits=*2",
            "s/2:splits=/2", "rg1mb6:row_groups=1;min_blocks=6"]
DEFAULT = {
    "2048x16x32768": FEWVEC_N, "4096x16x4096": FEWVEC_N, "8192x16x8192": FEWVEC_N, "65536x16x1024": FEWVEC_N,
    "4096x12x8192": FEWVEC_N,
    "16x4096x4096": ["mr128:max_registers=128"],  # skinny-m16-k32: 135, 3 -> 4
    "16x16384x4096": ["mr128:max_registers=128"],
    "48x2048x8192": ["mr128:max_registers=128", "mr112:max_registers=112"],  # skinny-m48, 96 threads: 4 -> 5 / 6
}


def parse(spec: str):
    """NAME:field=value;... -> (NAME, {field: value}).  NAME@MEMBER starts from family member MEMBER's config
    for the shape (operand_forms.member_for_shape) instead of the plan's."""
    name, _, body = spec.partition(":")
    fields = {}
    for part in filter(None, body.split(";")):
        key, _, value = part.partition("=")
        fields[key] = value if key == "splits" else ast.literal_eval(value)
    return name, fields


def _member_base(name: str, m: int, n: int, k: int):
    """NAME@MEMBER's starting point: MEMBER's (config, backend) for the row-major shape, as the sweeps build it;
    NAME@table: the kernel regtile.sgemm picks where no GEMV route takes the shape (runtime/choice.py: a tuned
    entry, else the heuristic's member, for the device; needs the GPU)."""
    from regtile.codegen.operand_forms import member_for_shape
    member = name.split("@", 1)[1]
    if member == "table":
        from regtile.runtime import driver
        from regtile.runtime.choice import choose_sgemm_kernel
        return choose_sgemm_kernel(m, n, k, driver.device().arch)
    return member_for_shape(member, m, n, k, 132)


def _splits(spec, committed: int) -> int:
    if spec.startswith("*"):
        return committed * int(spec[1:])
    if spec.startswith("/"):
        return max(1, committed // int(spec[1:]))
    return int(spec)


class FewVecVariant:
    """The few-vector route with another config or split (the interface GemmPlan's launch has)."""

    def __init__(self, route, m, n, k, fields):
        from dataclasses import replace
        from regtile.runtime.fewvec import fewvec_route
        fields = dict(fields)
        # no splits=: the split rule's for the variant's config (fewvec_splits; until session 22 the committed
        # plan's count, which misread a variant of another kind: docs/data/session22/b_3707651's "l1")
        splits = _splits(fields.pop("splits"), route.plan.splits) if "splits" in fields else None
        self.route = fewvec_route(m, n, k, False, k, False, n, n, config=replace(route.config, **fields),
                                  splits=splits)
        self.kernel = self.route.plan.kernel

    def launch(self, *args):
        self.route.launch(*args)

    def describe(self):
        return self.route.plan.describe()


def dry(variants, shapes) -> None:
    """Each shape's committed config and its variants built for sm_90 here: registers and frame bytes."""
    from dataclasses import replace
    from regtile.codegen.fewvec_config import route
    from regtile.runtime.fewvec import rule_config
    from regtile.codegen.heuristic import choose_kernel
    from regtile.codegen.operand_forms import for_operands
    from regtile.runtime.compiler import compile_config
    from regtile.sass.cubin import kernel_info
    for spec in shapes:
        m, n, k = (int(v) for v in spec.split("x"))
        r = route(m, n, k, False, k, False, n)
        if r is not None:
            base, backend = rule_config(r.rows, r.cols, r.op, r.vectors, "sm_90"), None
        else:
            cfg, backend = choose_kernel(m, n, k, "sm_90", 132)
            base = for_operands(cfg, backend, k, n, m, n)
        for name, fields in [("committed", {})] + [parse(v) for v in variants or DEFAULT.get(spec, [])]:
            fields = {f: v for f, v in fields.items() if f != "splits"}
            try:
                b, be = base, backend
                if "@" in name:
                    b, be = _member_base(name, m, n, k)
                cfg = replace(b, **fields) if r is not None and "@" not in name else b.replace(**fields)
                art = compile_config(cfg, "sm_90", **({"backend": be} if be else {}))
                info = {role: kernel_info(art.cubin, src.name) for role, src in art.source.kernels()}
                print(spec, name, {role: (i.registers, i.frame_bytes) for role, i in info.items()}, flush=True)
            except Exception as e:  # a refused variant: say why and go on
                print(spec, name, "REFUSED", str(e)[:160], flush=True)


def run(argv):
    if take_option(argv, "dry"):
        shapes = [a for a in argv if ":" not in a]
        dry([a for a in argv if ":" in a], shapes or list(DEFAULT))
        return
    given = [a for a in argv if ":" in a]
    shapes = [a for a in argv if ":" not in a]

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        lib = GemmPlan(m, n, k, False, False, k, n, n)
        row = {"m": m, "n": n, "k": k, "plan": lib.describe()}
        plans = {"committed": lib}
        for name, fields in (parse(v) for v in given or DEFAULT.get(f"{m}x{n}x{k}", [])):
            try:
                if "@" in name:
                    cfg, backend = _member_base(name, m, n, k)
                    plans[name] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg.replace(**fields),
                                           backend=backend)
                elif lib.gemv is not None:
                    plans[name] = FewVecVariant(lib.gemv, m, n, k, fields)
                else:
                    plans[name] = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config.replace(**fields),
                                           backend=lib.backend)
            except Exception as e:
                row.setdefault("refused", {})[name] = str(e)[:200]
        row["variants"] = {name: p.describe() for name, p in plans.items()}
        return time_plans(torch, bench, plans, row, lib.describe()[:60])

    over_shapes(shapes, list(DEFAULT), "variants_ab.json", one)


main = program(run, "dry=1, NAME:field=v;... variants, then MxNxK shapes")


if __name__ == "__main__":
    import sys
    sys.exit(main())
