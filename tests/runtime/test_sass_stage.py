"""The SASS stage on a module of two kernels (runtime/sass_stage._run): a stream-K module's kernel and its work-list
kernel are rewritten side by side from ptxas's cubin, each pass's own section taken into the module's cubin.  The
bytes and reports must be those of rewriting them one after the other, and a pass that changed anything outside its
section sends the stage back to one after the other.  No GPU: real cubins from NVRTC / nvJitLink and nvdisasm."""
import pytest

from regtile.codegen.emit import emit
from regtile.codegen.presets import get_member
from regtile.runtime import cubin_info, sass_stage
from regtile.runtime.compiler import compile_source


_MEMBER = "sq-128x128"  # the smallest stream-K member with the pass


@pytest.fixture(scope="module")
def module():
    """(ptxas's cubin of sq-128x128's stream-K module, (its kernel, its work-list kernel))."""
    cfg = get_member(_MEMBER).config.replace(sass_pass=False)
    assert cfg.stream_k
    art = compile_source(emit(cfg, "ptx"), "sm_90")
    return art.cubin, (art.name, art.source.ranges.name)


def _one_after_the_other(cubin, kernels):
    return sass_stage._run(cubin, kernels, "sm_90", sass_stage._steps(), side_by_side=False)


@pytest.mark.slow  # four real passes (about 10 s of CPU); the merge's logic is the fast tier's, with a stand-in pass
def test_kernels_rewritten_side_by_side_give_the_bytes_and_reports_of_one_after_the_other():
    """The module as the library builds it (compile_source: the stage side by side) against the passes one after the
    other on its ptxas cubin: what the merge assumes, that a kernel's pass does not depend on the other's rewrite."""
    cfg = get_member(_MEMBER).config
    assert cfg.stream_k and cfg.sass_pass
    passed = compile_source(emit(cfg, "ptx"), "sm_90")
    cubin, kernels = passed.cubin_before_pass, (passed.name, passed.source.ranges.name)
    merged, report = passed.cubin, passed.sass_pass
    sequential, sequential_report = _one_after_the_other(cubin, kernels)
    assert merged == sequential
    assert report.to_dict() == sequential_report.to_dict() and list(report.others) == [kernels[1]]
    for name in kernels:  # each kernel's section rewritten
        off, size = cubin_info.text_section(cubin, name)
        assert merged[off:off + size] != cubin[off:off + size], name


class _Report:
    def __init__(self):
        self.others = {}

    def to_dict(self):
        return {}


@pytest.mark.parametrize("stray", [None, "ELF header", "last byte", "the other kernel's section"])
def test_a_pass_that_writes_outside_its_section_sends_the_stage_one_after_the_other(module, monkeypatch, stray):
    """A stand-in pass flips its section's first byte; the work-list kernel's also flips one byte outside its section
    (`stray`): the stage's bytes are the stand-in's applied one after the other either way, side by side they would
    have lost that byte."""
    cubin, kernels = module
    where = {None: None, "ELF header": 9, "last byte": len(cubin) - 1,  # e_ident's padding; the file's end
             "the other kernel's section": cubin_info.text_section(cubin, kernels[0])[0] + 1}[stray]
    calls = []

    def fake_pass(data, name, arch, **steps):
        calls.append(name)
        out = bytearray(data)
        out[cubin_info.text_section(data, name)[0]] ^= 0xFF
        if where is not None and name == kernels[1]:
            out[where] ^= 0xFF
        return bytes(out), _Report()

    monkeypatch.setattr(sass_stage.bank_pass, "run_pass", fake_pass)
    if where is None:
        merged, _ = sass_stage._run(cubin, kernels, "sm_90", sass_stage._steps())
    else:
        with pytest.warns(RuntimeWarning, match=f"SASS pass of {kernels[1]} changed bytes outside"):
            merged, _ = sass_stage._run(cubin, kernels, "sm_90", sass_stage._steps())
        assert merged[where] != cubin[where]
    assert merged == _one_after_the_other(cubin, kernels)[0]
    # side by side (2), then, only after a stray write, the work-list kernel again on kernel 0's result (1); the
    # check's own one after the other (2)
    assert len(calls) == (4 if where is None else 5)
