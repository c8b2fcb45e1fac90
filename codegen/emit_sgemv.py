"""CUDA C backend for SGEMV: lays a SgemvConfig out through templates/sgemv.cu.j2.

Decided here: which rows each warp serves (row groups), which loads are in flight
together (unroll along a row, or across row groups for short rows), which partial
sum each load feeds, and the shuffle reduction; the template places the lines.
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


def _sums(cfg: SgemvConfig, g: int) -> List[str]:
    return [f"s{g}_{u}" for u in range(cfg.unroll)]


def _group_setup(cfg: SgemvConfig) -> List[str]:
    lines = []
    for g in range(cfg.row_groups):
        lines += [f"const int row{g} = base + {g * cfg.rows_per_warp};",
                  f"const bool active{g} = row{g} < M;  // inactive lanes still take part in the shuffles",
                  f"const float* const a{g} = A + (size_t)(active{g} ? row{g} : 0) * lda;",
                  "float " + ", ".join(f"{s} = 0.f" for s in _sums(cfg, g)) + ";"]
    return lines


def _short_rows(cfg: SgemvConfig) -> List[str]:
    """Rows of at most one float4 a lane: every group's load first, then the FMAs."""
    G = cfg.row_groups
    lines = ["const bool mine = sub < nv;",
             "const float4 vx = mine ? __ldg(reinterpret_cast<const float4*>(x) + sub) : make_float4(0.f, 0.f, 0.f, 0.f);"]
    lines += [f"const float4 va{g} = (mine && active{g}) ? __ldcs(reinterpret_cast<const float4*>(a{g}) + sub) "
              f": make_float4(0.f, 0.f, 0.f, 0.f);" for g in range(G)]
    for g in range(G):
        lines += [f"s{g}_0 = fmaf(va{g}.{c}, vx.{c}, s{g}_0);" for c in _XYZW]
    return lines


def _vector_body(cfg: SgemvConfig, g: int) -> List[str]:
    """One step of the float4 loop of group g: `unroll` loads of A and x in flight,
    then the FMAs, each load feeding its own partial sum."""
    L, U = cfg.row_lanes, cfg.unroll
    lines = [f"const float4 va{u} = __ldcs(a4 + i + {u * L}); const float4 vx{u} = __ldg(x4 + i + {u * L});"
             for u in range(U)]
    for u in range(U):
        lines += [f"s{g}_{u} = fmaf(va{u}.{c}, vx{u}.{c}, s{g}_{u});" for c in _XYZW]
    return lines


def _scalar_body(cfg: SgemvConfig, g: int) -> List[str]:
    L, U = cfg.row_lanes, cfg.unroll
    lines = [f"const float va{u} = __ldcs(a{g} + j + {u * L}); const float vx{u} = __ldg(x + j + {u * L});"
             for u in range(U)]
    return lines + [f"s{g}_{u} = fmaf(va{u}, vx{u}, s{g}_{u});" for u in range(U)]


def _reduction(cfg: SgemvConfig, g: int) -> List[str]:
    """Sum over the lanes of one row: xor shuffles with offsets below lanes_per_row
    stay inside each row's aligned group of lanes."""
    lines = [f"float sum = {' + '.join(_sums(cfg, g))};"]
    off = cfg.lanes_per_row // 2
    while off >= 1:
        lines.append(f"sum += __shfl_xor_sync(0xffffffffu, sum, {off});")
        off //= 2
    S = cfg.warps_per_row
    if S > 1:
        # the row's warps meet in shared memory; the first of them stores y
        lines += ["__shared__ float partial[%d];" % cfg.warps_per_block,
                  "if (lane == 0) partial[warp] = sum;",
                  "__syncthreads();",
                  f"if (warp % {S} == 0) {{",
                  "    sum = " + " + ".join(f"partial[warp + {w}]" for w in range(S)) + ";",
                  f"    if (active{g} && lane == 0) y[row{g}] = alpha * sum + (beta != 0.f ? beta * y[row{g}] : 0.f);",
                  "}"]
        return lines
    lines.append(f"if (active{g} && sub == 0) y[row{g}] = alpha * sum + (beta != 0.f ? beta * y[row{g}] : 0.f);")
    return lines


def emit_sgemv_cuda(cfg: SgemvConfig) -> KernelSource:
    name = kernel_name(cfg)
    L, U, S = cfg.row_lanes, cfg.unroll, cfg.warps_per_row
    groups = [dict(g=g, vector_body=_vector_body(cfg, g), scalar_body=_scalar_body(cfg, g),
                   reduction=_reduction(cfg, g)) for g in range(cfg.row_groups)]
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
        base=(f"(blockIdx.x * {cfg.warps_per_block} + warp) * {cfg.row_groups * cfg.rows_per_warp} "
              f"+ lane / {cfg.lanes_per_row}") if S == 1 else
             f"blockIdx.x * {cfg.warps_per_block // S} + warp / {S}",
        sub=f"lane % {cfg.lanes_per_row}" if S == 1 else f"(warp % {S}) * 32 + lane",
        rows_per_warp=cfg.rows_per_warp, row_groups=cfg.row_groups, lanes=L, unroll=U, vec=cfg.vec,
        step_vec=U * L, last_vec=(U - 1) * L,
        group_setup=_group_setup(cfg),
        short_rows=_short_rows(cfg) if cfg.vec == 4 else [],
        groups=groups,
    )
    geo = LaunchGeometry(block=(cfg.threads, 1, 1), tile_m=cfg.rows_per_block, tile_n=0, dynamic_smem_bytes=0,
                         whole_rows=True)
    return KernelSource(name=name, language="cuda", text=text, geometry=geo, params=SGEMV_PARAMS)
