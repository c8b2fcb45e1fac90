"""The shared-memory op T few-vector kernel (FewVecTConfig.smem_vectors) with its matrix-row loads grouped
under one vec_block test a step, against the committed text (a test a row), on 9-16-vector shapes (issue
20, session 23).  Under Nsight Compute the committed main kernel executed 10% more instructions than the
prototype it came from (lab/experiments/stream_t_proto.py; 15.3 M against 13.9 M on 16x4096x4096, branches
629 K against 270 K; docs/data/session23/c_14cac04): each row's load is its own `if (row < r1) n = vec_block ?
float4 : four scalars; else zero`, three to four branches a row in the SASS.  The variant `grouped` rewrites
those lines, a step's rows at a time, into `if (vec_block) { n_u = row_u < r1 ? float4 : zero ... } else
{ the scalars, each guarded by row and column }` (the committed module otherwise unchanged; its plan, splits
and launches are the library's), checked against float64 first.

    python3 -m lab.experiments.ts_loads_ab [dry=1] [MxNxK ...]

dry=1 (no GPU): each shape's two kernels built for sm_90 here, their registers, spills and main-loop SASS
instruction and branch counts.
"""
import re

from lab.experiments import over_shapes, program, take_option, time_plans

SHAPES = ("16x4096x4096", "16x16384x4096", "16x4096x16384", "16x2048x2048", "16x1024x4096", "16x5120x5120",
          "12x8192x3072", "10x8192x2048", "15x4096x4096")
ZERO = "make_float4(0.f, 0.f, 0.f, 0.f)"
ROW = re.compile(r"( *)if \((\(.*?\)) < r1\) (n\d+|b\d+) = vec_block \? (__ldcs\(reinterpret_cast<const float4\*>\(.*?\)\)) "
                 r": make_float4\((.*)\);\n *else \3 = " + re.escape(ZERO) + r";\n")


def grouped(text: str) -> str:
    """Each run of consecutive row loads -> one vec_block test over the run."""
    out, pos = [], 0
    runs = []
    for m in ROW.finditer(text):
        if runs and runs[-1][-1].end() == m.start():
            runs[-1].append(m)
        else:
            runs.append([m])
    for run in runs:
        ind = run[0].group(1)
        vec = [f"{ind}    {m.group(3)} = {m.group(2)} < r1 ? {m.group(4)} : {ZERO};\n" for m in run]
        sca = []
        for m in run:
            parts = re.split(r", (?=c\d \? )", m.group(5))
            parts = [re.sub(r"^c(\d) \?", rf"({m.group(2)} < r1 && c\1) ?", p) for p in parts]
            sca.append(f"{ind}    {m.group(3)} = make_float4({', '.join(parts)});\n")
        out += [text[pos:run[0].start()], f"{ind}if (vec_block) {{\n", *vec, f"{ind}}} else {{\n", *sca, f"{ind}}}\n"]
        pos = run[-1].end()
    out.append(text[pos:])
    return "".join(out)


def _module(route, variant: str):
    from dataclasses import replace
    from regtile.codegen.emit import emit_cuda
    src = emit_cuda(route.config)
    text = grouped(src.text) if variant == "grouped" else src.text
    if variant == "grouped" and text.count("if (vec_block) {") < 2:
        raise RuntimeError("grouped: the rewrite did not match the row loads")
    return replace(src, text=text)


class Variant:
    """The committed plan (config, splits, launches) on a kernel compiled from the rewritten text."""

    def __init__(self, route, m, n, k, variant):
        from regtile.runtime import driver
        from regtile.runtime.compiler import compile_source
        from regtile.runtime.fewvec import FewVecPlan, FewVecRoute
        self.kernel = driver.load(compile_source(_module(route, variant), driver.device().arch))
        plan = FewVecPlan(self.kernel, route.config, route.plan.rows, route.plan.cols, route.plan.splits)
        self.route = FewVecRoute(plan, k, 1, n, n, False)  # A's rows the vectors: sv = lda, sp = 1

    def launch(self, *args):
        self.route.launch(*args)

    def describe(self):
        return self.route.plan.describe()


def loop_counts(cubin: bytes, name: str):
    """(instructions, branches) of the kernel's main loop in the SASS."""
    from regtile.sass.disasm import function_of
    _, fn = function_of(cubin, name)
    body = fn.loop_instructions()
    return len(body), sum(1 for i in body if i.opcode.startswith("BRA"))


def dry(shapes):
    from regtile.codegen.fewvec_config import choose_fewvec, route
    from regtile.runtime.compiler import compile_source
    for spec in shapes:
        m, n, k = (int(v) for v in spec.split("x"))
        op, rows, cols, _, vectors, _ = route(m, n, k, False, k, False, n)
        cfg = choose_fewvec(rows, cols, op, vectors)

        class R:
            config = cfg
        for variant in ("committed", "grouped"):
            art = compile_source(_module(R, variant), "sm_90")
            r = art.resources
            print(spec, variant, f"{r.registers} registers, {r.spill_store_bytes} B spilled,",
                  "main loop (instructions, branches):", loop_counts(art.cubin, art.name), flush=True)


def run(argv):
    if take_option(argv, "dry") == "1":
        dry(argv or SHAPES)
        return

    def one(torch, bench, m, n, k):
        from regtile.runtime.plans import GemmPlan
        lib = GemmPlan(m, n, k, False, False, k, n, n)
        assert lib.gemv is not None and lib.gemv.config.smem_vectors, f"{m}x{n}x{k}: {lib.describe()}"
        plans = {"committed": lib, "grouped": Variant(lib.gemv, m, n, k, "grouped")}
        row = {"m": m, "n": n, "k": k, "plan": lib.describe()}
        row["spill_bytes"] = {name: p.kernel.artifact.resources.spill_store_bytes for name, p in plans.items()}
        row, line = time_plans(torch, bench, plans, row, lib.describe()[:50])
        return row, line + f"  spills {row['spill_bytes']}"

    over_shapes(argv, SHAPES, "ts_loads_ab.json", one)


main = program(run, "dry=1, then MxNxK shapes")

if __name__ == "__main__":
    raise SystemExit(main())
