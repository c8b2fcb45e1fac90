"""C's unaligned rows stored through shared memory (config.c_staged, codegen/ptx_c_staged.py) on the GPU against
float64: every PTX family member as regtile.sgemm builds it for a C with N % 4 != 0 (operand_forms.member_for_shape:
with stream-K, the edge split, the unaligned rows' copies where the member has them), on fresh random data with C
NaN-poisoned (every element checked written), ragged M / N / K, alpha and beta; and regtile.sgemm itself."""
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
