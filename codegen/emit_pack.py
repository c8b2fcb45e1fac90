"""The repack copy kernel's module (codegen/repack.py decides where it runs; templates/pack_rows.cu.j2 lays it out)."""
from __future__ import annotations

from .kernel import KernelSource, LaunchGeometry, c_params
from .repack import PackConfig
from .templates import render

# Each operand's copy: S the operand as stored (a per-call pointer), D its padded copy in the plan's workspace, its rows,
# their length and leading dimensions, and the blocks a row takes (repack.Repack.args)
PACK_PARAMS = tuple(param for op in ("a", "b") for param in (
    (f"S{op.upper()}", "const float*"), (f"D{op.upper()}", "float*"), (f"rows_{op}", "int"), (f"len_{op}", "int"),
    (f"lds_{op}", "int"), (f"ldd_{op}", "int"), (f"chunks_{op}", "int")))


def emit_pack_cuda(cfg: PackConfig) -> KernelSource:
    """One plain launch for both copies (no PDL: the GEMM after it waits for its copies as a programmatic dependent,
    or in stream order); grid (rows_a chunks_a + rows_b chunks_b, 1, 1): repack.Repack.grid."""
    name = f"regtile_pack_rows_t{cfg.threads}"
    text = render("pack_rows.cu.j2", name=name, threads=cfg.threads, params=c_params(PACK_PARAMS),
                  header=f"regtile {cfg.describe()}; grid (rows_a chunks_a + rows_b chunks_b, 1, 1), chunks: "
                         f"ceil(ldd / {4 * cfg.threads})")
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=1, tile_n=4 * cfg.threads, dynamic_smem_bytes=0)
    return KernelSource(name=name, language="cuda", text=text, geometry=geo, params=PACK_PARAMS)
