"""Compile stage: KernelSource -> Artifact (PTX, cubin, ptxas report) through NVRTC
(CUDA C) or nvJitLink (PTX).

Runs with no GPU and no CUDA toolkit: NVRTC comes from the nvidia-cuda-nvrtc wheel
(found by cuda-pathfinder, through cuda-bindings), nvJitLink from nvidia-nvjitlink.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Optional, Tuple

from ..codegen.hardware import DEFAULT_ARCH, SUPPORTED_ARCHS
from ..codegen.kernel import KernelSource
from ..errors import ArchError, CompileError, SpillError  # noqa: F401  (importable from here as before)
from . import cache as _cache


def check_arch(arch: str) -> str:
    if arch not in SUPPORTED_ARCHS:
        raise ArchError(f"unknown arch {arch!r}: regtile targets {', '.join(SUPPORTED_ARCHS)}")
    return arch


@dataclass(frozen=True)
class Resources:
    """ptxas's `-v` report for one kernel."""
    registers: int
    spill_store_bytes: int
    spill_load_bytes: int
    stack_frame_bytes: int
    static_smem_bytes: int
    barriers: int

    @property
    def spill_free(self) -> bool:
        return self.spill_store_bytes == 0 and self.spill_load_bytes == 0 and self.stack_frame_bytes == 0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["spill_free"] = self.spill_free
        return d


def parse_ptxas_report(log: str, kernel: str) -> Resources:
    """Read registers, spills, stack frame, shared memory and barriers for `kernel`
    from a ptxas `-v` log (NVRTC's -Xptxas=-v or nvJitLink's -verbose)."""
    # The report of one function runs from "Compiling entry function 'name'" (or
    # "Function properties for name") to the next function's header.
    start = log.find(f"'{kernel}'")
    if start < 0:
        start = log.find(kernel)
    if start < 0:
        raise CompileError(f"the ptxas report names no function {kernel!r}", log)
    body = log[start:]
    nxt = re.search(r"Compiling entry function '(?!" + re.escape(kernel) + ")", body)
    if nxt:
        body = body[:nxt.start()]

    def num(pattern: str) -> int:
        m = re.search(pattern, body)
        return int(m.group(1)) if m else 0

    regs = re.search(r"Used (\d+) registers", body)
    if not regs:
        raise CompileError(f"the ptxas report of {kernel!r} gives no register count", log)
    return Resources(
        registers=int(regs.group(1)),
        spill_store_bytes=num(r"(\d+) bytes spill stores"),
        spill_load_bytes=num(r"(\d+) bytes spill loads"),
        stack_frame_bytes=num(r"(\d+) bytes stack frame"),
        static_smem_bytes=num(r"(\d+) bytes smem"),
        barriers=num(r"used (\d+) barriers"),
    )


@dataclass(frozen=True)
class Artifact:
    """Everything the compile stage produced for one kernel and arch."""
    source: KernelSource
    arch: str
    ptx: str
    cubin: bytes
    log: str
    resources: Resources
    compiler: str  # e.g. "nvrtc 13.0"
    from_cache: bool = field(default=False, compare=False)
    # The SASS register-bank pass (KernelSource.sass_pass): `cubin` is the rewritten one,
    # ptxas's own is kept beside it, with the pass's report (sass/bank_pass.py).
    cubin_before_pass: Optional[bytes] = field(default=None, compare=False, repr=False)
    sass_pass: Optional[object] = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.source.name


NVRTC_OPTIONS: Tuple[str, ...] = ("-std=c++17", "-Xptxas=-v", "--fmad=true")


def nvrtc_version() -> str:
    from cuda.bindings import nvrtc
    err, major, minor = nvrtc.nvrtcVersion()
    _check_nvrtc(err, "nvrtcVersion")
    return f"nvrtc {major}.{minor}"


def _check_nvrtc(err, what: str, log: str = "", source: str = ""):
    from cuda.bindings import nvrtc
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise CompileError(f"{what} failed: {err!r}", log, source)


def _nvrtc_out(get_size, get, prog, what: str) -> bytes:
    """One NVRTC output (log, PTX, cubin) copied out through a fresh, writable buffer.
    Never `b" " * size`: for an empty log (size 1) that is CPython's shared 1-byte bytes
    object, and NVRTC's NUL terminator would turn every b" " of the process into b"\x00"
    (seen on the device: torch then failed to import, and option lists lost their -v)."""
    err, size = get_size(prog)
    _check_nvrtc(err, f"nvrtcGet{what}Size")
    buf = bytearray(size)
    (err,) = get(prog, buf)
    _check_nvrtc(err, f"nvrtcGet{what}")
    return bytes(buf)


