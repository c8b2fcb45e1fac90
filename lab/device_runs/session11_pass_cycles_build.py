"""Session 11, prepared for the next session: the SASS pass's register renaming of the vec4 preset's kernel as
705ba54 emitted it, one cycle of the permutation at a time.  The renaming alone breaks that kernel on the H100
(session11_pass_bisect_*.py: ptxas's cubin and the reorder alone right, the renaming alone wrong), yet its
cubin is ptxas's with the registers permuted bit for bit (docs/shapes.md, "Tried in session 11").  Each
variant here applies one cycle of the pass's permutation (and keeps ptxas's reuse flags but those the pass
clears under that cycle), so the GPU run names the registers whose move breaks it; "all" is the whole
permutation.  Run with PYTHONPATH over a copy of 705ba54's tree laid out as the package (untracked, ~2 MB:
it travels to the device with the working tree):

    git worktree add /tmp/wt705 705ba54 && mkdir -p old705/regtile && cp -r /tmp/wt705/api/. old705/regtile/ &&
        for d in codegen runtime sass tools templates lab; do cp -r /tmp/wt705/$d old705/regtile/$d; done

then
session11_pass_bisect_run.py VARIANT by VARIANT on the GPU (one process a variant):

    PYTHONPATH=$PWD/old705 python3 lab/device_runs/session11_pass_cycles_build.py /tmp/cycles.pkl
    for v in $(python3 -c "import pickle; print(' '.join(pickle.load(open('/tmp/cycles.pkl', 'rb'))))"); do
        python3 lab/device_runs/session11_pass_bisect_run.py /tmp/cycles.pkl $v; done
"""
import dataclasses
import pickle
import sys

from regtile.codegen.emit import emit
from regtile.codegen.presets import get_preset
from regtile.runtime.compiler import compile_source
from regtile.sass import bank_pass as bp
from regtile.sass import cubin as cubin_info
from regtile.sass.disasm import function_of
from regtile.sass.fields import locate_all


def cycles(perm):
    """The permutation's cycles, each as {old: new}."""
    seen, out = set(), []
    for start in sorted(perm):
        if start in seen or perm[start] == start:
            continue
        cyc, r = {}, start
        while r not in seen:
            seen.add(r)
            cyc[r] = perm[r]
            r = perm[r]
        out.append(cyc)
    return out


def renamed(cubin, name, perm):
    """ptxas's cubin with `perm` applied (no reorder): the pass's own _emit, as run_pass calls it."""
    _, func = function_of(cubin, name)
    text_offset, _ = cubin_info.text_section(cubin, name)
    prog = bp._Program(func, locate_all(func), set(func.labels.values()), func.main_loop())
    registers = cubin_info.kernel_info(cubin, name).registers
    return bp._emit(cubin, text_offset, prog, perm, registers, name)[0]


cfg = get_preset("vec4").config.replace(sass_pass=True)
src = emit(cfg, "ptx")
art = compile_source(src, "sm_90", use_cache=False)
before = art.cubin_before_pass
_, rep = bp.run_pass(before, src.name, "sm_90", reorder_ffmas=False, rename_registers=True)
out = {"ptxas": dataclasses.replace(art, cubin=before, sass_pass=None),
       "all": dataclasses.replace(art, cubin=renamed(before, src.name, rep.renaming), sass_pass=None)}
for cyc in cycles(rep.renaming):
    label = "cycle_" + "_".join(str(r) for r in cyc)
    out[label] = dataclasses.replace(art, cubin=renamed(before, src.name, cyc), sass_pass=None)
pickle.dump(out, open(sys.argv[1], "wb"))
print(rep.renaming)
print(list(out))
