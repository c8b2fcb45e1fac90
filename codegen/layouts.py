"""A member's config generated for the operands' layouts (op(A) = A^T, op(B) = B^T) and for the batched kernel:
what changes in the tile (pad_b for B^T, the FFMA order of TN's large kernel, the batched form's switches) and the
one register refusal it steps around.  The heuristic (codegen/heuristic.py) chooses the member; this spells it for
the layout.
"""
from __future__ import annotations

from .config import ConfigError, SgemmConfig

# TN runs the large-shape kernel (128x256 8x16, SASS pass) with the swirl FFMA order.  Nsight
# Compute (H100, 2026-11-25, f141e16, docs/layouts.md): with zigzag, TN's whole-tile kernel
# issued the same instructions as NN's but stalled at the barrier 9x as often (0.114 vs 0.012
# warps a issued instruction), issue active 83.9% vs 86.8%, 2.06 vs 2.00 ms at 4096^3 - ptxas
# schedules the A^T copy's loop differently.  Of 14 TN candidates (tiles 128x256 / 256x128 /
# 128x128, bk 16, pads, stream-K off, a grouped tile order, FFMA orders, warp layouts), swirl
# was the fastest at both sizes: 1.017 / 1.001x cuBLAS's TN at 4096^3 / 8192^3 against
# 0.993 / 0.970x with zigzag (lab/experiments/tn_batched_sweep.py), and through regtile.sgemm
# 1.012 / 0.997x against 0.988 / 0.969x (ee43c8b, benchmarks/callpath_bench.py): at 8192^3 it
# ties cuBLAS's TN kernel (cutlass 256x128 nt), as fast as regtile's NN there.  The other layouts
# keep zigzag (measured >= 1.0x with it).
SWIRL_TN_TILE = (128, 256, 8, 16)


def with_layout(cfg: SgemmConfig, trans_a: bool, trans_b: bool, batched: bool = False) -> SgemmConfig:
    """`cfg` generated for op(A), op(B) (and, batched, as the batched kernel: blockIdx.z is the
    batch entry, so split-K, stream-K and the edge split, whose work is per matrix, are off).

    trans_b: with pad_b=4 where the config takes it: B^T lands in Bs a float at a time, lanes
    2t and 2t+1 four rows apart, one bank; four floats of padding make those stores
    conflict-free in every member (codegen/smem_banks.py; e.g. 128x128: 4 conflicts a warp
    k-tile -> 0, 64x64: 64 -> 32) and docs/layouts.md measured NT at 4096^3 / 8192^3 1.012 /
    1.032x cuBLAS with it against 1.007 / 1.017 without.

    TN (op(A) = A^T, op(B) = B) on the 128x256 8x16 kernel with the SASS pass: the swirl FFMA
    order (SWIRL_TN_TILE).

    The one real refusal: the register rule refuses B^T's extra copy register at min_blocks=2
    on the 128x128 8x8 tiles (129 estimated against a cap of 128: the zorder preset spilled 20
    bytes there as NT, codegen/config.register_estimate).  Such a member runs at min_blocks=1,
    its registers then uncapped; any other ConfigError is raised."""
    fields = {"trans_a": bool(trans_a), "trans_b": bool(trans_b)}
    keep_edges = None
    if batched:
        # without the edge tiles' vector path: the 128x128 member with it spilled batched at
        # min_blocks=2, and at min_blocks=1 ran 16 x 512^3 / 8 x 1024x1024x64 at 0.898 / 0.983x
        # torch.bmm (H100, 2026-11-25, ae2143a).  The SASS pass stays: the same 128x128 kernel at
        # min_blocks=2 ran 1.007 / 1.071x torch.bmm with it against 0.996 / 1.060x without
        # (H100, 2026-11-25, f141e16, lab/experiments/tn_batched_sweep.py), 0.985 / 1.060x
        # against 0.973 / 1.059x through regtile.sgemm (ee43c8b; docs/layouts.md).
        # Nor the edge clamp (session 8): that member at min_blocks=2 spilled 4 bytes batched with it.
        # Since session 45 every member at one block an SM (all but that one, and it too where B^T's register rule
        # takes it to one block) keeps its edge clamp and vector path batched (tried first, below):
        # without them every tile across a ragged edge took the checked loads, and the batched choice's 64-wide tiles
        # on attention's 257 x 64 / 4096 x 40 outputs (every tile an edge tile) ran 0.56-0.85x torch.bmm (H200,
        # docs/data/session45/c_6fa0f05).
        fields.update(batched=True, stream_k=False, split_k=1, edge_split=False, edge_vector_path=False,
                      edge_clamp=False)
        if cfg.edge_clamp:
            keep_edges = {"edge_clamp": True, "edge_vector_path": cfg.edge_vector_path}
    elif (trans_a and not trans_b and cfg.sass_pass and cfg.ffma_order == "zigzag"
          and (cfg.bm, cfg.bn, cfg.tm, cfg.tn) == SWIRL_TN_TILE):
        fields["ffma_order"] = "swirl"
    base = [fields]
    if trans_b and cfg.pad_b == 0 and cfg.stages and cfg.vec == 4:
        base.insert(0, dict(fields, pad_b=4))
    edge_forms = [keep_edges, {}] if keep_edges else [{}]  # a batched form: with its edges first
    if cfg.min_blocks > 1:
        # at its own min_blocks a batched form has no edges (they spilled); at one block an SM (B^T's register rule)
        # it keeps them: they no longer spill there
        tries = base + [dict(f, min_blocks=1, **e) for e in edge_forms for f in base]
    else:
        tries = [dict(f, **e) for e in edge_forms for f in base]
    first = None
    for f in tries:
        changes = {name: v for name, v in f.items() if getattr(cfg, name) != v}
        try:
            return cfg.replace(**changes) if changes else cfg
        except ConfigError as e:
            first = first or e
    raise first
