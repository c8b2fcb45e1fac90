"""What every config dataclass of regtile shares: dict round trips, copies, a digest, checks.

TileConfig (codegen/tile_config.py), Decomposition and BuildOptions (codegen/config.py), the
SGEMV configs (codegen/sgemv_config.py) and the few-vector configs (codegen/fewvec_config.py)
are frozen dataclasses deriving from ConfigDict: `replace`, `to_dict` (opt-in fields at their
defaults left out, so that adding one keeps the dicts, kernel names and digests of the configs
that do not use it), `from_dict` (unknown keys refused by name; JSON lists read back as tuples)
and `digest`.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json

from ..errors import ConfigError


def check_fields(cls, d: dict, what: str) -> None:
    """Refuse keys that are not fields of the dataclass `cls` (from_dict of every config)."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ConfigError(f"unknown {what} field(s) {unknown}; known fields: {sorted(known)}")


def check_bools(obj, names) -> None:
    """Switches must be True or False (a 0/1 or a string would hash and name differently)."""
    for name in names:
        if not isinstance(getattr(obj, name), bool):
            raise ConfigError(f"{name}={getattr(obj, name)!r}: must be True or False")


def check_ints(obj, names, minimum: int = 1) -> None:
    """Integer fields must be ints (not bools, not floats: they would hash and name differently)
    of at least `minimum`."""
    for name in names:
        v = getattr(obj, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
            raise ConfigError(f"{name}={v!r}: must be an integer >= {minimum}")


def check_pow2(obj, names) -> None:
    """These (already checked integer) fields must be powers of two."""
    for name in names:
        v = getattr(obj, name)
        if v & (v - 1):
            raise ConfigError(f"{name}={v}: must be a power of two")


class ConfigDict:
    """Mixin of the frozen config dataclasses (no fields, no __init__ of its own)."""
    WHAT = "config"  # named in from_dict's refusal and in the digest
    OPT_IN: tuple = ()  # fields left out of to_dict while at their defaults

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        for f in dataclasses.fields(self):
            if f.name in self.OPT_IN and d[f.name] == f.default:
                del d[f.name]
            elif isinstance(d[f.name], tuple):
                d[f.name] = list(d[f.name])  # as JSON writes it
        return d

    @classmethod
    def from_dict(cls, d: dict):
        check_fields(cls, d, cls.WHAT)
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})

    @property
    def digest(self) -> str:
        """A stable digest of the config: its kind and its to_dict."""
        return hashlib.sha256(json.dumps({self.WHAT: self.to_dict()}, sort_keys=True).encode()).hexdigest()[:16]
