"""`regtile gen`: write every stage's artifact of one kernel to a folder."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from . import progress
from .artifacts import build, write_all
from .options import UsageError, add_kernel_args, backend_from_args, command_parser, config_from_args


DESCRIPTION = """Generate one kernel and write NAME.cu (CUDA C), NAME.ptx, NAME.cubin, NAME.sass
(nvdisasm) and NAME.json (config, launch geometry, resources). With --backend ptx the kernel is emitted
as PTX (NAME.ptx, no NAME.cu) and compiled by nvJitLink. No GPU needed."""
EXAMPLES = """examples:
  regtile gen --preset zorder --out build/zorder
  regtile gen --preset zorder --arch sm_80 --out build/zorder80
  regtile gen --preset zorder --backend ptx --out build/zorder-ptx
  regtile gen --preset pad --mapping zorder --warps 4x2 --split-tile --out build/k"""


def register(sub) -> None:
    p = command_parser(sub, "gen", "generate a kernel: NAME.cu, .ptx, .cubin, .sass, .json",
                       DESCRIPTION, EXAMPLES)
    add_kernel_args(p, backend=True)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--name", help="file stem, a plain file name (default: the preset name; with config flags that "
                                  "change a preset, NAME-custom; without a preset, 'custom')")
    p.add_argument("--json", action="store_true", help="print the written paths and summary as JSON")
    p.add_argument("--allow-spills", action="store_true",
                   help="write a kernel even if ptxas spilled it to local memory (refused otherwise)")
    p.set_defaults(handler=run)


def check_name(name) -> None:
    """--name is a file stem inside --out, not a path."""
    if name is None:
        return
    if not name or name in (".", "..") or "/" in name or os.sep in name or (os.altsep and os.altsep in name) \
            or "\0" in name:
        raise UsageError(f"--name {name!r}: give a plain file name (no folders; use --out for the folder)")


def _check_writable(out: Path) -> None:
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK):
        raise UsageError(f"--out {out}: {probe} is not a writable folder; choose another --out")


def run(args) -> int:
    label, cfg = config_from_args(args)
    check_name(args.name)
    out = Path(args.out)
    _check_writable(out)
    if args.name is None and args.preset and label != args.preset:
        print(f"regtile: note: the config flags change preset {args.preset}, so the files are named {label}.*; "
              f"--name NAME names them", file=sys.stderr)
    with progress.task(f"compiling {label} for {args.arch}"):
        built = build(label, cfg, args.arch, backend=backend_from_args(args), allow_spills=args.allow_spills)
    created, probe = None, out
    while not probe.exists():  # the outermost folder this command will create
        created, probe = probe, probe.parent
    try:
        files = write_all(built, out, args.name)
    except OSError as e:
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)  # folders this command made: nothing in them is whole
        raise UsageError(f"--out {out}: cannot write ({e.strerror}); choose another --out") from None
    if args.json:
        print(json.dumps({"files": {k: str(v) for k, v in files.items()}, **built.summary()}, indent=2))
    else:
        res = built.artifact.resources
        print(f"{built.source.name} ({label}, {args.arch}): {res.registers} registers, "
              f"{res.spill_store_bytes + res.spill_load_bytes} spill bytes, "
              f"{built.source.geometry.dynamic_smem_bytes} bytes dynamic shared memory")
        for path in files.values():
            print(f"  wrote {path}")
    return 0
