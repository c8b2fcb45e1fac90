"""Jinja2 environment over the package's templates/ folder (regtile.templates)."""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

import jinja2


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    folder = resources.files("regtile.templates")
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,  # a missing value is a bug, never an empty string
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(template: str, **values) -> str:
    return _env().get_template(template).render(**values)
