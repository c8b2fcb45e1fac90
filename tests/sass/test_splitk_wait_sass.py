"""The CUDA C split-K partial kernel, launched programmatic since session 39 (codegen/splitk.partial_pdl), and the fused
split-K kernel, since session 40 (codegen/emit_fusedk.ENTRY), read from the real sm_90 cubin: one griddepcontrol.wait
(ACQBULK), and no global access - load, store, atomic, cp.async - ahead of it.  The text puts the wait first; ptxas is
what could move a read-only load above it (it did in session 22, with a few-vector kernel's __ldg:
docs/architecture.md), and the kernel before may still be writing what this one reads (A, B) or reading what it
overwrites (the previous call's reduce reads the workspace W)."""
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.layouts import with_layout
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_source
from regtile.runtime.sass import function_of
from tiers import tiered

# generic LD / ST included: a generic access may reach global memory
GLOBAL = ("LDG", "STG", "ATOM", "ATOMG", "RED", "REDG", "LDGSTS", "LD", "ST")


def _check_wait_comes_first(member: str, layout: str, backend: str, loads) -> None:
    """`member` split 8 in `layout`, compiled for sm_90: one ACQBULK, no global access before it, and after it one of
    `loads` (the check reads the instructions it means to)."""
    cfg = with_layout(FAMILY[member].config.replace(split_k=8), layout[0] == "T", layout[1] == "T")
    src = emit(cfg, backend)
    ins = function_of(compile_source(src, "sm_90").cubin, src.name)[1].instructions
    waits = [j for j, i in enumerate(ins) if i.base == "ACQBULK"]
    assert len(waits) == 1, [i.text for i in ins if i.base == "ACQBULK"]
    assert not [i.text for i in ins[:waits[0]] if i.base in GLOBAL]
    assert any(i.base in loads for i in ins[waits[0]:])


@pytest.mark.parametrize("member, layout", tiered(
    [(m, lay) for m in ("splitk-64x64-k4", "splitk-32x32-f4", "splitk-128x32") for lay in ("NN", "TN", "NT", "TT")],
    fast={("splitk-64x64-k4", "NN")}))
def test_the_partial_kernel_touches_no_global_memory_before_its_wait(member, layout):
    _check_wait_comes_first(member, layout, "cuda", ("LDG",))


@pytest.mark.parametrize("member, layout", tiered(
    [(m, lay) for m in ("fused-32x32", "fused-128x16") for lay in ("NN", "TN", "NT", "TT")],
    fast={("fused-128x16", "NN")}))
def test_the_fused_kernel_touches_no_global_memory_before_its_wait(member, layout):
    """The fused split-K kernel, programmatic since session 40 (codegen/emit_fusedk.ENTRY): the same reading.  The call
    before may be the previous call's fused kernel, whose last splits still read and zero the counters and W."""
    _check_wait_comes_first(member, layout, "fusedk", ("LDG", "LDGSTS"))
