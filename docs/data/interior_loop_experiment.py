"""Experiment (issue 9, docs/perf-log.md): the PTX backend's branch-free interior loop
against the same kernel without it, with and without the SASS pass, interleaved with cuBLAS.
To rerun: `git show 5af79ed:codegen/emit_ptx.py > scratch/emit_ptx_before.py`,
`git apply docs/data/interior_loop_experiment.patch`, then on the device (carry scratch)
`python3 docs/data/interior_loop_experiment.py`; the script loads the emitter from
scratch/emit_ptx_before.py beside it (copy it next to the script)."""
import dataclasses, importlib.util, os, sys
from regtile.codegen.presets import get_preset
from regtile.codegen.emit import emit
from regtile.runtime import driver
from regtile.runtime.compiler import compile_source, check_spill_free

spec = importlib.util.spec_from_file_location("regtile.codegen.emit_ptx_before", os.path.join(os.path.dirname(__file__), "emit_ptx_before.py"))
old = importlib.util.module_from_spec(spec); spec.loader.exec_module(old)
dev = driver.device()
z = get_preset("zorder").config
wide = z.replace(bn=256, tn=16, min_blocks=1)
tall = get_preset("zorder-256x128").config.replace(min_blocks=1)
def build(cfg, new, sp):
    cfg = cfg.replace(sass_pass=sp)
    src = emit(cfg, "ptx") if new else old.emit_sgemm_ptx(cfg)
    if not new:  # a distinct name, so that both load side by side
        src = dataclasses.replace(src, name=src.name + "_b", text=src.text.replace(src.name, src.name + "_b"))
    return check_spill_free(compile_source(src, dev.arch), cfg)
variants = {
    "128x256 before +pass": build(wide, False, True),
    "128x256 interior +pass": build(wide, True, True),
    "128x256 before": build(wide, False, False),
    "128x256 interior": build(wide, True, False),
    "256x128 interior +pass": build(tall, True, True),
    "zorder interior +pass": build(z, True, True),
}
for name, a in variants.items():
    rep = a.sass_pass.to_dict() if a.sass_pass else {}
    print(f"{name:26s} {a.resources.registers} registers, conflicts {rep.get('conflict_share_before')} -> {rep.get('conflict_share_after')}", flush=True)
from regtile.tools import interleave
interleave.run(variants, interleave.sizes_from(sys.argv[1:], (4096, 8192)), "interior.json")
