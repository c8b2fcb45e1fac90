"""C's unaligned rows stored through shared memory (config.c_staged, codegen/ptx_c_staged.py) on the GPU against
float64: every PTX family member as regtile.sgemm builds it for a C with N % 4 != 0 (operand_forms.member_for_shape:
with stream-K, the edge split, the unaligned rows' copies where the member has them), on fresh random data with C
NaN-poisoned (every element checked written), ragged M / N / K, alpha and beta; and regtile.sgemm itself."""
import numpy as np
import pytest

from regtile.codegen.operand_forms import member_for_shape
from regtile.codegen.presets import FAMILY
from gpu_helpers import check_config, check_host_sgemm

pytestmark = pytest.mark.gpu

MEMBERS = sorted(n for n, m in FAMILY.items() if m.backend == "ptx")


@pytest.mark.parametrize("name", MEMBERS)
def test_every_ptx_member_with_c_staged(name):
    c = FAMILY[name].config
    for m, n, k, alpha, beta in ((2 * c.bm + 3, 2 * c.bn + 3, 37, 1.0, 0.0), (5 * c.bm + 1, 3 * c.bn + 2, 520, -0.5, 2.0),
                                 (c.bm - 1, 999, 64, 1.0, 0.0)):
        cfg, backend = member_for_shape(name, m, n, k, 132)
        assert cfg.c_staged, cfg.describe()
        check_config(cfg, m, n, k, alpha, beta, backend=backend, what=f"{name} c_staged")


@pytest.mark.parametrize("m, n, k", [(3001, 3001, 64), (333, 3333, 333), (129, 4097, 513), (77, 1001, 960)])
def test_regtile_sgemm_on_unaligned_c(m, n, k):
    check_host_sgemm(m, k, n, 0.5, -1.0)


@pytest.mark.parametrize("m, n, k, ldc", [(1024, 1024, 512, 1025), (300, 516, 200, 517), (1009, 1013, 301, 1016)])
def test_the_plan_stages_c_by_its_leading_dimension(m, n, k, ldc):
    """A GemmPlan into a C view: staged where ldc % 4 != 0 (also with N % 4 == 0), not where ldc % 4 == 0 (also with
    a ragged N); C NaN-poisoned, its padding columns random and left as they were, against float64."""
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c0 = np.full((m, ldc), np.nan, np.float32)
    c0[:, n:] = rng.standard_normal((m, ldc - n), dtype=np.float32)
    plan = GemmPlan(m, n, k, False, False, k, n, ldc)
    assert plan.config.c_staged == bool(ldc % 4), plan.describe()
    da, db, dc = driver.to_device(a), driver.to_device(b), driver.to_device(c0)
    try:
        plan.launch(da.ptr, db.ptr, dc.ptr, 1.0, 0.0, 0)
        driver.synchronize()
        got = np.empty((m, ldc), np.float32)
        dc.download(got)
    finally:
        for buf in (da, db, dc):
            buf.close()
    ref = a.astype(np.float64) @ b
    assert not np.isnan(got[:, :n]).any(), f"{int(np.isnan(got[:, :n]).sum())} elements unwritten"
    err = np.linalg.norm(got[:, :n] - ref) / np.linalg.norm(ref)
    assert err <= 1e-5, f"{plan.describe()} ldc {ldc}: rel err {err}"
    assert np.array_equal(got[:, n:], c0[:, n:]), "C's padding columns written"
