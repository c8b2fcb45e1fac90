"""The optional SASS stage of the compile pipeline (emit -> NVRTC / nvJitLink -> cubin ->
this stage -> load): the register-bank pass (regtile.sass.bank_pass) on an Artifact's cubin,
cached on disk like a compile, under every input its result depends on.

compile_source applies it to a source built with sass_pass through the stage registry of
runtime/compiler.py (registered below when regtile.runtime is imported): the compiler does not
import the pass, and the pass works on cubin bytes and knows neither the compiler nor the cache.
"""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Sequence, Tuple

from ..sass import bank_pass
from ..sass import banks as reg_banks
from ..sass import cubin as cubin_info
from . import cache as _cache
from .compiler import PostStage, cached_stage, register_post_stage

STAGE = "sass-pass"
# The pass's last step (sass/scoreboards.py): the main loop's global loads release their reads on
# a scoreboard the loop's first FFMAs do not wait on.  A module constant, in the cache key, so
# that lab A/Bs can build the kernel without it (lab/experiments/read_scoreboards_ab.py).
SEPARATE_READS = True
# The pass's preload step (sass/preload.py), likewise: off only for lab A/Bs.
SPREAD_PRELOADS = True
# The pass's tile-end step (sass/tile_end.py), likewise.
SPREAD_TILE_END = True
# The pass's store step (sass/stores.py), likewise.
SPREAD_STORES = True
# The pass's barrier step (sass/barrier.py), likewise.
HOIST_BARRIER = True


# This module's own code is in the key too: _run decides the bytes of a module of two kernels (side by side since
# session 41).
with open(__file__, "rb") as _f:
    STAGE_CODE = hashlib.sha256(_f.read()).hexdigest()[:16]


def sass_pass_inputs(arch: str, kernels: Tuple[str, ...], cubin_sha256: str) -> dict:
    """A pass result depends on the cubin it read, the kernels it rewrote, the pass's
    version and code, this stage's code, its planning model and the bank model its analysis scores with."""
    try:
        model = dataclasses.asdict(reg_banks.arch_model(arch))
    except ValueError:
        model = None
    return {"stage": STAGE, "pass_version": bank_pass.PASS_VERSION, "pass_code": bank_pass.code_digest(),
            "stage_code": STAGE_CODE,
            "planning_model": bank_pass.PASS_BANK_MODEL, "bank_model": model, "arch": arch,
            **{step: False for step, on in _steps().items() if not on},
            "kernels": list(kernels), "source_sha256": cubin_sha256}


def _steps() -> dict:
    """run_pass's switches of its optional steps, as the module constants above set them."""
    return {"separate_reads": SEPARATE_READS, "spread_preloads": SPREAD_PRELOADS, "spread_tile_end": SPREAD_TILE_END,
            "spread_stores": SPREAD_STORES, "hoist_barrier": HOIST_BARRIER}


