"""NVRTC's outputs are copied through writable buffers of their own.  The old code handed
NVRTC `b" " * size`; for an empty log (size 1) that is CPython's one shared 1-byte bytes
object, and NVRTC's NUL terminator turned every b" " of the process into b"\\x00" - on
the device torch then failed to import and later compiles lost their ptxas report.
Compiles now run in a worker process (runtime/compile_worker.py, ctypes buffers); its
functions are run in this process here, so that a corruption would show in the test."""
from regtile.codegen.kernel import KernelSource, LaunchGeometry
from regtile.runtime import compile_worker
from regtile.runtime.compiler import _library_files, _nvrtc_compile

EMPTY = 'extern "C" __global__ void k() {}'


def _space_byte_intact():
    # compare contents, not objects: a corrupted b" " equals itself
    return list(bytes([32])) == [32] and list(" ".encode()) == [32] and "a b".encode().split() == [b"a", b"b"]


def test_an_empty_nvrtc_log_leaves_the_shared_space_byte_alone():
    src = KernelSource("k", "cuda", EMPTY, LaunchGeometry((32, 1, 1), 1, 1, 0), ())
    ptx, cubin, log = _nvrtc_compile(src, "sm_90", ())  # no -Xptxas=-v: NVRTC's log is empty
    assert log == "" and ".entry k" in ptx and cubin[:4] == b"\x7fELF"
    assert _space_byte_intact()


def test_the_workers_buffers_are_its_own_in_process():
    """The worker's compile, run in this process: NVRTC writes an empty log (size 1), PTX
    and cubin into ctypes buffers; CPython's shared bytes stay as they were."""
    req = {"tool": "nvrtc", "libraries": list(_library_files("nvrtc")), "name": "k", "arch": "sm_90",
           "options": [], "text": EMPTY}
    for _ in range(3):
        reply = compile_worker.compile_request(req)
        assert reply["ok"] and reply["log"] == "" and ".entry k" in reply["ptx"], reply
        assert _space_byte_intact()


def test_a_refused_source_comes_back_with_its_log():
    req = {"tool": "nvrtc", "libraries": list(_library_files("nvrtc")), "name": "bad", "arch": "sm_90",
           "options": [], "text": 'extern "C" __global__ void k() { undeclared = 1; }'}
    reply = compile_worker.compile_request(req)
    assert not reply["ok"] and "NVRTC_ERROR_COMPILATION" in reply["error"] and "undeclared" in reply["log"]
    assert "bad.cu(1)" in reply["log"]  # the file name NVRTC was given


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
