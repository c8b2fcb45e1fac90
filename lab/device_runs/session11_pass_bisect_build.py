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
