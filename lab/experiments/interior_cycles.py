"""Issue cycles of one interior k-tile of the two-stage loop, read off the SASS (session 20; no GPU).

Walks each member's main loop from its top along the path an interior k-tile takes (a conditional branch right
after global loads guarded by its predicate is taken: the float4 fast path; other conditional branches fall
through; `@!PT` branches never branch) and sums the stall counts, for ptxas's cubin and the SASS pass's.  A
single-warp issue model: it ignores the other warps, the memory system and the barrier, so it ranks candidate
rewrites, it does not time them (session 20: the tile end's stores cut it by 26 cycles a k-tile and measured no
faster; the tile end's loads cut it by 11 and measured 0.2-1.0% faster).

Session 20 ran it on the loop head hoisted to the previous iteration's end (the prototype at 87b299b; since
session 21 the config field tile_config.hoist_head, on for those members): wide-128x256 with the pass 1184 ->
1172 cycles a k-tile, tall-256x128 1229 -> 1226 (docs/data/session20/h_hoist_head).  Timed, the hoist was 0.2-0.5%
faster on both (docs/data/session21/a_hoist_head); the tile end's free registers (1172 -> 1165) were slower.

    python3 -m lab.experiments.interior_cycles [MEMBER ...]   (default: wide-128x256 tall-256x128)
"""
from . import program


def interior_cycles(f, start: int, end: int):
    """(instructions, FFMAs, issue cycles) of one interior k-tile of function f's loop [start, end]."""
    from regtile.sass import isa
    idx = {i.offset: n for n, i in enumerate(f.instructions)}
    n, cycles, count, ffmas, prev = idx[start], 0, 0, 0, None
    while True:
        ins = f.instructions[n]
        count, cycles, ffmas = count + 1, cycles + isa.stall(ins.hi), ffmas + (ins.base == "FFMA")
        if ins.offset == end:
            return count, ffmas, cycles
        if ins.base == "BRA" and ins.predicate != "@!PT":
            taken = not ins.predicate or (prev is not None and prev.base == "LDG" and prev.predicate == ins.predicate)
            if taken:
                n, prev = idx[f.labels[ins.branch_target()]], ins
                continue
        prev, n = ins, n + 1


def run(argv):
    from regtile.codegen.emit import emit
    from regtile.codegen.presets import FAMILY
    from regtile.runtime.compiler import compile_source
    from regtile.runtime.sass import function_of
    for name in argv or ["wide-128x256", "tall-256x128"]:
        src = emit(FAMILY[name].config, "ptx")
        art = compile_source(src, "sm_90")
        for label, cubin in (("ptxas", art.cubin_before_pass), ("pass", art.cubin)):
            _, f = function_of(cubin, src.name)
            count, ffmas, cycles = interior_cycles(f, *f.main_loop())
            print(f"{name} {label} interior iteration: {count} instrs, {ffmas} FFMA, {cycles} issue cycles")


main = program(run, "[MEMBER ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
