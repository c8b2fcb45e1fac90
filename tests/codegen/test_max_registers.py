"""config.max_registers: a register cap on every entry of a PTX kernel (`.maxnreg`), what
operand_forms.for_columns holds the k16 members' fused-column kernels at.  Validation names each bound;
the CUDA backend refuses it; and every config for_columns holds - the two k16 members in the four
layouts, on aligned and unaligned rows - compiles for sm_90 without spilling at three blocks of 128
threads an SM, read from the real cubin."""
import re

import pytest

from regtile.codegen.config import ConfigError
from regtile.codegen.emit import emit
from regtile.codegen.layouts import with_layout
from regtile.codegen.operand_forms import LAST_COL_HELD, for_operands, held_cap, tile_of
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_config
from regtile.sass.cubin import kernel_info
from tiers import tiered

K16 = ("wide-64x128-k16", "tall-128x64-k16")


@pytest.mark.parametrize("value, says", [(100, "multiple of 8"), (120, "below 128"), (256, "above 248"),
                                         (-8, ">= 0")])
def test_validation_names_the_bound(value, says):
    with pytest.raises(ConfigError, match=f"max_registers={value}.*{says}"):
        FAMILY["tall-128x64-k16"].config.replace(max_registers=value)


def test_a_cap_beside_min_blocks_is_refused():
    with pytest.raises(ConfigError, match="beside min_blocks=2"):
        FAMILY["sq-128x128"].config.replace(max_registers=128)


def test_every_entry_carries_the_cap_and_cuda_refuses_it():
    cfg = FAMILY["tall-128x64-k16"].config.replace(max_registers=168)
    text = emit(cfg, "ptx").text
    assert len(re.findall(r"^\.maxntid", text, flags=re.M)) == len(re.findall(r"^\.maxnreg 168$", text, flags=re.M)) == 2
    assert ".maxnreg" not in emit(FAMILY["tall-128x64-k16"].config, "ptx").text
    assert "max_registers" not in FAMILY["tall-128x64-k16"].config.to_dict() and "at most 168 registers" in cfg.describe()
    with pytest.raises(ConfigError, match="max_registers=168: backend 'cuda'"):
        emit(FAMILY["splitk-64x64"].config.replace(max_registers=168), "cuda")


CASES = [(name, ta, tb, rows) for name in K16 for ta in (False, True) for tb in (False, True)
         for rows in ("aligned", "unaligned")]


@pytest.mark.parametrize("name, trans_a, trans_b, rows", tiered(CASES, fast=()))  # a compile each (4-8 s): the slow tier
def test_held_kernels_fit_three_blocks_an_sm_without_spilling(name, trans_a, trans_b, rows):
    cfg = with_layout(FAMILY[name].config, trans_a, trans_b)
    off = 1 if rows == "unaligned" else 0
    held = for_operands(cfg, "ptx", 1024 + off, 1024 + off, 1024, 8 * cfg.bn + 1)
    assert tile_of(cfg) in LAST_COL_HELD and held.last_col and held.max_registers == held_cap(cfg) == 168
    art = compile_config(held, "sm_90", backend="ptx")  # SpillError if ptxas spilled
    registers = [kernel_info(art.cubin, src.name).registers for _, src in art.source.kernels()]  # after the SASS pass
    assert len(registers) == 2 and max(registers) <= held.max_registers, registers
