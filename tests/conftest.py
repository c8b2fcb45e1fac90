"""GPU tests (marked `gpu`) run only where a CUDA GPU is usable; elsewhere they skip
with the reason.  Every test gets its own compile cache unless REGTILE_CACHE_DIR
is set, so CI always exercises compilation."""
import pytest


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
