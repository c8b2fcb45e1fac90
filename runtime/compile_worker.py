"""One NVRTC or nvJitLink compile in a process of its own, laid out the same way every time.

Why (docs/reproducibility.md, issue 22): NVRTC's optimiser (NVVM) takes some decisions in
an order that follows the addresses of its own heap objects.  The same CUDA C, with the
same options, came out of NVRTC as different PTX (and once as a cubin with one more
register) depending only on where the heap lay: address-space randomisation changes it
from run to run, and so does anything the process allocated before the compile (a
16-byte allocation flips it; a second compile in one process differs from the first).
Nothing in regtile's text or options varies.  So every compile runs here:

  * in a fresh process (no state of an earlier compile, of the caller's imports or of
    its environment), started with `python -I -S` (no site, no PYTHON* variables) and
    using only the standard library: the library is loaded with ctypes from the path
    the caller resolved;
  * with address-space randomisation turned off for this process (personality(2)
    ADDR_NO_RANDOMIZE, then a re-exec, as `setarch -R` does); where the system refuses
    that, the reply says so and the caller warns (builds may then differ);
  * inside a new thread: glibc gives it a malloc arena of its own, empty and aligned to
    64 MiB, so the heap NVRTC sees does not depend on what the interpreter allocated
    while starting (which varies with paths and the environment).

Protocol: one JSON request on stdin {"tool": "nvrtc" | "nvjitlink", "libraries": [paths],
"name", "arch", "options": [...], "text"}, where libraries are the files the caller has
loaded (libnvrtc's builtins, then libnvrtc; loaded here in that order, the last one being
the compiler); one JSON reply on stdout {"ok": bool, "layout": "fixed" | why not, "ptx",
"cubin" (base64), "log", "error"}.  Nothing here imports regtile.
"""
import base64
import ctypes
import json
import os
import sys
import threading

ADDR_NO_RANDOMIZE = 0x0040000
REEXEC_MARK = "REGTILE_COMPILE_WORKER_REEXEC"
NVJITLINK_INPUT_PTX = 2  # nvJitLinkInputType
_STACK_BYTES = 256 << 20  # the compile thread's stack: NVRTC's front end recurses deeply


