"""CUDA C backend for SGEMV: lays a SgemvConfig out through templates/sgemv.cu.j2.

The unrolled loop body (which loads are in flight, which partial sum each feeds)
and the shuffle reduction are decided here; the template places the lines.
"""
from __future__ import annotations

import hashlib
from typing import List

from .kernel import KernelSource, LaunchGeometry
from .sgemv_config import SgemvConfig
from .templates import render

SGEMV_PARAMS = (
    ("M", "int"), ("N", "int"), ("alpha", "float"),
    ("A", "const float*"), ("lda", "int"),
    ("x", "const float*"),
    ("beta", "float"), ("y", "float*"),
)
_XYZW = "xyzw"


def kernel_name(cfg: SgemvConfig) -> str:
    digest = hashlib.sha1(repr(sorted(cfg.to_dict().items())).encode()).hexdigest()[:10]
    return f"regtile_sgemv_r{cfg.rows_per_warp}_v{cfg.vec}_{digest}"


def _vector_body(cfg: SgemvConfig) -> List[str]:
    """One step of the float4 loop: `unroll` loads of A and x in flight, then the
    FMAs, each load feeding its own partial sum (independent dependency chains)."""
    L, U = cfg.lanes_per_row, cfg.unroll
    lines = [f"const float4 va{u} = __ldcs(a4 + i + {u * L}); const float4 vx{u} = __ldg(x4 + i + {u * L});"
             for u in range(U)]
    for u in range(U):
        for c in _XYZW:
            lines.append(f"s{u} = fmaf(va{u}.{c}, vx{u}.{c}, s{u});")
    return lines


def _scalar_body(cfg: SgemvConfig) -> List[str]:
    L, U = cfg.lanes_per_row, cfg.unroll
    lines = [f"const float va{u} = __ldcs(a + j + {u * L}); const float vx{u} = __ldg(x + j + {u * L});"
             for u in range(U)]
    lines += [f"s{u} = fmaf(va{u}, vx{u}, s{u});" for u in range(U)]
    return lines


def _reduction(cfg: SgemvConfig) -> List[str]:
    """Sum over the lanes of one row: xor shuffles with offsets below lanes_per_row
    stay inside each row's aligned group of lanes."""
    lines, off = [], cfg.lanes_per_row // 2
    while off >= 1:
        lines.append(f"sum += __shfl_xor_sync(0xffffffffu, sum, {off});")
        off //= 2
    return lines


def emit_sgemv_cuda(cfg: SgemvConfig) -> KernelSource:
    name = kernel_name(cfg)
    text = render(
        "sgemv.cu.j2",
        name=name,
        header=[f"regtile SGEMV kernel {name}",
                "y = alpha * A @ x + beta * y; A (M x N) row-major with leading dimension lda.",
                f"config: {cfg.describe()}",
                f"launch: block ({cfg.threads}, 1, 1), grid (ceil(M/{cfg.rows_per_block}), 1, 1)"],
        threads=cfg.threads,
        params=", ".join(f"{ctype} {'__restrict__ ' if '*' in ctype else ''}{pname}"
                         for pname, ctype in SGEMV_PARAMS),
        warps_per_block=cfg.warps_per_block,
        rows_per_warp=cfg.rows_per_warp,
        lanes=cfg.lanes_per_row,
        unroll=cfg.unroll,
        vec=cfg.vec,
        sums=", ".join(f"s{u} = 0.f" for u in range(cfg.unroll)),
        total=" + ".join(f"s{u}" for u in range(cfg.unroll)),
        vector_body=_vector_body(cfg) if cfg.vec == 4 else [],
        scalar_body=_scalar_body(cfg),
        reduction=_reduction(cfg),
    )
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=cfg.rows_per_block, tile_n=0, dynamic_smem_bytes=0,
                         whole_rows=True)
    return KernelSource(name=name, language="cuda", text=text, geometry=geo, params=SGEMV_PARAMS)
