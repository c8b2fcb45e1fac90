"""Split-K SGEMMs of the CUDA C backend end to end on the CPU (tests/host_cuda.py): the family's
split-K members at the split the heuristic gives them, the module (partial kernel and reduce)
compiled for the host and launched by runtime/plans.GemmPlan's own packed launches and workspace,
against float64 on fresh random data, C NaN-poisoned where beta == 0.  Ragged N (the reduce's
per-float path, N of 2 and 3 included) and N % 4 == 0 (its float4 path)."""
import numpy as np
import pytest

from host_cuda import CXX, HostModule, host_driver
from regtile.codegen import heuristic
from regtile.codegen.emit import emit
from tiers import tiered

pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++)")

# (member, m, n, k)
CASES = [("splitk-32x64-f4", 65, 33, 4097), ("splitk-32x32-f4", 33, 2, 770), ("splitk-32x32-f4", 65, 3, 1000),
         ("splitk-64x64", 129, 7, 1023), ("splitk-32x64-f8", 96, 64, 768), ("splitk-32x32-f4", 700, 35, 2048)]
_FAST = {("splitk-32x32-f4", 33, 2, 770), ("splitk-32x64-f8", 96, 64, 768)}
_modules = {}


@pytest.mark.parametrize("member, m, n, k", tiered(CASES, fast=_FAST))
@pytest.mark.parametrize("alpha, beta", [(1.0, 0.0), (0.5, -1.5)])
def test_split_k_member_on_the_host(monkeypatch, tmp_path_factory, member, m, n, k, alpha, beta):
    from types import SimpleNamespace

    from regtile.runtime import compiler, driver, plans
    cfg, backend = heuristic.member_config(member, m, n, k, 132)
    assert backend == "cuda" and cfg.split_k > 1, (member, cfg.split_k)
    if cfg not in _modules:
        _modules[cfg] = HostModule(emit(cfg, backend), tmp_path_factory.mktemp("splitk"))
    mod = _modules[cfg]
    host_driver(monkeypatch, mod)
    monkeypatch.setattr(compiler, "compile_config", lambda c, arch, backend="cuda": SimpleNamespace(source=None))
    monkeypatch.setattr(driver, "load", lambda artifact: mod.main)
    plan = plans.GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend="cuda", arch="sm_90")
    rng = np.random.default_rng(m * 7 + n * 3 + k)
    A = rng.standard_normal((m, k)).astype(np.float32)
    B = rng.standard_normal((k, n)).astype(np.float32)
    C0 = rng.standard_normal((m, n)).astype(np.float32)
    C = np.full((m, n), np.nan, dtype=np.float32) if beta == 0.0 else C0.copy()
    plan.launch(A.ctypes.data, B.ctypes.data, C.ctypes.data, alpha, beta, stream=0)
    ref = alpha * (A.astype(np.float64) @ B.astype(np.float64)) + (beta * C0.astype(np.float64) if beta else 0.0)
    assert not np.isnan(C).any(), f"{int(np.isnan(C).sum())} elements of C not written ({plan.describe()})"
    np.testing.assert_allclose(C, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max(), err_msg=plan.describe())
