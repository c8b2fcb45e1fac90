"""Fill the kernel cache for tests/gpu/test_layouts_gpu.py (one process per kernel)."""
import sys, time
sys.path.insert(0, "tests/gpu")
from concurrent.futures import ProcessPoolExecutor
def _compile(args):
    cfg, backend = args
    from regtile.runtime.compiler import compile_config
    compile_config(cfg, "sm_90", backend=backend)
if __name__ == "__main__":
    import test_layouts_gpu as t
    from regtile.codegen.presets import get_preset
    jobs = []
    for cfg, be in t.KINDS.values():
        for a, b in t.LAYOUTS:
            jobs.append((cfg.replace(trans_a=a, trans_b=b), be))
    for be in ("cuda", "ptx"):
        for a, b in t.LAYOUTS:
            jobs.append((t.ZORDER.replace(trans_a=a, trans_b=b, batched=True), be))
        jobs.append((t.ZORDER.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1, trans_a=True, batched=True), be))
        jobs.append((get_preset("naive").config.replace(trans_b=True, batched=True), be))
    t0 = time.time()
    with ProcessPoolExecutor(16) as ex:
        list(ex.map(_compile, jobs))
    print(f"precompiled {len(jobs)} kernels in {time.time() - t0:.0f} s", flush=True)
