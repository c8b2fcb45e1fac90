"""The repack copy kernel's module (codegen/repack.py decides where it runs; templates/pack_rows.cu.j2 lays it out)."""
from __future__ import annotations

from .kernel import KernelSource, LaunchGeometry, c_params
from .repack import PackConfig
from .templates import render

# S: the operand as stored (a per-call pointer), D: its padded copy in the plan's workspace
PACK_PARAMS = (("S", "const float*"), ("D", "float*"), ("rows", "int"), ("len", "int"), ("lds", "int"),
               ("ldd", "int"))


def emit_pack_cuda(cfg: PackConfig) -> KernelSource:
    """Plain launches (no PDL: the GEMM after it waits for its copies as a programmatic dependent, or in stream
    order); grid (ceil(ldd / (4 threads)), min(rows, 65535), 1): repack.OperandCopy.grid."""
    name = f"regtile_pack_rows_t{cfg.threads}"
    text = render("pack_rows.cu.j2", name=name, threads=cfg.threads, params=c_params(PACK_PARAMS),
                  header=f"regtile {cfg.describe()}; grid (ceil(ldd / {4 * cfg.threads}), min(rows, 65535), 1)")
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=1, tile_n=4 * cfg.threads, dynamic_smem_bytes=0)
    return KernelSource(name=name, language="cuda", text=text, geometry=geo, params=PACK_PARAMS)
