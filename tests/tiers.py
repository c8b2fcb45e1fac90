"""The fast and the exhaustive tier of a parametrization (tests/conftest.py).

    @pytest.mark.parametrize("name", tiered(preset_names(), fast={"naive", "zorder"}))

runs every case under `python3 -m pytest -m slow` and only the `fast` ones in the
default run, so a feature keeps a representative case in the fast tier and the
whole sweep stays one marker away."""
import pytest


def tiered(cases, fast):
    fast = set(fast)
    unknown = fast - set(cases)
    assert not unknown, f"fast cases not among the cases: {unknown}"
    return [case if case in fast else
            pytest.param(*(case if isinstance(case, tuple) else (case,)), marks=pytest.mark.slow)
            for case in cases]
