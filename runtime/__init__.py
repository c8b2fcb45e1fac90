"""regtile.runtime: the compile pipeline (compiler, sass_stage, cache), the driver, launches
and the public entry points' machinery.

The SASS toolchain moved to regtile.sass; its old module names under regtile.runtime stay
importable (the same module objects) until every caller uses the new ones:
"""
import sys as _sys

from ..sass import banks as reg_banks, bank_pass as sass_pass, cubin as cubin_info, disasm as sass
from ..sass import fields as sass_fields, reorder as ffma_reorder

for _old, _new in (("sass", sass), ("sass_fields", sass_fields), ("sass_pass", sass_pass),
                   ("ffma_reorder", ffma_reorder), ("reg_banks", reg_banks), ("cubin_info", cubin_info)):
    _sys.modules.setdefault(f"{__name__}.{_old}", _new)
del _old, _new

from . import sass_stage  # noqa: E402,F401  (registers the SASS pass with the compile pipeline)
