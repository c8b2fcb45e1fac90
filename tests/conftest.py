"""GPU tests (marked `gpu`) run only where a CUDA GPU is usable; elsewhere they skip
with the reason.  Every test gets its own compile cache unless REGTILE_CACHE_DIR
is set, so CI always exercises compilation."""
import os

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis: CI runs a fixed set of examples (derandomized, no example database), so a
# run is deterministic and its cost bounded; REGTILE_HYPOTHESIS=explore draws fresh
# examples (tests/test_properties.py: ten times as many) to look for new counterexamples.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("REGTILE_HYPOTHESIS", "ci"))


def pytest_collection_modifyitems(config, items):
    gpu_items = [i for i in items if "gpu" in i.keywords]
    if not gpu_items:
        return
    from regtile.runtime.driver import gpu_available
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (run `pytest -m gpu` on the device machine)")
    for item in gpu_items:
        item.add_marker(skip)
