"""NVRTC's outputs are copied through writable buffers of their own.  The old code handed
NVRTC `b" " * size`; for an empty log (size 1) that is CPython's one shared 1-byte bytes
object, and NVRTC's NUL terminator turned every b" " of the process into b"\\x00" - on
the device torch then failed to import and later compiles lost their ptxas report."""
from regtile.codegen.kernel import KernelSource, LaunchGeometry
from regtile.runtime.compiler import _nvrtc_compile


def test_an_empty_nvrtc_log_leaves_the_shared_space_byte_alone():
    src = KernelSource("k", "cuda", 'extern "C" __global__ void k() {}', LaunchGeometry((32, 1, 1), 1, 1, 0), ())
    ptx, cubin, log = _nvrtc_compile(src, "sm_90", ())  # no -Xptxas=-v: NVRTC's log is empty
    assert log == "" and ".entry k" in ptx and cubin[:4] == b"\x7fELF"
    # compare contents, not objects: a corrupted b" " equals itself
    assert list(bytes([32])) == [32] and list(" ".encode()) == [32] and "a b".encode().split() == [b"a", b"b"]


def test_a_log_without_the_ptxas_report_falls_back_to_the_cubin():
    """On the H100 machine NVRTC once returned only the front end's warnings for a few of
    the first compiles of 8 pytest-xdist workers; the cubin's .nv.info still holds the
    register count and stack frame, and the artifact is read from there."""
    from regtile.codegen.emit import emit
    from regtile.codegen.presets import get_preset
    from regtile.runtime.compiler import _resources, compile_source
    art = compile_source(emit(get_preset("zorder").config, "cuda"), "sm_90", use_cache=False)
    warnings_only = 'k.cu(39): warning #177-D: variable "a0_0" was declared but never referenced\n'
    res = _resources(warnings_only, art.cubin, art.name)
    assert res.registers == art.resources.registers and res.spill_free