def _run(cubin: bytes, kernels: Sequence[str], arch: str, steps: dict, side_by_side: bool = True):
    """(rewritten cubin, report): the main kernel and the others of the module (a stream-K module's work-list kernel),
    whose reports go into report.others.

    A kernel's pass rewrites its own code only, section .text.<kernel>; what it reads besides - the register count
    (.nv.info, which the pass leaves as ptxas set it) and nvdisasm's text of the whole cubin, where the other kernel's
    bytes change no instruction of this one, only its labels' numbers (.L_x_N counts across the file; the pass uses
    labels as names of offsets) - does not depend on the other kernel's rewrite.  So the kernels are rewritten side by
    side from ptxas's cubin, one thread each: most of a pass is waiting on nvdisasm, once a step, and those runs
    overlap (the 4096^3 plan's two kernels: 7.2-8.4 -> 4.8-6.1 s on this project's 2-core CPU machine, 8.8 -> 6.1 s on
    the H200 machine's 16 cores; the family's 28 SASS-pass configs in four layouts 201 -> 146 s with fields.locate's
    memo, the same cubins and reports: tests/runtime/test_sass_stage.py checks one module).  The module's cubin takes
    each kernel's section from that kernel's pass.  That no pass wrote outside its own section is checked; where one
    did (a bug: a warning says so), the kernels are rewritten one after the other (side_by_side=False: always)."""
    passes = []
    if side_by_side and len(kernels) > 1:
        with ThreadPoolExecutor(len(kernels)) as pool:
            passes = list(pool.map(lambda name: bank_pass.run_pass(cubin, name, arch, **steps), kernels))
        sections = [cubin_info.text_section(cubin, name) for name in kernels]
        stray = [name for name, (out, _), (off, size) in zip(kernels, passes, sections)
                 if not _only_within(cubin, out, off, size)]
        if not stray:
            merged = bytearray(cubin)
            for (out, _), (off, size) in zip(passes, sections):
                merged[off:off + size] = out[off:off + size]
            report = passes[0][1]
            for name, (_, rep) in zip(kernels[1:], passes[1:]):
                report.others[name] = rep.to_dict()
            return bytes(merged), report
        warnings.warn(f"the SASS pass of {', '.join(stray)} changed bytes outside its kernel's .text section; the "
                      f"module's kernels are rewritten one after the other instead", RuntimeWarning)
    # one after the other: kernel 0's pass on ptxas's cubin is the first step, done above if the threads ran
    cubin, report = passes[0] if passes else bank_pass.run_pass(cubin, kernels[0], arch, **steps)
    for other in kernels[1:]:
        cubin, rep = bank_pass.run_pass(cubin, other, arch, **steps)
        report.others[other] = rep.to_dict()
    return cubin, report


def _only_within(before: bytes, after: bytes, off: int, size: int) -> bool:
    """Do `before` and `after` differ only within bytes off..off+size?"""
    return (len(before) == len(after) and before[:off] == after[:off]
            and before[off + size:] == after[off + size:])


def apply_sass_pass(art, use_cache: bool = True):
    """The artifact (runtime.compiler.Artifact) with its cubin rewritten by the pass; ptxas's
    cubin stays beside it as Artifact.cubin_before_pass and the report rides along as
    Artifact.sass_pass.  A stream-K module's work-list kernel (source.ranges) is rewritten
    too, beside the main kernel (_run); its report is in report.others."""
    ranges = getattr(art.source, "ranges", None)
    kernels = (art.name,) + ((ranges.name,) if ranges is not None else ())
    inputs = sass_pass_inputs(art.arch, kernels, hashlib.sha256(art.cubin).hexdigest())
    entry, _ = cached_stage(inputs, {"cubin": base64.b64encode(art.cubin).decode()}, use_cache)
    report = bank_pass.PassReport(**json.loads(entry.log))
    report.renaming = {int(a): b for a, b in report.renaming.items()}
    return dataclasses.replace(art, cubin=entry.cubin, cubin_before_pass=art.cubin, sass_pass=report)


def _rebuild(inputs: dict, rebuild: dict) -> _cache.Entry:
    cubin, report = _run(base64.b64decode(rebuild["cubin"]), inputs["kernels"], inputs["arch"],
                         {step: inputs.get(step, True) for step in _steps()})
    return _cache.Entry(ptx="", cubin=cubin, log=json.dumps(dataclasses.asdict(report)))


def _stale(inputs: dict) -> Optional[str]:
    now = sass_pass_inputs(inputs.get("arch", ""), tuple(inputs.get("kernels", ())), "")
    for k in ("pass_version", "pass_code", "stage_code", "bank_model", "planning_model"):
        if inputs.get(k) != now[k]:
            return f"{k} differs from this install's SASS pass"
    return None


register_post_stage(STAGE, PostStage(apply=apply_sass_pass, rebuild=_rebuild, stale=_stale))
