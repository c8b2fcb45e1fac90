"""The two-stage loop's preload of the next tile's first fragments, spread among the FFMAs after it, inside the
cubin (issue 20, session 19; a prototype on the SASS pass's output, not a stage of the pass).

After the barrier that ends a k-tile the loop loads slice 0 of the next tile (program.crosses_tiles) behind
`@!has_next bra`: ptxas keeps the loads as their own block, six LDS.128 four cycles apart (S04) with nothing
between, then the last slice's 128 FFMAs.  Nsight Compute put "wait" at 4.6% of the samples of wide-128x256 on
512x8192x8192 against cuBLAS's 0.3% (docs/data/session19/b_1abb0b5), these loads among them.  Here, in the cubin:

  1. the block is if-converted: each load takes the branch's predicate, negated (`@P5 BRA` over the loads ->
     `@!P5 LDS`), and the branch never branches (`@!PT BRA`, its control code kept);
  2. load j moves down to follow FFMA 3j of the run after the block (four issue slots apart, S01), where no FFMA
     it passes reads or writes its destination, writes a register it reads, or waits on a scoreboard it sets,
     and no branch lands between;
  3. the disassembly of the result must print the same instructions, moved, with the new predicates.

For each shape: the plan regtile.sgemm builds ("lib") and the same plan with its kernels' cubin so rewritten
("spread"), checked against float64 (C NaN-poisoned) and timed interleaved with cuBLAS.  `--sass MEMBER` prints
the rewrite of a member's kernels (CPU).

Measured at 1a5eac1 (lab/device_runs/session19_g.sh, docs/data/session19/g_1a5eac1): 0.3-0.7% faster on every
128x256 shape, results exact.  Landed as the SASS pass's preload step (sass/preload.py, 7b257c9), which plans the
same moves; this prototype stays as it ran.

    python3 -m lab.experiments.spread_preload [--sass MEMBER] [MxNxK ...]
"""
import dataclasses
import sys

from . import over_shapes, program, time_plans

DEFAULT = ["512x8192x8192", "4096x4096x4096", "512x16384x4096", "8192x8192x8192", "2048x2048x2048",
           "8192x128x8192", "16384x16384x16384"]
PRED_SHIFT = 12  # the guard predicate: bits 12-14 its index (7: PT), bit 15 negates it
NEVER = 0xF  # !PT


def _pred(lo, value):
    return (lo & ~(0xF << PRED_SHIFT)) | (value << PRED_SHIFT)


def _regs(ins):
    """(registers read, registers written) of an instruction (sass/fields.locate), RZ left out."""
    from regtile.sass.fields import locate
    read, written = set(), set()
    for f in locate(ins):
        (written if f.written else read).update(f.registers())
    return read, written


def _spread_one(func):
    """[(old offset, lo, hi)] for the instructions this rewrite moves or changes in `func`, or a reason."""
    from regtile.sass import isa
    loop = func.loop_instructions()
    targets = {}
    for ins in func.instructions:
        t = ins.branch_target()
        if t:
            targets.setdefault(func.labels.get(t), []).append(ins.offset)
    for i, br in enumerate(loop):
        t = br.branch_target()
        if br.base != "BRA" or not br.predicate or t is None:
            continue
        loads = []
        j = i + 1
        while j < len(loop) and loop[j].base == "LDS" and not loop[j].predicate:
            loads.append(loop[j])
            j += 1
        if len(loads) < 2 or func.labels.get(t) != loop[j].offset:
            continue
        ffmas = []
        while j < len(loop) and loop[j].base == "FFMA":
            ffmas.append(loop[j])
            j += 1
        if len(ffmas) < 3 * len(loads):
            return None, "too few FFMAs after the loads"
        span = loads + ffmas[:3 * (len(loads) - 1) + 1]
        if any(targets.get(x.offset) not in (None, [br.offset]) for x in span):
            return None, "a branch lands inside the span"
        if any(targets.get(x.offset) for x in span if x.offset != loop[i + 1 + len(loads)].offset):
            return None, "a branch lands inside the span"
        # branch @P -> loads @!P (and @!P -> @P)
        neg = br.predicate.startswith("@!")
        index = int(br.predicate.lstrip("@!").lstrip("P"))
        load_pred = index | (0 if neg else 8)
        order = []
        for n, ld in enumerate(loads):
            passed = ffmas[:3 * n] if n else []
            rd, wr = _regs(ld)
            sbs = {isa.write_scoreboard(ld.hi), isa.read_scoreboard(ld.hi)} - {isa.NO_SCOREBOARD}
            for f in passed:
                fr, fw = _regs(f)
                if wr & (fr | fw) or rd & fw or any(isa.wait_mask(f.hi) >> s & 1 for s in sbs):
                    return None, f"load {n} cannot pass /*{f.offset:04x}*/ {f.text}"
            order.append(ld)
            order.extend(ffmas[3 * n:3 * n + 3] if n < len(loads) - 1 else ffmas[3 * n:3 * n + 1])
        slots = [x.offset for x in span]
        assert sorted(slots) == slots and len(order) == len(span)
        out = [(br.offset, _pred(br.lo, NEVER), br.hi)]
        for at, ins in zip(slots, order):
            lo, hi = ins.lo, ins.hi
            if ins.base == "LDS":
                lo = _pred(lo, load_pred)
                hi = (hi & ~(0xF << isa.CONTROL_SHIFT)) | (1 << isa.CONTROL_SHIFT)  # S01: three FFMAs follow
            out.append((at, lo, hi))
        return out, f"{len(loads)} loads at /*{loads[0].offset:04x}*/ spread over {len(span) - len(loads)} FFMAs"
    return None, "no guarded block of loads before an FFMA run"


