"""The optional SASS stage of the compile pipeline (emit -> NVRTC / nvJitLink -> cubin ->
this stage -> load): the register-bank pass (regtile.sass.bank_pass) on an Artifact's cubin,
cached on disk.  compile_source calls it for a source built with sass_pass; the pass itself
works on cubin bytes and knows neither the compiler nor the cache.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json

from ..sass import bank_pass
from . import cache as _cache


def apply_sass_pass(art, use_cache: bool = True):
    """The artifact (runtime.compiler.Artifact) with its cubin rewritten by the pass (cached
    on disk by the input cubin's digest, the pass's code and PASS_VERSION); the report rides
    along as Artifact.sass_pass, ptxas's cubin as Artifact.cubin_before_pass.  A stream-K
    module's work-list kernel (source.ranges) is rewritten too, after the main kernel; the
    report is the main kernel's, the other's in report.others."""
    digest = hashlib.sha256(art.cubin).hexdigest()
    key = _cache.cache_key(digest + art.name, art.arch, ("sass-pass", bank_pass.code_digest()),
                           f"regtile-sass-pass {bank_pass.PASS_VERSION}")
    hit = _cache.load(key) if use_cache else None
    if hit is not None:
        cubin, report = hit.cubin, bank_pass.PassReport(**json.loads(hit.ptx))
        report.renaming = {int(a): b for a, b in report.renaming.items()}
    else:
        cubin, report = bank_pass.run_pass(art.cubin, art.name, art.arch)
        ranges = getattr(art.source, "ranges", None)
        if ranges is not None:
            cubin, other = bank_pass.run_pass(cubin, ranges.name, art.arch)
            report.others = {ranges.name: other.to_dict()}
        if use_cache:
            _cache.store(key, _cache.Entry(ptx=json.dumps(dataclasses.asdict(report)), cubin=cubin, log=""))
    return dataclasses.replace(art, cubin=cubin, cubin_before_pass=art.cubin, sass_pass=report)
