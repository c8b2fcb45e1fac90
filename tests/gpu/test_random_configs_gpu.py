"""A sample of the config space that validation accepts (and ptxas compiles without
spills) runs correct against float64 at random sizes, alpha and beta."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from regtile.codegen.config import ConfigError, SgemmConfig
from regtile.runtime import bench, driver
from regtile.runtime.compiler import compile_config

pytestmark = pytest.mark.gpu

configs = st.fixed_dictionaries({
    "bm": st.sampled_from([32, 64, 128, 256]), "bn": st.sampled_from([32, 64, 128, 256]),
    "bk": st.sampled_from([4, 8, 16]), "tm": st.sampled_from([2, 4, 8, 16]), "tn": st.sampled_from([2, 4, 8, 16]),
    "mapping": st.sampled_from(["linear", "zorder"]), "split_tile": st.booleans(),
    "stages": st.sampled_from([1, 2]), "a_transposed": st.booleans(), "pad_a": st.sampled_from([0, 4]),
    "vec": st.sampled_from([1, 4]), "reg_prefetch": st.booleans(), "min_blocks": st.sampled_from([1, 2]),
})


def _accepted(d):
    try:
        return SgemmConfig(**d)
    except ConfigError:
        return None


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(configs.map(_accepted).filter(lambda c: c is not None),
       st.integers(1, 700), st.integers(1, 700), st.integers(1, 400),
       st.sampled_from([(1.0, 0.0), (0.5, -1.5), (-2.0, 1.0)]))
def test_sampled_config_is_correct(cfg, m, n, k, ab):
    art = compile_config(cfg, driver.device().arch)
    if not art.resources.spill_free:
        return  # spilling kernels are reported by `inspect`, not run here
    work = bench.GemmWorkload(m, n, k, sets=1)
    try:
        res = bench.check_and_time(bench.kernel_launcher(driver.load(art), work, *ab), work, *ab, repeat=0)
    finally:
        work.close()
    assert res.unwritten == 0 and res.rel_err <= 1e-5, (cfg, m, n, k, ab, res)
