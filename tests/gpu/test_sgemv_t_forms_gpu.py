"""Op T kernel forms of session 3 run 4 on the GPU against float64, outputs NaN-poisoned: the
one-wave form without a split (SgemvTConfig.warp_reduce: narrow strips, tall blocks, thread rows
meeting by warp shuffles) and rows staged through shared memory (SgemvTConfig.stage_rows).
Moved out of test_sgemv_gpu.py unchanged after the run (214 passed there, commit a8c7e6e)."""
import pytest

import regtile
from regtile.codegen.sgemv_config import SgemvTConfig
from regtile.runtime.gemv import plan_for

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
from gemv_checks import NAN, close as _close, nan_inf_through_strides, nonfinite_exact, ref as _ref, repeated_launches  # noqa: E402



# Op T without a split: narrow strips, tall blocks, the thread rows meeting by warp shuffles
# (SgemvTConfig.warp_reduce).  Whole strips, ragged strips (scalar loads), vec 1, a row tail,
# fewer rows than a step, and the form under a split and under the one-launch finish.
_WR = dict(warp_reduce=True)
WARP_REDUCE_CASES = [
    (4096, 4096, SgemvTConfig(8, 64, 4, 8, **_WR), 1),
    (2560, 7680, SgemvTConfig(16, 32, 4, 8, **_WR), 1),
    (2048, 2048, SgemvTConfig(4, 128, 4, 4, **_WR), 1),
    (2048, 6144, SgemvTConfig(8, 32, 4, 8, **_WR), 1),
    (300, 50000, SgemvTConfig(8, 32, 4, 4, **_WR), 1),   # 2 steps of 128 rows, 44 left
    (32, 4096, SgemvTConfig(8, 32, 4, 1, **_WR), 1),
    (20, 4096, SgemvTConfig(8, 32, 4, 1, **_WR), 1),     # fewer rows than thread rows
    (1000, 130, SgemvTConfig(8, 32, 4, 8, **_WR), 1),    # a ragged last strip
    (999, 129, SgemvTConfig(4, 64, 1, 4, **_WR), 1),     # vec 1
    (2048, 6144, SgemvTConfig(8, 32, 4, 8, **_WR), 3),   # and a split with the reduce kernel
    (2560, 1000, SgemvTConfig(8, 32, 4, 8, fused_reduce=True, **_WR), 3),
]


@pytest.mark.parametrize("m, n, cfg, splits", WARP_REDUCE_CASES)
def test_warp_reduce_repeated_launches(m, n, cfg, splits):
    """Four launches on one plan with fresh x, alpha/beta, beta == 0 over a NaN y, and the same
    inputs giving the same bits (the shuffle butterfly and the warp order are fixed)."""
    plan = plan_for(m, n, "T", config=cfg, splits=splits)
    assert plan.splits == splits
    repeated_launches(plan, torch.randn(m, n, device="cuda"), True)


@pytest.mark.parametrize("cfg", [SgemvTConfig(8, 64, 4, 8, **_WR), SgemvTConfig(4, 128, 4, 4, **_WR)])
def test_warp_reduce_nan_inf_and_strides(cfg):
    """A NaN and an Inf in A reach exactly their outputs through the shuffles; backwards x, a
    strided backwards y whose gaps stay untouched."""
    nan_inf_through_strides(3000, 4100, True, cfg, incx=-1)


# Op T on short unaligned rows, staged through shared memory (SgemvTConfig.stage_rows).
_ST = SgemvTConfig(32, 8, 4, 8, stage_rows=64)
STAGED_T_CASES = [  # m, n, lda, shift (floats A starts after an aligned base), cfg, splits
    (1 << 20, 77, 77, 0, _ST, None),         # the suite's shape, the rule's split for it
    (4096, 77, 77, 0, _ST, 64),
    (1000, 77, 77, 0, _ST, 3),               # ragged tiles: 334 rows a split -> 384-row ranges
    (1001, 77, 80, 0, _ST, 7),               # lda > N: the rows' padding copied, never summed
    (999, 77, 200, 0, _ST, 5),               # lda > strip: the direct path
    (777, 77, 77, 1, _ST, 4),                # A not 16-byte aligned: the direct path
    (5000, 5, 5, 0, SgemvTConfig(2, 64, 4, 4, stage_rows=32), 9),  # a 8-column strip, 5 used
    (64, 128, 128, 0, SgemvTConfig(32, 8, 4, 2, stage_rows=32), 1),  # whole aligned rows, one split
]


@pytest.mark.parametrize("m, n, lda, shift, cfg, splits", STAGED_T_CASES)
def test_staged_t(m, n, lda, shift, cfg, splits):
    """Four launches on one plan (fresh x, alpha/beta, beta == 0 over a NaN y, the same bits
    again), with padded and misaligned A; a NaN and an Inf in A reach exactly their outputs."""
    plan = plan_for(m, n, "T", config=cfg, splits=splits)
    s = torch.cuda.current_stream().cuda_stream
    base = torch.randn(m * lda + shift + 4, device="cuda")
    A = base[shift:shift + m * lda].view(m, lda)[:, :n]
    repeated_launches(plan, A, True, lda=lda)
    A[m // 2, n // 3] = NAN
    A[m // 3, n - 1] = float("inf")
    x = torch.randn(m, device="cuda")
    y = torch.full((n,), NAN, device="cuda")
    plan.launch(1.0, A.data_ptr(), lda, x.data_ptr(), 1, 0.0, y.data_ptr(), 1, s)
    torch.cuda.synchronize()
    nonfinite_exact(y, _ref(A, x, True))


def test_staged_t_strided_vectors():
    """Backwards x and a strided backwards y (gaps untouched) through regtile.sgemv."""
    m, n, cfg = 3000, 77, _ST
    A = torch.randn(m, n, device="cuda")
    xb = torch.randn(m, device="cuda")
    yb = torch.randn(1 + (n - 1) * 3, device="cuda")
    yb0 = yb.clone()
    regtile.sgemv(A, xb, yb, alpha=0.75, beta=-1.0, trans=True, incx=-1, incy=-3, config=cfg)
    torch.cuda.synchronize()
    yi = (torch.arange(n, device="cuda") * 3).flip(0)
    _close(yb[yi], _ref(A, xb.flip(0), True, 0.75, -1.0, yb0[yi]))
    untouched = torch.ones_like(yb, dtype=torch.bool)
    untouched[yi] = False
    assert torch.equal(yb[untouched], yb0[untouched])
