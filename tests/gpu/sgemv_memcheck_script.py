import torch, regtile
for m, n, tr, ix, iy in [(2, 1 << 16, False, 1, 1), (3000, 5, True, 2, -3), (77, 1000, True, -1, 1), (129, 77, False, 3, 2)]:
    A = torch.randn(m, n, device="cuda")
    xl, yl = (m, n) if tr else (n, m)
    x = torch.randn(1 + (xl - 1) * abs(ix), device="cuda"); y = torch.randn(1 + (yl - 1) * abs(iy), device="cuda")
    regtile.sgemv(A, x, y, alpha=1.0, beta=0.5, trans=tr, incx=ix, incy=iy)
torch.cuda.synchronize(); print("memcheck script done")