def _nvrtc_compile(src: KernelSource, arch: str, options: Tuple[str, ...]) -> Tuple[str, bytes, str]:
    from cuda.bindings import nvrtc
    err, prog = nvrtc.nvrtcCreateProgram(src.text.encode(), f"{src.name}.cu".encode(), 0, [], [])
    _check_nvrtc(err, "nvrtcCreateProgram")
    try:
        opts = [f"--gpu-architecture={arch}".encode()] + [o.encode() for o in options]
        (cerr,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        log = _nvrtc_out(nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog, prog, "log")
        log = log.rstrip(b"\x00").decode(errors="replace")
        _check_nvrtc(cerr, f"NVRTC compile of {src.name} for {arch}", log, src.text)
        ptx = _nvrtc_out(nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX, prog, "PTX")
        cubin = _nvrtc_out(nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN, prog, "CUBIN")
        return ptx.rstrip(b"\x00").decode(), cubin, log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


# nvJitLink (PTX -> cubin, no GPU needed): ptxas at -O3, its resource report in the
# info log (-verbose prints the same "Used N registers, ... spill ..." lines as NVRTC's
# -Xptxas=-v, which parse_ptxas_report reads).
NVJITLINK_OPTIONS: Tuple[str, ...] = ("-O3", "-verbose")


def nvjitlink_version() -> str:
    from cuda.bindings import nvjitlink
    major, minor = nvjitlink.version()
    return f"nvJitLink {major}.{minor}"


def _nvjitlink_log(handle, which: str) -> str:
    from cuda.bindings import nvjitlink
    size = getattr(nvjitlink, f"get_{which}_log_size")(handle)
    if not size:
        return ""
    buf = bytearray(size)
    getattr(nvjitlink, f"get_{which}_log")(handle, buf)
    return bytes(buf).rstrip(b"\x00").decode(errors="replace")


def _nvjitlink_compile(src: KernelSource, text: str, arch: str, options: Tuple[str, ...]) -> Tuple[bytes, str]:
    """PTX text -> (cubin, info log) through nvJitLink."""
    from cuda.bindings import nvjitlink
    opts = [f"-arch={arch}"] + list(options)
    handle = nvjitlink.create(len(opts), opts)
    try:
        data = text.encode()
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), f"{src.name}.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            log = _nvjitlink_log(handle, "error") + _nvjitlink_log(handle, "info")
            raise CompileError(f"nvJitLink compile of {src.name} for {arch} failed: {e}", log, text) from None
        size = nvjitlink.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin), _nvjitlink_log(handle, "info")
    finally:
        nvjitlink.destroy(handle)


def compile_source(src: KernelSource, arch: str = DEFAULT_ARCH, use_cache: bool = True) -> Artifact:
    """CUDA C -> PTX + cubin (NVRTC), or PTX -> cubin (nvJitLink).  Cached on disk by
    source, options, compiler and arch.  PTX is first retargeted to `arch`
    (codegen.emit_ptx.for_arch: the `.target` line and the sm_90-only occupancy
    directive), and Artifact.ptx is the text that was compiled.  When the source asks
    for it, the SASS register-bank pass then rewrites the cubin (runtime/sass_stage.py)."""
    check_arch(arch)
    art = _compile(src, arch, use_cache)
    if src.sass_pass:
        from .sass_stage import apply_sass_pass
        art = apply_sass_pass(art, use_cache)
    return art


def _compile(src: KernelSource, arch: str, use_cache: bool) -> Artifact:
    if src.language == "ptx":
        return _compile_ptx(src, arch, use_cache)
    if src.language != "cuda":
        raise CompileError(f"compile_source takes CUDA C or PTX; {src.name} is {src.language}")
    version = nvrtc_version()
    key = _cache.cache_key(src.text, arch, NVRTC_OPTIONS, version)
    if use_cache:
        hit = _cache.load(key)
        if hit is not None:
            return Artifact(src, arch, hit.ptx, hit.cubin, hit.log,
                            _resources(hit.log, hit.cubin, src.name), version, from_cache=True)
    ptx, cubin, log = _nvrtc_compile(src, arch, NVRTC_OPTIONS)
    res = _resources(log, cubin, src.name)
    if use_cache:
        _cache.store(key, _cache.Entry(ptx=ptx, cubin=cubin, log=log))
    return Artifact(src, arch, ptx, cubin, log, res, version)


