"""Compile stage: KernelSource -> Artifact (PTX, cubin, ptxas report) through NVRTC.

Runs with no GPU and no CUDA toolkit: NVRTC comes from the nvidia-cuda-nvrtc wheel
(found by cuda-pathfinder, through cuda-bindings), nvJitLink from nvidia-nvjitlink.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Optional, Tuple

from ..codegen.hardware import DEFAULT_ARCH, SUPPORTED_ARCHS
from ..codegen.kernel import KernelSource
from . import cache as _cache


class CompileError(RuntimeError):
    """NVRTC or nvJitLink refused a kernel.  Carries the log and the source lines it names."""

    def __init__(self, message: str, log: str = "", source: str = ""):
        self.log = log
        self.source = source
        self.failing_lines = _failing_lines(log, source)
        detail = "\n".join(self.failing_lines)
        super().__init__(f"{message}\n{log.strip()}" + (f"\n--- source lines named by the log ---\n{detail}"
                                                        if detail else ""))


class ArchError(ValueError):
    pass


def _failing_lines(log: str, source: str) -> Tuple[str, ...]:
    if not source:
        return ()
    lines = source.splitlines()
    out = []
    for m in sorted({int(n) for n in re.findall(r"\((\d+)\): error", log)}):
        if 1 <= m <= len(lines):
            out.append(f"{m:5d}: {lines[m - 1]}")
    return tuple(out)


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


def _nvrtc_compile(src: KernelSource, arch: str, options: Tuple[str, ...]) -> Tuple[str, bytes, str]:
    from cuda.bindings import nvrtc
    err, prog = nvrtc.nvrtcCreateProgram(src.text.encode(), f"{src.name}.cu".encode(), 0, [], [])
    _check_nvrtc(err, "nvrtcCreateProgram")
    try:
        opts = [f"--gpu-architecture={arch}".encode()] + [o.encode() for o in options]
        (cerr,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        err, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log_buf = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log_buf)
        log = log_buf.rstrip(b"\x00").decode(errors="replace")
        _check_nvrtc(cerr, f"NVRTC compile of {src.name} for {arch}", log, src.text)
        err, size = nvrtc.nvrtcGetPTXSize(prog)
        _check_nvrtc(err, "nvrtcGetPTXSize")
        ptx = b" " * size
        nvrtc.nvrtcGetPTX(prog, ptx)
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _check_nvrtc(err, "nvrtcGetCUBINSize")
        cubin = b" " * size
        nvrtc.nvrtcGetCUBIN(prog, cubin)
        return ptx.rstrip(b"\x00").decode(), bytes(cubin), log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def compile_source(src: KernelSource, arch: str = DEFAULT_ARCH, use_cache: bool = True) -> Artifact:
    """CUDA C -> PTX + cubin (NVRTC).  Cached on disk by source, options, compiler and arch."""
    check_arch(arch)
    if src.language != "cuda":
        raise CompileError(f"compile_source takes CUDA C; {src.name} is {src.language}")
    version = nvrtc_version()
    key = _cache.cache_key(src.text, arch, NVRTC_OPTIONS, version)
    if use_cache:
        hit = _cache.load(key)
        if hit is not None:
            return Artifact(src, arch, hit.ptx, hit.cubin, hit.log,
                            parse_ptxas_report(hit.log, src.name), version, from_cache=True)
    ptx, cubin, log = _nvrtc_compile(src, arch, NVRTC_OPTIONS)
    res = parse_ptxas_report(log, src.name)
    if use_cache:
        _cache.store(key, _cache.Entry(ptx=ptx, cubin=cubin, log=log))
    return Artifact(src, arch, ptx, cubin, log, res, version)


def compile_config(cfg, arch: str = DEFAULT_ARCH, use_cache: bool = True) -> Artifact:
    """Any config (SgemmConfig, SgemvConfig) -> Artifact."""
    from ..codegen.emit import emit_cuda
    return compile_source(emit_cuda(cfg), arch, use_cache)


def find_tool(name: str) -> Optional[str]:
    """A CUDA binary utility (nvdisasm, ...): cuda-pathfinder first (wheels, CUDA_HOME),
    then PATH."""
    import shutil
    try:
        from cuda.pathfinder import find_nvidia_binary_utility
        path = find_nvidia_binary_utility(name)
        if path:
            return path
    except Exception:  # older cuda-pathfinder without binary lookup
        pass
    return shutil.which(name)
