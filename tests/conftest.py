"""Test tiers, the compile cache of a test run, and GPU skips.

Tiers: `python3 -m pytest -q` runs the fast tier (pyproject's addopts deselect tests
marked `slow`); `python3 -m pytest -q -m slow` runs the exhaustive tier alone and
`python3 -m pytest -q -m "slow or not slow"` everything.

Cache: every test run compiles into a fresh temporary folder (REGTILE_CACHE_DIR, set
here before any test runs, so CLI tests' subprocesses inherit it), shared by the
tests of the run, pytest-xdist's workers included, and removed at its end: the run always exercises compilation and
never reads or writes the user's ~/.cache/regtile.  REGTILE_TEST_CACHE_DIR=DIR keeps
that cache in DIR across runs instead (faster reruns while developing).

GPU tests (marked `gpu`) run only where a CUDA GPU is usable; elsewhere they skip
with the reason."""
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis: CI runs a fixed set of examples (derandomized, no example database), so a
# run is deterministic and its cost bounded; REGTILE_HYPOTHESIS=explore draws fresh
# examples (tests/codegen/test_properties.py: ten times as many) to look for new counterexamples.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("REGTILE_HYPOTHESIS", "ci"))

_run_cache = {}


_SHARED = "REGTILE_TEST_RUN_CACHE"  # the run's folder, handed from pytest-xdist's controller to its workers


def pytest_configure(config):
    kept = os.environ.get("REGTILE_TEST_CACHE_DIR")
    shared = os.environ.get(_SHARED) if hasattr(config, "workerinput") else None
    if kept:
        os.makedirs(kept, exist_ok=True)
        folder = kept
    elif shared:
        folder = shared  # an xdist worker: the controller's folder (it removes it), so a kernel compiles once a run
    else:
        folder = tempfile.mkdtemp(prefix="regtile-test-cache-")
        _run_cache["remove"] = folder
        os.environ[_SHARED] = folder
    _run_cache["previous"] = os.environ.get("REGTILE_CACHE_DIR")
    os.environ["REGTILE_CACHE_DIR"] = folder


def pytest_unconfigure(config):
    previous = _run_cache.pop("previous", None)
    if previous is None:
        os.environ.pop("REGTILE_CACHE_DIR", None)
    else:
        os.environ["REGTILE_CACHE_DIR"] = previous
    folder = _run_cache.pop("remove", None)
    if folder:
        os.environ.pop(_SHARED, None)
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    gpu_items = [i for i in items if "gpu" in i.keywords]
    if not gpu_items:
        return
    from regtile.runtime.driver import gpu_available
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (run `python3 -m pytest -m gpu` on a machine with one)")
    for item in gpu_items:
        item.add_marker(skip)