def ptxas_lines(log: str) -> str:
    """The ptxas part of an nvJitLink info log.  nvJitLink adds its own summary
    ("info : used N registers, ..., 1024 bytes smem, ...") whose smem figure counts the
    1 KB sm_90 reserves for the system, which NVRTC's ptxas report leaves out; the
    resources are read from the ptxas lines only, as for NVRTC."""
    return "\n".join(ln for ln in log.splitlines() if ln.startswith("ptxas"))


def _resources(log: str, cubin: bytes, name: str) -> Resources:
    """The ptxas report in the compiler's log (NVRTC's -Xptxas=-v, nvJitLink's -verbose);
    should a log lack it, the cubin's own attributes (sass/cubin.py: registers,
    stack frame), with a non-zero frame counted as spills since the ELF does not split
    it.  Seen on the H100 machine: NVRTC returned only the front end's warnings, without
    the ptxas lines, for a few of the first compiles of 8 pytest-xdist workers started
    together (its cubin was there; not reproduced with 6 processes on a CPU machine)."""
    try:
        return parse_ptxas_report(ptxas_lines(log), name)
    except CompileError:
        from ..sass.cubin import CubinError, kernel_info
        try:
            info = kernel_info(cubin, name)
        except CubinError:
            raise CompileError(f"neither nvJitLink's log nor the cubin gives the resources of {name!r}", log) from None
        return Resources(info.registers, info.frame_bytes, info.frame_bytes, info.frame_bytes, 0, 0)


def _compile_ptx(src: KernelSource, arch: str, use_cache: bool) -> Artifact:
    from ..codegen.emit_ptx import for_arch
    text = for_arch(src.text, arch)
    version = nvjitlink_version()
    key = _cache.cache_key(text, arch, NVJITLINK_OPTIONS, version)
    if use_cache:
        hit = _cache.load(key)
        if hit is not None:
            return Artifact(src, arch, hit.ptx, hit.cubin, hit.log,
                            _resources(hit.log, hit.cubin, src.name), version, from_cache=True)
    cubin, log = _nvjitlink_compile(src, text, arch, NVJITLINK_OPTIONS)
    res = _resources(log, cubin, src.name)
    if use_cache:
        _cache.store(key, _cache.Entry(ptx=text, cubin=cubin, log=log))
    return Artifact(src, arch, text, cubin, log, res, version)


def spilled_bytes(art: Artifact) -> int:
    """Spill-store, spill-load and stack-frame bytes over every kernel of the module (a
    split-K module holds the reduction kernel too)."""
    r = art.resources
    own = r.spill_store_bytes + r.spill_load_bytes + r.stack_frame_bytes
    logged = sum(int(n) for n in re.findall(r"(\d+) bytes (?:stack frame|spill stores|spill loads)", art.log))
    return max(own, logged)


def check_spill_free(art: Artifact, cfg=None) -> Artifact:
    """The artifact, or SpillError naming what spilled and what to change."""
    nbytes = spilled_bytes(art)
    if nbytes == 0:
        return art
    r = art.resources
    est = ""
    if cfg is not None and hasattr(cfg, "register_estimate"):
        est = (f"; validation estimated {cfg.register_estimate()} registers against a cap of "
               f"{cfg.register_cap()}, but ptxas squeezed the kernel")
    raise SpillError(f"{art.name} ({art.arch}): ptxas spilled to local memory ({r.registers} registers, "
                     f"{r.spill_store_bytes} B spill stores, {r.spill_load_bytes} B spill loads, "
                     f"{r.stack_frame_bytes} B stack{est}); regtile does not run spilling kernels: use a "
                     f"smaller thread tile or bk, lower min_blocks, or the zigzag FFMA order "
                     f"(`regtile inspect` shows the kernel; `gen --allow-spills` writes it)", art.log)


def compile_config(cfg, arch: str = DEFAULT_ARCH, use_cache: bool = True, backend: str = "cuda",
                   allow_spills: bool = False) -> Artifact:
    """Any config (SgemmConfig, SgemvConfig) -> Artifact, through the CUDA C backend
    or (SGEMM) the PTX backend.  A kernel that spills raises SpillError unless
    `allow_spills` (what runs, is timed or tuned is spill-free)."""
    from ..codegen.emit import emit
    art = compile_source(emit(cfg, backend), arch, use_cache)
    return art if allow_spills else check_spill_free(art, cfg)
