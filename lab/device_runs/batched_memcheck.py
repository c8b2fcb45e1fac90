"""compute-sanitizer's memcheck on regtile.sgemm's batched choice (session 45): the ragged batched shapes of
tests/gpu/test_api_gpu.py's test_batched_choice_every_layout in every layout, each checked against float64."""
import torch

import regtile

SHAPES = [(5, 1, 300, 200), (7, 300, 5, 200), (48, 512, 64, 512), (3, 1000, 1000, 1000), (200, 77, 77, 64),
          (24, 257, 257, 64), (16, 4096, 40, 77)]
for batch, m, n, k in SHAPES:
    for ta in (False, True):
        for tb in (False, True):
            A = torch.randn(batch, k, m, device="cuda").transpose(1, 2) if ta else torch.randn(batch, m, k, device="cuda")
            B = torch.randn(batch, n, k, device="cuda").transpose(1, 2) if tb else torch.randn(batch, k, n, device="cuda")
            C = torch.full((batch, m, n), float("nan"), device="cuda")
            regtile.sgemm(A, B, C)
            ref = torch.matmul(A.double(), B.double())
            err = (torch.linalg.vector_norm(torch.nan_to_num(C.double() - ref, nan=float("inf")))
                   / torch.linalg.vector_norm(ref)).item()
            print(batch, m, n, k, ta, tb, f"{err:.2e}", "ok" if err <= 1e-5 else "WRONG", flush=True)
