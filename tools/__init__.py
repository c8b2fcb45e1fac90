"""regtile.tools: the `regtile` command line (cli.py and its cmd_*.py) and the library logic
behind it (tuning, sweeps, sanitizer runs, reports).

The research programs moved to regtile.lab; their old names here resolve to the lab
modules until every caller uses the new ones."""
import importlib as _importlib

_MOVED_TO_LAB = ("regbank_calib", "ncu_compare", "ncu_source", "register_sweep")


def __getattr__(name):
    if name in _MOVED_TO_LAB:
        return _importlib.import_module(f"regtile.lab.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
