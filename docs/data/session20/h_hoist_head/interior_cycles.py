"""Issue cycles of one interior k-tile of the two-stage loop, read off the SASS (session 20, offline).

Walks the main loop from its top along the path an interior k-tile takes (a conditional branch right after global
loads guarded by its predicate is taken - the float4 fast path; other conditional branches fall through; `@!PT`
branches never branch) and sums the stall counts: ptxas's cubin and the pass's.  A single-warp issue model: it
ignores the other warps, the memory system and the barrier.  With hoist_head.patch applied, REGTILE_HOIST_HEAD=1
emits the next k-tile's stage offsets, k0 and has_next at the end of each iteration instead of at its top (use a
separate REGTILE_CACHE_DIR for each setting: the switch is not in the compile cache's key).

    python3 docs/data/session20/h_hoist_head/interior_cycles.py wide-128x256 tall-256x128
"""
import os, sys
from regtile.codegen.presets import FAMILY
from regtile.codegen.emit import emit
from regtile.runtime.compiler import compile_source
from regtile.runtime.sass import function_of
from regtile.sass import isa
for name in sys.argv[1:]:
    src = emit(FAMILY[name].config, "ptx")
    art = compile_source(src, "sm_90")
    for label, cub in (("ptxas", art.cubin_before_pass), ("pass", art.cubin)):
        _, f = function_of(cub, src.name)
        lo, hi = f.main_loop()
        idx = {i.offset: n for n, i in enumerate(f.instructions)}
        n = idx[lo]; cyc = 0; cnt = 0; ff = 0; prev = None
        while True:
            ins = f.instructions[n]
            cnt += 1; cyc += isa.stall(ins.hi); ff += ins.base == "FFMA"
            if ins.offset == hi: break
            if ins.base == "BRA":
                t = f.labels.get(ins.branch_target())
                taken = not ins.predicate or (prev is not None and prev.base == "LDG" and prev.predicate == ins.predicate)
                if taken and ins.predicate != "@!PT":
                    n = idx[t]; prev = ins; continue
            prev = ins; n += 1
        print(name, label, "interior iteration:", cnt, "instrs,", ff, "FFMA,", cyc, "issue cycles")
