"""Session 11: which part of the SASS pass breaks the vec4 preset's kernel at 705ba54 (both_float4: 10 failures of
tests/gpu/test_sass_pass_gpu.py, vec4 with the pass).  Built on the CPU by session11_pass_bisect_build.py at
705ba54 (PYTHONPATH over that tree): ptxas's cubin, the pass's, the pass with only its FFMA reorder, only its
renaming, neither (its reuse flags alone); zorder's the same as a control.  Here: each against float64
(tests/gpu/test_ptx_backend_gpu._gemm_check) on the failing sizes.

    python3 lab/device_runs/session11_pass_bisect_run.py bisect.pkl [VARIANT]
"""
import pickle
import sys
import tempfile
from pathlib import Path

sys.path[:0] = ["tests/gpu", "tests"]
import cupy as cp  # noqa: E402
import test_ptx_backend_gpu as t  # noqa: E402

arts = pickle.load(open(sys.argv[1], "rb"))
if len(sys.argv) > 2:  # one variant (a process each: an illegal address poisons the context)
    arts = {sys.argv[2]: arts[sys.argv[2]]}
for label, art in arts.items():
    # a launcher a variant: _CupyLauncher keeps one kernel a name, and every variant has the kernel's name
    launcher = t._CupyLauncher(cp, Path(tempfile.mkdtemp()))
    results = []
    for m, n, k in ((1000, 1000, 1000), (127, 129, 65), (256, 256, 64)):
        try:
            t._gemm_check(launcher, art, m, n, k, 1.0, 0.0)
            results.append(f"{m}x{n}x{k} ok")
        except AssertionError as e:
            results.append(f"{m}x{n}x{k} WRONG ({str(e).splitlines()[0][-60:]})")
    print(label, "|", "; ".join(results), flush=True)