def fixed_layout() -> str:
    """'fixed' once this process runs without address-space randomisation (re-executing
    itself to get there), else the reason it cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.personality.argtypes = [ctypes.c_ulong]
        current = libc.personality(0xFFFFFFFF)  # query
    except (OSError, AttributeError) as e:
        return f"no personality(2) on this system ({e})"
    if current != -1 and current & ADDR_NO_RANDOMIZE:
        return _verified()
    if os.environ.get(REEXEC_MARK):
        return "the system did not keep ADDR_NO_RANDOMIZE across exec"
    if current == -1 or libc.personality(current | ADDR_NO_RANDOMIZE) == -1:
        return f"personality(ADDR_NO_RANDOMIZE) refused: {os.strerror(ctypes.get_errno())}"
    os.environ[REEXEC_MARK] = "1"
    sys.stdout.flush()
    os.execv(sys.executable, sys.orig_argv)  # stdin is still unread: the new image reads it
    return "unreachable"  # pragma: no cover


def _verified() -> str:
    """'fixed' if the layout really is the unrandomised one.  Some systems accept the flag
    and randomise anyway (gVisor draws its mmap base at random whatever the personality):
    without randomisation Linux puts the top of the main stack at the top of the user
    address space, one page below a power of two (0x7ffffffff000 on x86-64)."""
    try:
        with open("/proc/self/maps") as f:
            ends = [int(ln.split("-")[1].split()[0], 16) for ln in f if ln.rstrip().endswith("[stack]")]
    except (OSError, ValueError, IndexError):
        return "ADDR_NO_RANDOMIZE is set, but /proc/self/maps cannot confirm the layout"
    top = (ends[0] + 0x1000) if ends else 0
    if top & (top - 1) == 0 and top:
        return "fixed"
    return (f"the system accepted ADDR_NO_RANDOMIZE but still randomises addresses (stack top "
            f"{hex(ends[0]) if ends else 'unknown'}; gVisor does this)")


def _out(get_size, get, handle) -> bytes:
    """One output (log, PTX, cubin) through a fresh buffer of its own."""
    size = ctypes.c_size_t(0)
    _ok(get_size(handle, ctypes.byref(size)), get_size)
    if size.value == 0:
        return b""
    buf = ctypes.create_string_buffer(size.value)
    _ok(get(handle, buf), get)
    return buf.raw


class _Failed(Exception):
    def __init__(self, what: str, code: int, log: str = ""):
        super().__init__(what)
        self.what, self.code, self.log = what, code, log


def _ok(code: int, fn) -> None:
    if code != 0:
        raise _Failed(f"{fn.__name__} returned {code}", code)


def nvrtc(library: str, text: str, name: str, arch: str, options) -> dict:
    lib = ctypes.CDLL(library)
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    prog = ctypes.c_void_p()
    _ok(lib.nvrtcCreateProgram(ctypes.byref(prog), ctypes.create_string_buffer(text.encode()),
                               f"{name}.cu".encode(), 0, None, None), lib.nvrtcCreateProgram)
    try:
        opts = [f"--gpu-architecture={arch}".encode()] + [o.encode() for o in options]
        argv = (ctypes.c_char_p * len(opts))(*opts)
        code = lib.nvrtcCompileProgram(prog, len(opts), argv)
        log = _out(lib.nvrtcGetProgramLogSize, lib.nvrtcGetProgramLog, prog).rstrip(b"\0").decode(errors="replace")
        if code != 0:
            raise _Failed(lib.nvrtcGetErrorString(code).decode(), code, log)
        ptx = _out(lib.nvrtcGetPTXSize, lib.nvrtcGetPTX, prog).rstrip(b"\0").decode()
        cubin = _out(lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN, prog)
        return {"ptx": ptx, "cubin": cubin, "log": log}
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def nvjitlink(library: str, text: str, name: str, arch: str, options) -> dict:
    lib = ctypes.CDLL(library)
    handle = ctypes.c_void_p()
    opts = [f"-arch={arch}".encode()] + [o.encode() for o in options]
    _ok(lib.nvJitLinkCreate(ctypes.byref(handle), len(opts), (ctypes.c_char_p * len(opts))(*opts)),
        lib.nvJitLinkCreate)

    def logs() -> str:
        both = b"".join(_out(s, g, handle) for s, g in (
            (lib.nvJitLinkGetErrorLogSize, lib.nvJitLinkGetErrorLog),
            (lib.nvJitLinkGetInfoLogSize, lib.nvJitLinkGetInfoLog)))
        return both.replace(b"\0", b"").decode(errors="replace")

    try:
        data = text.encode()
        # NUL-terminated (create_string_buffer adds it): nvJitLink reads PTX as a C string;
        # without the terminator it read past the text and refused it at random ("bad input:
        # does not match type NVJITLINK_INPUT_PTX").
        code = lib.nvJitLinkAddData(handle, NVJITLINK_INPUT_PTX, ctypes.create_string_buffer(data),
                                    ctypes.c_size_t(len(data)), f"{name}.ptx".encode())
        if code == 0:
            code = lib.nvJitLinkComplete(handle)
        if code != 0:
            raise _Failed(f"nvJitLink error {code}", code, logs())
        cubin = _out(lib.nvJitLinkGetLinkedCubinSize, lib.nvJitLinkGetLinkedCubin, handle)
        info = _out(lib.nvJitLinkGetInfoLogSize, lib.nvJitLinkGetInfoLog, handle)
        return {"ptx": text, "cubin": cubin, "log": info.rstrip(b"\0").decode(errors="replace")}
    finally:
        lib.nvJitLinkDestroy(ctypes.byref(handle))


TOOLS = {"nvrtc": nvrtc, "nvjitlink": nvjitlink}


def compile_request(req: dict) -> dict:
    """The reply to one request (run in this process; main() runs it in a fresh thread)."""
    *preload, library = req["libraries"]
    try:
        for path in preload:  # e.g. NVRTC's builtins, which it otherwise looks up by name
            ctypes.CDLL(path, os.RTLD_NOW | os.RTLD_GLOBAL)
        out = TOOLS[req["tool"]](library, req["text"], req["name"], req["arch"], req["options"])
    except _Failed as e:
        return {"ok": False, "error": e.what, "code": e.code, "log": e.log}
    except OSError as e:  # the library would not load
        return {"ok": False, "error": f"cannot load {library}: {e}", "code": -1, "log": ""}
    return {"ok": True, "ptx": out["ptx"], "cubin": base64.b64encode(out["cubin"]).decode(), "log": out["log"]}


def main() -> int:
    layout = fixed_layout()
    reply_fd = os.dup(1)
    os.dup2(2, 1)  # anything a library prints goes to stderr, never into the reply
    req = json.loads(sys.stdin.buffer.read())
    box = {}
    threading.stack_size(_STACK_BYTES)
    t = threading.Thread(target=lambda: box.update(compile_request(req)), name="compile")
    t.start()
    t.join()
    box["layout"] = layout
    with os.fdopen(reply_fd, "w") as f:
        json.dump(box, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
