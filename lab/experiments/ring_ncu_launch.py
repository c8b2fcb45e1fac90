"""One launch of regtile.sgemm's plan and of few-vector ring configs on a shape, for Nsight Compute
(lab/device_runs/session13_b.sh profiles it): `python3 -m lab.experiments.ring_ncu_launch M N K
[ty,u,s,mb ...]`, each config a FewVecTConfig(M, 32, ty, u, min_blocks=mb, ring_stages=s)."""
import sys

from lab.experiments import program


def run(argv):
    m, n, k = (int(v) for v in argv[:3])
    import torch
    from regtile.codegen.fewvec_config import FewVecTConfig
    from regtile.runtime.fewvec import fewvec_route
    from regtile.runtime.plans import GemmPlan
    a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    c = torch.empty(m, n, device="cuda")
    plans = [GemmPlan(m, n, k, False, False, k, n, n)]
    for spec in argv[3:]:
        ty, u, s, mb = (int(v) for v in spec.split(","))
        plans.append(fewvec_route(m, n, k, False, k, False, n, n,
                                  config=FewVecTConfig(m, 32, ty, u, min_blocks=mb, ring_stages=s)))
    for p in plans:
        p.launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), 1.0, 0.0, 0)
        torch.cuda.synchronize()
        print(getattr(p, "plan", p).describe(), flush=True)


main = program(run, "M N K, then ty,u,s,mb for each ring config")


if __name__ == "__main__":
    sys.exit(main())