def spread_cubin(cubin: bytes, names):
    """(cubin with every kernel of `names` rewritten where it can be, {kernel: what happened})."""
    from regtile.sass.cubin import text_section
    from regtile.sass.disasm import disassemble, function_of, parse
    from regtile.sass.fields import put_instruction
    data = bytearray(cubin)
    report = {}
    for name in names:
        _, func = function_of(cubin, name)
        edits, why = _spread_one(func)
        report[name] = why
        if not edits:
            continue
        text_off, _ = text_section(cubin, name)
        for at, lo, hi in edits:
            put_instruction(data, text_off, at, lo, hi)
        # verify: the same multiset of instruction texts but the predicates, in the new places
        new = parse(disassemble(bytes(data)))[name]
        by_off = {x.offset: x for x in new.instructions}
        for at, lo, hi in edits:
            got = by_off[at]
            if (got.lo, got.hi) != (lo, hi):
                raise AssertionError(f"{name} /*{at:04x}*/: wrote {lo:#x} {hi:#x}, nvdisasm read {got.lo:#x} {got.hi:#x}")
        old = sorted(x.text.replace("@!P", "@P").split(" ", 1)[-1] for x in func.instructions)
        now = sorted(x.text.replace("@!P", "@P").split(" ", 1)[-1] for x in new.instructions)
        if old != now:
            raise AssertionError(f"{name}: the rewrite changed an instruction's text")
    return bytes(data), report


def spread_plan(plan):
    """A copy of `plan` whose kernel is the rewritten cubin (its module loaded anew)."""
    import copy
    from regtile.runtime import driver
    art = plan.kernel.artifact
    names = [src.name for _, src in art.source.kernels()]
    cubin, report = spread_cubin(art.cubin, names)
    other = copy.copy(plan)
    other._bound = {}
    other.kernel = driver.load(dataclasses.replace(art, cubin=cubin), plan.kernel.label + " spread")
    return other, report


def one(torch, bench, m, n, k):
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None:
        return row, "GEMV"
    spread, report = spread_plan(lib)
    row["spread"] = report
    return time_plans(torch, bench, {"lib": lib, "spread": spread}, row,
                      f"{lib.kernel.label}; " + "; ".join(f"{v}" for v in report.values()))


def sass(member):
    from regtile.codegen.presets import get_member
    from regtile.runtime.compiler import compile_config
    from regtile.sass.disasm import function_of, listing
    m = get_member(member)
    art = compile_config(m.config, "sm_90", backend=m.backend)
    names = [src.name for _, src in art.source.kernels()]
    cubin, report = spread_cubin(art.cubin, names)
    for name in names:
        print(f"== {name}: {report[name]}")
        loop = function_of(cubin, name)[1].loop_instructions()
        lines = listing(loop).splitlines()
        hit = [k for k, line in enumerate(lines) if "@!PT BRA" in line]
        for k in hit:
            print("\n".join(lines[max(0, k - 2):k + 26]))


def run(argv):
    if "--sass" in argv:
        i = argv.index("--sass")
        return sass(argv[i + 1] if i + 1 < len(argv) else "wide-128x256")
    over_shapes(argv, DEFAULT, "spread_preload.json", one)


main = program(run, "[--sass MEMBER] [MxNxK ...]")

if __name__ == "__main__":
    sys.exit(main())
