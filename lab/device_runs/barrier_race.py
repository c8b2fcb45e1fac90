"""Racecheck's target for the SASS pass's barrier and store steps (sass/barrier.py, sass/stores.py, session 35): the
TN kernels whose barrier it moves (wide-128x256 and tall-256x128 as regtile.sgemm generates them for A^T, whole
tiles and stream-K ranges) and the k16 kernels whose stores it spreads (wide-64x128-k16 and tall-128x64-k16 in
every layout), one launch each on a shape of a few k-tiles, checked against float64 with C NaN-poisoned.  Run under
`compute-sanitizer --tool racecheck --error-exitcode 9 python3 lab/device_runs/barrier_race.py`; exit 1 on a
wrong result."""
import sys

import torch

from regtile.codegen.layouts import with_layout
from regtile.codegen.presets import get_member
from regtile.runtime.plans import GemmPlan

torch.manual_seed(0)
bad = 0
CASES = [("wide-128x256", "TN", (512, 768, 96)), ("tall-256x128", "TN", (768, 512, 96))] + [
    (name, layout, (256, 384, 112)) for name in ("wide-64x128-k16", "tall-128x64-k16") for layout in ("NN", "NT", "TN", "TT")]
for name, layout, (m, n, k) in CASES:
    ta, tb = layout[0] == "T", layout[1] == "T"
    cfg = with_layout(get_member(name).config, ta, tb)
    a = torch.randn(*((k, m) if ta else (m, k)), device="cuda")  # op(A) = A^T where A is stored K x M
    b = torch.randn(*((n, k) if tb else (k, n)), device="cuda")
    c = torch.full((m, n), float("nan"), device="cuda")
    plan = GemmPlan(m, n, k, ta, tb, m if ta else k, k if tb else n, n, config=cfg, backend="ptx")
    rep = plan.kernel.artifact.sass_pass
    step = {"barrier": rep.barrier.get("moved_over_ffmas"), "stores": rep.stores.get("stores_spread")}
    plan.launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), 1.0, 0.0, 0)
    torch.cuda.synchronize()
    ref = (a.double().t() if ta else a.double()) @ (b.double().t() if tb else b.double())
    unwritten = int(torch.isnan(c).sum())
    err = float((c.double() - ref).norm() / ref.norm())
    ok = unwritten == 0 and err < 1e-5
    bad += not ok
    print(f"{name} {layout} {m}x{n}x{k}: steps {step}; rel err {err:.1e}, unwritten {unwritten}: "
          f"{'ok' if ok else 'WRONG'}", flush=True)
sys.exit(1 if bad else 0)
