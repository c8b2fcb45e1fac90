"""The sweep's operands in every layout (tools/shape_sweep.ShapeBench, `--layout`): the cuBLAS side (torch.mm of the
transposed views) and the library side (regtile.sgemm's plan on the stored operands, their packed leading dimensions)
both compute op(A) op(B) against float64 on fresh random data, C NaN-poisoned first; a layout whose views or leading
dimensions were crossed would fail here, not time the wrong product."""
import pytest

from regtile.tools import shape_sweep as sw

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda():
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    torch.backends.cuda.matmul.allow_tf32 = False
    return torch


@pytest.mark.parametrize("layout", sw.LAYOUTS)
@pytest.mark.parametrize("m,n,k", [(257, 129, 67), (96, 4096, 1024), (1, 777, 515), (33, 64, 4097)])
def test_both_sides_compute_op_a_op_b(cuda, layout, m, n, k):
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan
    bench = sw.ShapeBench(cuda, m, n, k, seed=7, layout=layout)
    try:
        assert tuple(bench.a[0].shape) == ((k, m) if layout[0] == "T" else (m, k))
        assert tuple(bench.b[0].shape) == ((n, k) if layout[1] == "T" else (k, n))
        ok, err, unwritten = bench.check(bench.cublas())
        assert ok and unwritten == 0, (err, unwritten)
        plan = GemmPlan(m, n, k, bench.trans_a, bench.trans_b, bench.lda, bench.ldb, n, arch=driver.device().arch)
        ok, err, unwritten = bench.check(bench.library(plan))
        assert ok and unwritten == 0, (err, unwritten)
        assert err > 0.0  # a real product of random data, not zeros
    finally:
        bench.close()


def test_an_unknown_layout_is_refused_by_name(cuda):
    with pytest.raises(ValueError, match="NT"):
        sw.ShapeBench(cuda, 8, 8, 8, layout="nt")
