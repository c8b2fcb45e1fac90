"""The SASS stage on a module of two kernels (runtime/sass_stage._run): a stream-K module's kernel and its work-list
kernel are rewritten side by side from ptxas's cubin, each pass's own section taken into the module's cubin.  The
bytes must be those of rewriting them one after the other, and a pass that changed anything outside its section sends
the stage back to one after the other.  No GPU: real cubins from NVRTC / nvJitLink and nvdisasm."""
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.presets import get_member
from regtile.runtime import cubin_info, sass_pass, sass_stage
from regtile.runtime.compiler import compile_source


@pytest.fixture(scope="module")
def module():
    """(ptxas's cubin of sq-128x128's stream-K module, (its kernel, its work-list kernel))."""
    cfg = get_member("sq-128x128").config.replace(sass_pass=False)
    assert cfg.stream_k
    art = compile_source(emit(cfg, "ptx"), "sm_90")
    return art.cubin, (art.name, art.source.ranges.name)


def _one_after_the_other(run_pass, cubin, kernels):
    for name in kernels:
        cubin, _ = run_pass(cubin, name, "sm_90", **sass_stage._steps())
    return cubin


def test_kernels_rewritten_side_by_side_give_the_bytes_of_one_after_the_other(module):
    cubin, kernels = module
    merged, report = sass_stage._run(cubin, kernels, "sm_90", sass_stage._steps())
    assert merged == _one_after_the_other(sass_pass.run_pass, cubin, kernels)
    assert merged != cubin and list(report.others) == [kernels[1]]
    for name in kernels:  # each kernel's section rewritten
        off, size = cubin_info.text_section(cubin, name)
        assert merged[off:off + size] != cubin[off:off + size], name


class _Report:
    def __init__(self):
        self.others = {}

    def to_dict(self):
        return {}


@pytest.mark.parametrize("outside", [False, True])
def test_a_pass_that_writes_outside_its_section_sends_the_stage_one_after_the_other(module, monkeypatch, outside):
    """A stand-in pass flips its section's first byte and, for the work-list kernel with `outside`, one byte of the
    ELF header: the stage's bytes are the stand-in's applied one after the other either way (side by side they would
    lose the header byte)."""
    cubin, kernels = module
    calls = []

    def fake_pass(data, name, arch, **steps):
        calls.append(name)
        out = bytearray(data)
        off, _ = cubin_info.text_section(data, name)
        out[off] ^= 0xFF
        if outside and name == kernels[1]:
            out[9] ^= 0xFF  # e_ident padding: outside every section
        return bytes(out), _Report()

    monkeypatch.setattr(sass_stage.bank_pass, "run_pass", fake_pass)
    merged, _ = sass_stage._run(cubin, kernels, "sm_90", sass_stage._steps())
    assert merged == _one_after_the_other(fake_pass, cubin, kernels)
    assert (merged[9] != cubin[9]) == outside
    # side by side, then (only where a pass wrote outside its section) one after the other, then the check above
    assert len(calls) == (3 if outside else 2) * len(kernels)
