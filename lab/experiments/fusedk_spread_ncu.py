"""Under Nsight Compute: the fused kernel with the lean copies and without (config.lean_copies) on
the shapes where session24_b timed the lean kernel slower (65536x32x2048: 261.7 against 249.5 us; 8192x24x8192,
whose blocks never run the lean loop: 135.5 / 130.3) and one where it is faster (32768x32x4096: 210.9 / 246.5).

Per shape, the fused member's plan (lab/experiments/fusedk_spread_ab.py's choice) built both ways, each launched
twice after a warm-up, in the order lean, edge, lean, edge; the order goes to fusedk_spread_ncu.json under $OUT.

    ncu -k regex:regtile_fusedk ... python3 -m lab.experiments.fusedk_spread_ncu [MxNxK ...]
"""
import json
import os
import sys

from . import program

DEFAULT = ["65536x32x2048", "8192x24x8192", "32768x32x4096"]


def run(argv):
    import torch
    from regtile.codegen.heuristic import member_config
    from regtile.runtime.plans import GemmPlan
    order = []
    for spec in argv or DEFAULT:
        m, n, k = map(int, spec.split("x"))
        cfg, backend = member_config("fused-128x32-f1", m, n, k, 132)
        lean = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
        edge = GemmPlan(m, n, k, False, False, k, n, n, config=cfg.replace(lean_copies=False), backend=backend)
        A, B = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        C = torch.empty(m, n, device="cuda")
        s = torch.cuda.current_stream().cuda_stream
        for name, plan in (("lean", lean), ("edge", edge)) * 2:
            plan.launch(A.data_ptr(), B.data_ptr(), C.data_ptr(), 1.0, 0.0, s)
            order.append({"shape": spec, "variant": name, "split": cfg.split_k})
        torch.cuda.synchronize()
    with open(os.path.join(os.environ.get("OUT", "."), "fusedk_spread_ncu.json"), "w") as f:
        json.dump(order, f, indent=1)


main = program(run, "[MxNxK ...]")

if __name__ == "__main__":
    sys.exit(main())
