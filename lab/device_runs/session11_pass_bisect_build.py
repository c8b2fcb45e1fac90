"""Session 11: the SASS pass's parts on the vec4 preset's kernel as 705ba54 emitted it (both_float4; reverted in
c4e993b): ptxas's cubin, the whole pass, only its FFMA reorder, only its renaming, neither (the reuse flags
alone); zorder's the same.  Run with PYTHONPATH over a copy of 705ba54's tree laid out as the package (api/ as
regtile/, codegen/ ... beside it), then session11_pass_bisect_run.py on the GPU:

    PYTHONPATH=OLD_TREE python3 lab/device_runs/session11_pass_bisect_build.py /tmp/dev.pkl
"""
import pickle, dataclasses, sys
import regtile; print(regtile.__file__)
from regtile.codegen.presets import get_preset
from regtile.codegen.emit import emit
from regtile.runtime.compiler import compile_source
from regtile.sass import bank_pass
out = {}
for name in ("vec4", "zorder"):
    cfg = get_preset(name).config.replace(sass_pass=True)
    src = emit(cfg, "ptx")
    art = compile_source(src, "sm_90", use_cache=False)
    before = art.cubin_before_pass
    variants = {"ptxas": before, "pass": art.cubin}
    for label, ro, rn in (("reorder_only", True, False), ("rename_only", False, True), ("neither", False, False)):
        try:
            variants[label] = bank_pass.run_pass(before, src.name, "sm_90", reorder_ffmas=ro, rename_registers=rn)[0]
        except Exception as e:
            print(name, label, "refused", e)
    for label, cub in variants.items():
        out[f"{name}:{label}"] = dataclasses.replace(art, cubin=cub, sass_pass=None)
pickle.dump(out, open(sys.argv[1], "wb"))
print(list(out))
