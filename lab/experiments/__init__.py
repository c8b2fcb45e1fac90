"""One-off device experiments behind results in docs/data (docs/perf-log.md, docs/tuning.md and
docs/sass-pass.md cite each).  Not part of the installed package: run one from the repository
root as `python3 -m lab.experiments.NAME [args]` (on the device machine it writes its JSON under
$OUT, else the current folder); `--help` says what it measured and needs no GPU.  They
monkeypatch or rewrite what they measure (a module constant, a cubin's instructions), and keep
the code as it ran, which is why they live here and not in the package's stages."""
import argparse
import sys


def program(run, args_help=None):
    """The experiment's main(argv): --help prints its docstring; the arguments go to run(argv)."""
    module = sys.modules[run.__module__]
    name = module.__spec__.name if module.__spec__ else module.__name__

    def main(argv=None) -> int:
        p = argparse.ArgumentParser(prog=f"python3 -m {name}", description=module.__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        if args_help:
            p.add_argument("argv", nargs="*", metavar="ARG", help=args_help)
        args, rest = p.parse_known_args(argv)
        run(list(getattr(args, "argv", [])) + rest)
        return 0
    return main
