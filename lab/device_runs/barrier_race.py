"""Racecheck's target for the SASS pass's barrier step (sass/barrier.py, session 35): the TN kernels whose barrier it
moves (wide-128x256 and tall-256x128 as regtile.sgemm generates them for A^T, whole tiles and stream-K ranges), one
launch each on a shape of a few k-tiles, checked against float64 with C NaN-poisoned.  Run under
`compute-sanitizer --tool racecheck --error-exitcode 9 python3 lab/device_runs/barrier_race.py`; exit 1 on a
wrong result."""
import sys

import torch

from regtile.codegen.layouts import with_layout
from regtile.codegen.presets import get_member
from regtile.runtime.plans import GemmPlan

torch.manual_seed(0)
bad = 0
for name, (m, n, k) in (("wide-128x256", (512, 768, 96)), ("tall-256x128", (768, 512, 96))):
    cfg = with_layout(get_member(name).config, True, False)
    a = torch.randn(k, m, device="cuda")  # A stored K x M: op(A) = A^T
    b = torch.randn(k, n, device="cuda")
    c = torch.full((m, n), float("nan"), device="cuda")
    plan = GemmPlan(m, n, k, True, False, m, n, n, config=cfg, backend="ptx")
    step = plan.kernel.artifact.sass_pass.barrier
    plan.launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), 1.0, 0.0, 0)
    torch.cuda.synchronize()
    ref = a.double().t() @ b.double()
    unwritten = int(torch.isnan(c).sum())
    err = float((c.double() - ref).norm() / ref.norm())
    ok = unwritten == 0 and err < 1e-5
    bad += not ok
    print(f"{name} TN {m}x{n}x{k}: barrier step {step}; rel err {err:.1e}, unwritten {unwritten}: "
          f"{'ok' if ok else 'WRONG'}", flush=True)
sys.exit(1 if bad else 0)
