"""Kernel choice for regtile.sgemm and its plans: what `regtile tune` stored for the shape on this
GPU (the tuning database, read once per process), else the shape heuristic's family member
(codegen/heuristic.py), generated for the operands' layouts and batch.  Used by runtime/plans.py
(a plan's kernel) and runtime/gemm.py (regtile.sgemm), and by `regtile run` to name the choice."""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from ..codegen.config import SgemmConfig
from . import driver
from .errors import InputError


def _arch_of_device() -> str:
    from ..codegen.hardware import SUPPORTED_ARCHS
    arch = driver.device().arch
    if arch not in SUPPORTED_ARCHS:
        raise InputError(f"the GPU is {arch}; regtile builds for {', '.join(SUPPORTED_ARCHS)}")
    return arch


def default_sgemm_kernel(m: int, n: int, arch: str, sms: int, k: int = 4096, trans_a: bool = False,
                         trans_b: bool = False, batch: int = 0, aligned: Optional[bool] = None) -> Tuple[SgemmConfig, str]:
    """(config, backend) when nothing is tuned for the shape: the shape heuristic's family member
    (codegen/heuristic.py: a decision table fitted on the H100 sweep, a model elsewhere, a
    batched member (codegen/batch_choice.py) for batch > 1; sm_80..89 keep the zorder preset
    through CUDA C), generated for the layouts.  `k` defaults for callers that know only M x N;
    `aligned`: whether the operands' rows are 16-byte aligned (heuristic.rows_aligned; None: packed operands)."""
    if batch > 1:
        from ..codegen.batch_choice import choose_batched
        return choose_batched(m, n, max(k, 1), batch, arch, sms, trans_a, trans_b)
    from ..codegen.heuristic import choose_kernel
    return choose_kernel(m, n, k, arch, sms, trans_a, trans_b, aligned)


_tuned_tables: Dict[str, Dict[str, tuple]] = {}


def _tuned(device_name: str) -> Dict[str, tuple]:
    """The tuning database of this device, read once per process: shape "MxNxK" ->
    (ms, config, backend) of its fastest correct entry on either backend."""
    table = _tuned_tables.get(device_name)
    if table is None:
        from .tuning_db import entries
        table = {}
        try:
            for backend in ("cuda", "ptx"):
                for cfg, shapes in entries(device_name, backend):
                    for shape, r in shapes.items():
                        if r and r.get("ok") and r.get("ms") and (shape not in table or r["ms"] < table[shape][0]):
                            table[shape] = (r["ms"], cfg, backend)
        except Exception:  # an unreadable tuning store is no reason to refuse the GEMM
            pass
        _tuned_tables[device_name] = table
    return table


def tuned_entry(m: int, n: int, k: int) -> Optional[tuple]:
    """(ms, config, backend) that `regtile tune` stored for M x N x K on this GPU, or None."""
    return _tuned(driver.device().name).get(f"{m}x{n}x{k}")


def choose_sgemm_kernel(m: int, n: int, k: int, arch: str, trans_a: bool = False, trans_b: bool = False,
                        batch: int = 0, lda: Optional[int] = None,
                        ldb: Optional[int] = None, ldc: Optional[int] = None) -> Tuple[SgemmConfig, str]:
    """The fastest config `regtile tune` stored for this shape and device on either backend
    (tuned on single row-major GEMMs: used for every layout, not for batches; the store is
    read once per process: clear_caches() forgets it), else default_sgemm_kernel.  The
    config comes generated for the layouts and the batch (codegen/layouts.with_layout) and
    for the leading dimensions (the member from the table's entries of the rows' class, heuristic.rows_aligned;
    operand_forms.for_rows: the unaligned rows' copies where lda or ldb
    is not a multiple of 4; default: packed operands, lda = K or M, ldb = N or K, ldc = N) and C's columns
    (operand_forms.for_columns: the last column fused where N % BN == 1), C's rows (for_c) and the fused
    kernel's lean copies (for_lean_copies: off where no block can run them)."""
    from ..codegen.heuristic import leading_dims, rows_aligned
    from ..codegen.layouts import with_layout
    from ..codegen.operand_forms import for_operands
    lda, ldb, ldc = leading_dims(m, n, k, trans_a, trans_b, lda, ldb, ldc)
    hit = tuned_entry(m, n, k) if batch <= 1 else None
    if hit is not None:
        cfg, backend = with_layout(hit[1], trans_a, trans_b), hit[2]
    else:
        cfg, backend = default_sgemm_kernel(m, n, arch, driver.device().sm_count, k, trans_a, trans_b, batch,
                                            rows_aligned(m, n, k, lda=lda, ldb=ldb, ldc=ldc))
    return for_operands(cfg, backend, lda, ldb, m, n, ldc, k), backend


def forget_tuned() -> None:
    """Read the tuning database again on the next choice (after `regtile tune` in-process)."""
    _tuned_tables.clear()
