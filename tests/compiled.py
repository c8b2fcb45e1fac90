"""Presets compiled when a test first asks for them, shared by the test files that read their
artifacts (tests/codegen/test_codegen.py for CUDA C, test_ptx_backend.py for PTX); family members
as regtile.sgemm builds them, and a path walk over their SASS, shared by the SASS pass's step tests
(tests/sass/test_scoreboards.py, test_preload.py)."""
from regtile.codegen.emit import emit
from regtile.codegen.layouts import with_layout
from regtile.codegen.operand_forms import for_rows
from regtile.codegen.presets import FAMILY, get_preset
from regtile.runtime.compiler import compile_source
from regtile.runtime.sass import function_of
from regtile.sass import isa
from regtile.sass.reorder import Cfg


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


_MEMBERS = {}


def built_member(name, rows):
    """(artifact, kernel name) of a family member as regtile.sgemm builds it for packed, aligned operands (rows
    "aligned": the member's own config, the kernel test_tile_loads_sass compiles too) or for lda 1023, ldb 1025
    ("unaligned": operand_forms.for_rows); rows "top": aligned, without the loop-head hoist; rows "tn" / "nt": aligned,
    generated for op(A) = A^T / op(B) = B^T (codegen/layouts.with_layout)."""
    if (name, rows) not in _MEMBERS:
        cfg = FAMILY[name].config
        if rows == "top":  # the member without its loop-head hoist (tile_config.hoist_head)
            cfg = cfg.replace(hoist_head=False)
        elif rows in ("tn", "nt"):
            cfg = with_layout(cfg, rows == "tn", rows == "nt")
        src = emit(for_rows(cfg, "ptx", 1023, 1025) if rows == "unaligned" else cfg, "ptx")
        _MEMBERS[name, rows] = compile_source(src, "sm_90"), src.name
    return _MEMBERS[name, rows]


def unwaited(func, cfg: Cfg, k: int, sb: int, registers, his=None, readers: bool = True):
    """[offset]: the instructions reached from instruction k, on some path with no wait on scoreboard `sb` between
    (an instruction's own wait counts), that write one of `registers` or, with `readers`, read one (where the walk
    stops).  his: the instructions' high words, if not their own (a test dropping waits)."""
    his = his or [i.hi for i in func.instructions]
    bad, stack, seen = [], list(cfg.succ[k]), set()
    while stack:
        j = stack.pop()
        if j in seen:
            continue
        seen.add(j)
        if isa.wait_mask(his[j]) >> sb & 1:
            continue
        if ((cfg.reads[j] if readers else set()) | cfg.writes[j]) & registers:
            bad.append(func.instructions[j].offset)
            continue
        stack.extend(cfg.succ[j])
    return bad
