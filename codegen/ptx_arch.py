"""The PTX text's arch-dependent lines (codegen/emit_ptx.py marks them): `.target`, and the lines
applied on sm_90 only - `.minnctapersm` (as the CUDA C backend's __launch_bounds__) and PDL's
griddepcontrol lines - commented out for other archs.  `for_arch` rewrites the marked lines, so
the compile step (runtime/compiler.py) builds any supported arch from one KernelSource."""
from __future__ import annotations

import re
from typing import Optional

from .hardware import SUPPORTED_ARCHS

TARGET_MARK = "// regtile: target"
MINCTA_MARK = "// regtile: sm_90 only (as the CUDA C backend's __launch_bounds__)"
PDL_MARK = "// regtile: sm_90 only (programmatic dependent launch)"


def mincta_line(min_blocks: int, arch: str) -> str:
    directive = f".minnctapersm {min_blocks}"
    return (directive if arch == "sm_90" else "// " + directive) + f"  {MINCTA_MARK}"


def pdl_line(instruction: str, arch: str) -> str:
    return ("\t" if arch == "sm_90" else "\t// ") + f"{instruction}  {PDL_MARK}"


def check_arch(arch: str) -> None:
    if arch not in SUPPORTED_ARCHS:
        raise ValueError(f"unknown arch {arch!r}: regtile targets {', '.join(SUPPORTED_ARCHS)}")


def for_arch(text: str, arch: str) -> str:
    """The same PTX retargeted: the `.target` line, and `.minnctapersm` and the PDL lines
    applied on sm_90 only.  Only marked lines change."""
    check_arch(arch)
    text = re.sub(r"^\.target sm_\d+  " + re.escape(TARGET_MARK) + "$", f".target {arch}  {TARGET_MARK}",
                  text, count=1, flags=re.M)
    text = re.sub(r"^\t(?://\s)?(griddepcontrol\.\w+;)  " + re.escape(PDL_MARK) + "$",
                  lambda m: pdl_line(m.group(1), arch), text, flags=re.M)
    return re.sub(r"^(?://\s)?\.minnctapersm (\d+)  " + re.escape(MINCTA_MARK) + "$",
                  lambda m: mincta_line(int(m.group(1)), arch), text, flags=re.M)  # every entry's


def target_of(text: str) -> Optional[str]:
    m = re.search(r"^\.target (sm_\d+)", text, flags=re.M)
    return m.group(1) if m else None
