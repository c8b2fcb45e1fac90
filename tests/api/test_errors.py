"""One error hierarchy (regtile.errors): every exception class regtile defines derives from
RegtileError, found by importing every module of every installed package; the names are
exported from `regtile`, and the old import paths give the same classes."""
import importlib
import inspect
import pkgutil

import pytest

import regtile
from regtile import errors

# The installed packages (pyproject's package-dir maps each to its own folder, so walking
# regtile.__path__ alone would not reach them).
OPTIONAL = {"torch"}
PACKAGES = ("regtile", "regtile.codegen", "regtile.sass", "regtile.runtime", "regtile.tools", "regtile.lab")


def _modules():
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        yield pkg
        for info in pkgutil.iter_modules(pkg.__path__, pkg_name + "."):
            try:
                yield importlib.import_module(info.name)
            except ModuleNotFoundError as e:  # an optional dependency (torch for runtime.torch_ops)
                if e.name not in OPTIONAL:
                    raise


def _exception_classes():
    seen = {}
    for mod in _modules():
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__.startswith("regtile."):
                seen[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return seen


def test_every_exception_class_of_the_package_derives_from_regtile_error():
    classes = _exception_classes()
    # the walk reached every package (a module that failed to import would have raised)
    assert {"regtile.errors.ConfigError", "regtile.sass.bank_pass.SassPassRefused",
            "regtile.sass.fields.UnknownForm", "regtile.sass.cubin.CubinError",
            "regtile.tools.options.UsageError", "regtile.lab.regbank_variants.CalibError"} <= set(classes)
    # the compile worker runs as `python -I -S runtime/compile_worker.py` (stdlib only, so its
    # heap is laid out the same in every compile: docs/reproducibility.md); its private failure
    # never leaves that process: the compiler turns it into a CompileError
    worker = {"regtile.runtime.compile_worker._Failed"}
    outside = sorted(name for name, cls in classes.items()
                     if not issubclass(cls, errors.RegtileError) and name not in worker)
    assert outside == []


@pytest.mark.parametrize("name", ["ConfigError", "InputError", "ArchError", "CompileError", "SpillError",
                                  "SassError", "NoGpuError", "DriverError", "LaunchError", "CublasUnavailable"])
def test_the_hierarchy_is_exported_from_the_package(name):
    cls = getattr(regtile, name)
    assert cls is getattr(errors, name) and issubclass(cls, regtile.RegtileError) and name in regtile.__all__


def test_value_errors_stay_value_errors():
    for cls in (errors.ConfigError, errors.InputError, errors.ArchError):
        assert issubclass(cls, ValueError)
    assert issubclass(errors.SpillError, errors.CompileError) and issubclass(errors.LaunchError, errors.DriverError)


def test_old_import_paths_give_the_same_classes():
    from regtile.codegen.config import ConfigError
    from regtile.runtime.compiler import ArchError, CompileError, SpillError
    from regtile.runtime.errors import CublasUnavailable, DriverError, InputError, LaunchError, NoGpuError
    from regtile.sass.disasm import SassError
    assert (ConfigError, ArchError, CompileError, SpillError, SassError) == (
        errors.ConfigError, errors.ArchError, errors.CompileError, errors.SpillError, errors.SassError)
    assert (CublasUnavailable, DriverError, InputError, LaunchError, NoGpuError) == (
        errors.CublasUnavailable, errors.DriverError, errors.InputError, errors.LaunchError, errors.NoGpuError)


def test_codegen_and_sass_import_no_runtime_module():
    """The errors live where codegen and sass reach them without the run stage, and
    regtile.errors itself imports nothing of regtile."""
    import ast
    import pathlib

    def imports(path):
        return [node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ImportFrom)]

    for pkg in ("regtile.codegen", "regtile.sass"):
        for path in pathlib.Path(importlib.import_module(pkg).__file__).parent.glob("*.py"):
            for node in imports(path):
                assert not (node.level >= 2 and (node.module or "").startswith("runtime")), \
                    f"{pkg}: {path.name} imports ..{node.module}"
    assert all(node.level == 0 and not (node.module or "").startswith("regtile")
               for node in imports(pathlib.Path(errors.__file__)))
