"""The kernels tests/codegen/test_family_golden.py pins: every FAMILY member on its own backend,
and on the other where it emits; the CUDA C members split (split_k 2, 3); the PTX members
without stream-K / edge split, and a few members in the other layouts (trans_a, trans_b) and
batched; the fused split-K members (backend fusedk) unsplit and split 4 ways, and split in NT, TN and TT; the PTX
members with
the unaligned rows' copies or vector floats (operand_forms.for_rows), one of them TN.
`python3 tests/family_cases.py > tests/codegen/family_golden.json` rewrites the digests (do it only for a deliberate change of the kernels' text, and say why)."""
from __future__ import annotations

import hashlib
import json
from typing import Dict, Optional, Tuple

from regtile.codegen.config import ConfigError, SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.ptx_arch import PDL_MARK
from regtile.codegen.operand_forms import for_rows
from regtile.codegen.presets import FAMILY, PRESETS

_OTHER = {"cuda": "ptx", "ptx": "cuda"}
_LAYOUT_MEMBERS = ("wide-128x256", "sq-128x128", "sq-64x64", "plain-32x32", "skinny-n16-k32",
                   "splitk-64x64", "splitk-128x32", "cuda-zorder")
_LAYOUTS = {"NT": dict(trans_b=True), "TN": dict(trans_a=True), "TT": dict(trans_a=True, trans_b=True)}


def _for_cuda(cfg: SgemmConfig) -> SgemmConfig:
    """A PTX member's config as the CUDA C backend emits it: without the PTX-only edge clamp
    (session 8) and loop-head hoist (session 21), so that these cases keep pinning the CUDA C text
    of the member's tile."""
    return cfg.replace(edge_clamp=False, hoist_head=False)


def cases() -> Dict[str, Tuple[SgemmConfig, str]]:
    out: Dict[str, Tuple[SgemmConfig, str]] = {}
    for name, m in FAMILY.items():
        if m.backend == "fusedk":  # the fused split-K members: their own template, one launch; split 1 and 4
            out[f"fusedk:{name}"] = (m.config, "fusedk")
            out[f"fusedk:{name}:split4"] = (m.config.replace(split_k=4), "fusedk")
            for lay, kw in _LAYOUTS.items():  # A^T and B^T in their own stage forms (session 33)
                out[f"fusedk:{name}:split4:{lay}"] = (m.config.replace(split_k=4), "fusedk", kw)
            continue
        if m.backend not in _OTHER:
            continue
        cfg = m.config
        out[f"{m.backend}:{name}"] = (cfg, m.backend)
        plain = cfg.replace(stream_k=False, edge_split=False)
        out[f"{_OTHER[m.backend]}:{name}:plain"] = (_for_cuda(plain) if m.backend == "ptx" else plain, _OTHER[m.backend])
        if m.backend == "cuda":
            for s in (2, 3):
                out[f"cuda:{name}:split{s}"] = (cfg.replace(split_k=s), "cuda")
        else:
            out[f"ptx:{name}:plain"] = (plain, "ptx")
    for name in _LAYOUT_MEMBERS:
        cfg = FAMILY[name].config
        for lay, kw in _LAYOUTS.items():
            for backend in ("cuda", "ptx"):
                c = cfg if backend == "ptx" else _for_cuda(cfg.replace(stream_k=False, edge_split=False))
                out[f"{backend}:{name}:{lay}"] = (c, backend, kw)
                if name in ("sq-64x64", "cuda-zorder", "splitk-128x32"):
                    out[f"{backend}:{name}:{lay}:batched"] = (c, backend, dict(kw, batched=True))
    for name, m in FAMILY.items():  # the unaligned rows' copies, where operand_forms.for_rows gives them
        if m.backend == "ptx" and for_rows(m.config, "ptx", 1023, 1025).unaligned_rows:
            held = for_rows(m.config, "ptx", 1023, 1025).max_registers  # tall-128x64-k16's cap, as the plans run it
            out[f"ptx:{name}:unaligned"] = (m.config, "ptx", dict(unaligned_rows=True, **({"max_registers": held} if held else {})))
        elif m.backend == "ptx" and for_rows(m.config, "ptx", 1023, 1025).unaligned_vectors:
            out[f"ptx:{name}:unaligned"] = (m.config, "ptx", dict(unaligned_vectors=True))
    out["ptx:sq-64x64:TN:unaligned"] = (FAMILY["sq-64x64"].config, "ptx", dict(trans_a=True, unaligned_rows=True))
    for backend in ("cuda", "ptx"):
        for pname in ("zorder", "vec4", "naive", "tile1d"):
            out[f"{backend}:preset-{pname}:batched"] = (PRESETS[pname].config, backend, dict(batched=True))
    return out


def make(case) -> Tuple[SgemmConfig, str]:
    cfg, backend, *kw = case
    if kw:
        cfg = cfg.replace(**{k: v for k, v in kw[0].items()}
                          | ({"stream_k": False, "edge_split": False, "split_k": 1,
                              "edge_vector_path": False} if kw[0].get("batched") else {}))
    return cfg, backend


def without_pdl(text: str) -> str:
    """A kernel's text less its programmatic-dependent-launch lines (PTX kernels since session 7,
    emit_ptx.pdl_entry, each marked PDL_MARK): the pinned digests were taken before them, so that
    they still show every other line unchanged."""
    return "".join(line for line in text.splitlines(keepends=True) if PDL_MARK not in line)


def digest(case) -> Optional[str]:
    """sha256 of the emitted text (without_pdl), or None where the backend refuses the config."""
    try:
        cfg, backend = make(case)
        return hashlib.sha256(without_pdl(emit(cfg, backend).text).encode()).hexdigest()
    except ConfigError:
        return None


if __name__ == "__main__":
    print(json.dumps({k: digest(c) for k, c in sorted(cases().items())}, indent=1, sort_keys=True))
