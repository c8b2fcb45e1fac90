"""The few-vector main kernels' L2 prefetch before their PDL wait (FewVecTConfig / FewVecNConfig
prefetch_steps, the rule's fewvec_config.PREFETCH_STEPS), read from the real sm_90 cubin: the
prefetches (CCTL.E.PF2) all come before griddepcontrol.wait (ACQBULK), and every global load after
it - the loads, which read what the kernel before may have written, never move ahead of the wait.
Session 13 measured the rule's 2 steps faster than none on all 14 few-vector shapes timed on the H100."""
from dataclasses import replace

import pytest

from regtile.codegen.emit import emit
from regtile.codegen.fewvec_config import PREFETCH_STEPS, FewVecNConfig, choose_fewvec
from regtile.runtime.compiler import compile_source
from regtile.runtime.fewvec import rule_config
from regtile.runtime.sass import function_of
from tiers import tiered


def _main_kernel(cfg):
    src = emit(cfg, "cuda")
    return function_of(compile_source(src, "sm_90").cubin, src.name)[1].instructions


def _prefetches_per_thread(cfg) -> int:
    rows = cfg.row_groups if isinstance(cfg, FewVecNConfig) else 1
    return cfg.prefetch_steps * cfg.unroll * rows


# op T 9-16 vectors: through shared memory (smem_vectors), whose first staged read ptxas once moved above the wait
@pytest.mark.parametrize("rows, cols, op, vectors", tiered(
    [(4096, 4096, "T", 8), (65536, 1024, "T", 4), (2048, 32768, "N", 16), (8192, 8192, "N", 8), (4096, 4096, "T", 16),
     (4096, 4096, "T", 12), (65536, 1024, "T", 9)],
    fast={(4096, 4096, "T", 8), (2048, 32768, "N", 16), (4096, 4096, "T", 16)}))  # op T, op N, shared memory
def test_the_rules_kernels_prefetch_before_the_wait_and_load_after_it(rows, cols, op, vectors):
    cfg = rule_config(rows, cols, op, vectors, "sm_90")
    assert cfg.prefetch_steps == PREFETCH_STEPS > 0
    ins = _main_kernel(cfg)
    wait = [j for j, i in enumerate(ins) if i.base == "ACQBULK"]
    assert len(wait) == 1, [i.text for i in ins if i.base == "ACQBULK"]
    prefetch = [j for j, i in enumerate(ins) if i.opcode.startswith("CCTL.E.PF2")]
    loads = [j for j, i in enumerate(ins) if i.base == "LDG"]
    assert len(prefetch) == _prefetches_per_thread(cfg)
    assert max(prefetch) < wait[0] < min(loads)


def test_without_prefetch_steps_the_kernel_waits_first():
    cfg = replace(choose_fewvec(2048, 32768, "N", 16), prefetch_steps=0)
    ins = _main_kernel(cfg)
    assert not any(i.opcode.startswith("CCTL") for i in ins)
    wait = next(j for j, i in enumerate(ins) if i.base == "ACQBULK")
    assert all(i.base not in ("LDG", "STG") for i in ins[:wait])
