"""`regtile` command line: presets, gen, inspect, banks, plot (CPU); run, bench, tune, sweep,
sanitize (GPU); cache (helper "repro" adds cmd_cache).

Every subcommand lives in its own module with `register(subparsers)`; this file
only assembles them and turns refused input into one line and exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import List, Optional

from ..codegen.config import ConfigError
from . import progress
from .options import UsageError, normalize_switches, switch_flags

# Subcommand modules, in --help order.  A module may be absent in a partial
# install; it is then simply not offered.
COMMANDS = ("cmd_presets", "cmd_gen", "cmd_inspect", "cmd_banks", "cmd_run", "cmd_bench", "cmd_tune", "cmd_sweep",
            "cmd_sanitize", "cmd_plot", "cmd_cache")

EPILOG = """examples:
  regtile presets
  regtile inspect --preset zorder
  regtile inspect --preset zorder --json
  regtile gen --preset zorder --out build/zorder
  regtile gen --bm 128 --bn 128 --bk 8 --tm 8 --tn 8 --vec 4 --a-transposed --stages 2 --out build/k
  regtile run --preset zorder --m 4096 --n 4096 --k 4096        (needs a GPU)
  regtile bench --ladder                                        (needs a GPU)
  regtile tune --m 4096 --n 4096 --k 4096                       (needs a GPU)
  regtile sweep --shapes                                        (needs a GPU)
  regtile plot ladder docs/ladder.md --out docs/ladder.png      (needs matplotlib)
"""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so that every bad-input path prints
    the same one-line error."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def _version() -> str:
    from .. import __version__
    return __version__


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="regtile", description="Generate, inspect and run register-tiled FP32 GPU kernels.",
                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"regtile {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod_name in COMMANDS:
        try:
            mod = importlib.import_module(f"{__package__}.{mod_name}")
        except ModuleNotFoundError as e:
            if e.name and e.name.endswith(mod_name):
                continue
            raise
        mod.register(sub)
    return p


def _expected_errors():
    """Exceptions that mean "refused input or environment", reported in one line."""
    errs = [ConfigError, UsageError]
    from ..errors import ArchError, CompileError, SassError
    errs += [ArchError, CompileError, SassError]
    try:
        from ..runtime.errors import RegtileError
        errs.append(RegtileError)
    except ImportError:
        pass
    return tuple(errs)


def main(argv: Optional[List[str]] = None) -> int:
    expected = _expected_errors()
    try:
        parser = build_parser()
        argv = sys.argv[1:] if argv is None else argv
        args = parser.parse_args(normalize_switches(argv, switch_flags(parser)))
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        progress.configure(json_output=getattr(args, "json", False) is True)
        return int(args.handler(args) or 0)
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            raise  # --help, --version: argparse's own exit
        print(f"regtile: error: {e.code}", file=sys.stderr)  # SystemExit("message") of a tool
        return 2
    except expected as e:
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"regtile: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("regtile: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `regtile ... | head`: the reader left; not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
