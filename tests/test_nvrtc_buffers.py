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
