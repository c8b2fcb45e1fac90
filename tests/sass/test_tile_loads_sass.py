"""A k-tile's float4 loads in the sm_90 SASS of the PTX members (codegen/ptx_tile_loads.py), read from the
real cubin: where both operands take the tile guard, one test covers both operands' float4 loads
(both_float4), so ptxas predicates them behind one ISETP.  Each operand on its own test and branch
waited 11-13 cycles on a PLOP3 -> BRA every k-tile (session 11: 4096^3 2636.7 -> 2607.8 us on the H100)."""
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_source
from regtile.runtime.sass import function_of
from tiers import tiered


def _loop_head(cfg):
    """The main loop's instructions before its first FFMA (the next k-tile's loads)."""
    src = emit(cfg, "ptx")
    _, func = function_of(compile_source(src, "sm_90").cubin, src.name)
    lo, hi = func.main_loop()
    body = [i for i in func.instructions if lo <= i.offset <= hi]
    return body[:next(j for j, i in enumerate(body) if i.base == "FFMA")]


def _float4_path(head):
    """The loads of the interior path - the LDG.128s up to the first branch after one - and what precedes them."""
    first = next(j for j, i in enumerate(head) if i.base == "LDG")
    end = next(j for j in range(first, len(head)) if head[j].base == "BRA")
    return head[:first], [i for i in head[first:end] if i.base == "LDG"]


@pytest.mark.parametrize("name", tiered(["wide-128x256-noedge", "sq-128x128", "wide-64x128-k16"],
                                        fast={"wide-128x256-noedge"}))
def test_both_operands_float4_loads_sit_behind_one_test(name):
    cfg = FAMILY[name].config
    before, loads = _float4_path(_loop_head(cfg))
    copies = cfg.a_loads_per_thread + cfg.b_loads_per_thread
    assert len(loads) == copies and all(i.opcode.startswith("LDG.E.128") for i in loads), [i.text for i in loads]
    assert len({i.predicate for i in loads}) == 1, [f"{i.predicate} {i.text}" for i in loads]
    assert not any(i.base == "PLOP3" for i in before), [i.text for i in before]


@pytest.mark.slow
def test_per_operand_tests_would_fail_this_check():
    """The check above tells the two forms apart: with a test and branch per operand (lab both_float4_ab's
    per_operand) the first operand's float4 sits behind a PLOP3 alone."""
    from regtile.lab.experiments.both_float4_ab import per_operand
    cfg = FAMILY["wide-128x256-noedge"].config
    with per_operand():
        head = _loop_head(cfg)
    before, loads = _float4_path(head)
    assert any(i.base == "PLOP3" for i in before) or len(loads) < cfg.a_loads_per_thread + cfg.b_loads_per_thread
