"""Presets compiled when a test first asks for them, shared by the test files that read their
artifacts (tests/codegen/test_codegen.py for CUDA C, test_ptx_backend.py for PTX)."""
from regtile.codegen.presets import get_preset
from regtile.runtime.compiler import compile_source
from regtile.runtime.sass import function_of


class CompiledPresets(dict):
    """(name, arch) -> (source, artifact, parsed SASS function) of `emit_fn(preset config)`."""

    def __init__(self, emit_fn):
        super().__init__()
        self.emit_fn = emit_fn

    def __missing__(self, key):
        name, arch = key
        src = self.emit_fn(get_preset(name).config)
        art = compile_source(src, arch)
        self[key] = (src, art, function_of(art.cubin, src.name)[1])
        return self[key]


def assert_clean_build(src, art) -> None:
    """A compiled preset as every backend's test asks: no spill, no stack frame, a sane register
    count, an ELF cubin, and the entry in the PTX."""
    res = art.resources
    assert res.spill_store_bytes == 0 and res.spill_load_bytes == 0 and res.stack_frame_bytes == 0, res
    assert 0 < res.registers <= 255
    assert art.cubin[:4] == b"\x7fELF"
    assert f".entry {src.name}" in art.ptx
