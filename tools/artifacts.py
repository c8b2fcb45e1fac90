"""What `gen` writes and `inspect` prints: the artifacts of every stage of one kernel."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional

from ..codegen.config import SgemmConfig
from ..codegen.emit import AnyConfig, emit, kernel_kind
from ..codegen.kernel import KernelSource
from ..sass import disasm as _sass
from ..runtime.compiler import Artifact, check_spill_free, compile_source, parse_ptxas_report


@dataclass(frozen=True)
class Built:
    label: str  # preset name or "custom"
    config: AnyConfig
    source: KernelSource
    artifact: Artifact
    sass_text: str
    sass: _sass.SassFunction
    backend: str = "cuda"  # "cuda" (CUDA C, NVRTC) or "ptx" (PTX, nvJitLink)

    def loop_mix(self) -> Dict[str, int]:
        return _sass.instruction_mix(self.sass.loop_instructions())

    def _ffma_expected(self):
        """FFMAs the plan puts in one main-loop iteration (SGEMM: one k-tile)."""
        c = self.config
        if not isinstance(c, SgemmConfig):
            return None
        return c.bk * c.tm * c.tn if c.stages else c.tm * c.tn

    def summary(self) -> dict:
        res = self.artifact.resources
        loop = self.loop_mix()
        return {
            "label": self.label,
            "kind": kernel_kind(self.config),
            "backend": self.backend,
            "kernel": self.source.name,
            "arch": self.artifact.arch,
            "compiler": self.artifact.compiler,
            "config": self.config.to_dict(),
            "launch": self.source.geometry.to_dict(),
            "resources": res.to_dict(),
            "main_loop": {"instruction_mix": loop,
                          "ffma_per_ktile_expected": self._ffma_expected()},
            "whole_kernel": {"instruction_mix": _sass.instruction_mix(self.sass.instructions)},
            "entries": [{"role": role, "kernel": src.name, "launch": src.geometry.to_dict()}
                        for role, src in self.source.kernels()[1:]],
            **({"reduce": self.reduce_summary()} if self.source.reduce is not None else {}),
            **({"edge": self.edge_summary()} if getattr(self.source, "edge", None) is not None else {}),
            **({"sass_pass": self.artifact.sass_pass.to_dict()} if self.artifact.sass_pass is not None else {}),
        }

    def reduce_summary(self) -> dict:
        """Split-K: the reduce kernel compiled into the same module (its ptxas report is
        in the same log), launched after the main kernel."""
        red = self.source.reduce
        return {"kernel": red.name, "params": [p for p, _ in red.params], "launch": red.geometry.to_dict(),
                "resources": parse_ptxas_report(self.artifact.log, red.name).to_dict()}


    def edge_summary(self) -> dict:
        """Edge split: the small-tile kernel (and its stream-K ranges) compiled into the same
        module, launched on C's ragged edges where codegen/edges.py splits M x N."""
        from ..codegen.edges import edge_config
        edge = self.source.edge
        return {"kernel": edge.name, "ranges_kernel": edge.ranges.name, "config": edge_config().to_dict(),
                "launch": edge.geometry.to_dict(),
                "resources": parse_ptxas_report(self.artifact.log, edge.name).to_dict(),
                "ranges_resources": parse_ptxas_report(self.artifact.log, edge.ranges.name).to_dict()}


def build(label: str, cfg: AnyConfig, arch: str, use_cache: bool = True, backend: str = "cuda",
          allow_spills: bool = True) -> Built:
    """Every stage's artifact.  Looking at a spilling kernel is allowed by default (`inspect`
    reports SPILLS); `gen` asks for allow_spills=False unless --allow-spills."""
    src = emit(cfg, backend)
    art = compile_source(src, arch, use_cache=use_cache)
    if not allow_spills:
        check_spill_free(art, cfg)
    text, func = _sass.function_of(art.cubin, src.name)
    return Built(label, cfg, src, art, text, func, backend)


def write_all(built: Built, out: Path, stem: Optional[str] = None) -> Dict[str, Path]:
    """Write NAME.cu (CUDA C backend only), NAME.ptx, NAME.cubin, NAME.sass and NAME.json
    into `out`, each through a temporary file and a rename, so no half-written file is
    left behind.  For the PTX backend NAME.ptx is the source as compiled (its target arch).
    With the SASS pass, NAME.cubin/.sass are the rewritten kernel and NAME.ptxas.cubin/.sass
    ptxas's own."""
    stem = stem or built.label
    files = {} if built.source.language != "cuda" else {".cu": built.source.text.encode()}
    files.update({
        ".ptx": built.artifact.ptx.encode(),
        ".cubin": built.artifact.cubin,
        ".sass": built.sass_text.encode(),
        ".json": (json.dumps(built.summary(), indent=2) + "\n").encode(),
    })
    if built.artifact.cubin_before_pass is not None:  # the SASS pass ran: ptxas's own cubin too
        files[".ptxas.cubin"] = built.artifact.cubin_before_pass
        files[".ptxas.sass"] = _sass.disassemble(built.artifact.cubin_before_pass).encode()
    mode = 0o666 & ~_umask()  # what open() would give: mkstemp's files are 0600
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for suffix, data in files.items():
        dest = out / f"{stem}{suffix}"
        fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{stem}", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, mode)
            os.replace(tmp, dest)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written[suffix] = dest
    return written


def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it: put it straight back
    os.umask(mask)
    return mask
