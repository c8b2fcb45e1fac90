"""Compile stage: KernelSource -> Artifact (PTX, cubin, ptxas report) through NVRTC
(CUDA C) or nvJitLink (PTX).

Runs with no GPU and no CUDA toolkit: NVRTC comes from the nvidia-cuda-nvrtc wheel
(found by cuda-pathfinder, through cuda-bindings), nvJitLink from nvidia-nvjitlink.

Every compile runs in a fresh worker process laid out the same way each time
(runtime/compile_worker.py): NVRTC's output depends on where its heap objects lie, and
in-process it came out different from run to run (docs/reproducibility.md).  Results
are cached on disk (runtime/cache.py) under the inputs they depend on.
"""
from __future__ import annotations

import base64
import functools
import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Tuple

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
# nvJitLink (PTX -> cubin, no GPU needed): ptxas at -O3, its resource report in the
# info log (-verbose prints the same "Used N registers, ... spill ..." lines as NVRTC's
# -Xptxas=-v, which parse_ptxas_report reads).
NVJITLINK_OPTIONS: Tuple[str, ...] = ("-O3", "-verbose")


class CompilerMissing(CompileError):
    """NVRTC or nvJitLink cannot be loaded; the message names the library and the package."""


# tool -> (library, the pip requirement that provides it; pyproject.toml pins both)
_LIBRARIES = {"nvrtc": ("libnvrtc", "nvidia-cuda-nvrtc==13.0.*"),
              "nvjitlink": ("libnvJitLink", "nvidia-nvjitlink==13.0.*")}


def _missing(tool: str, err: BaseException) -> CompilerMissing:
    lib, req = _LIBRARIES[tool]
    why = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return CompilerMissing(f"{lib} not found ({why}): install it with `pip install '{req}'`, "
                           f"or set CUDA_HOME to a CUDA 13 toolkit that has it")


def _is_missing_library(err: BaseException) -> bool:
    try:
        from cuda.pathfinder import DynamicLibNotFoundError
    except ImportError:  # an older cuda-pathfinder
        DynamicLibNotFoundError = ()
    return isinstance(err, DynamicLibNotFoundError) or (isinstance(err, (OSError, RuntimeError))
                                                         and "dlopen" in str(err))


def _call_library(tool: str, fn):
    """fn() (the first call that loads `tool`'s library), with a missing library reported
    as CompilerMissing rather than cuda-pathfinder's traceback."""
    try:
        return fn()
    except Exception as e:
        if _is_missing_library(e):
            raise _missing(tool, e) from None
        raise


def nvrtc_version() -> str:
    def query():
        from cuda.bindings import nvrtc
        return nvrtc.nvrtcVersion()
    err, major, minor = _call_library("nvrtc", query)
    _check_nvrtc(err, "nvrtcVersion")
    return f"nvrtc {major}.{minor}"


def nvjitlink_version() -> str:
    def query():
        from cuda.bindings import nvjitlink
        return nvjitlink.version()
    major, minor = _call_library("nvjitlink", query)
    return f"nvJitLink {major}.{minor}"


def _check_nvrtc(err, what: str, log: str = "", source: str = ""):
    from cuda.bindings import nvrtc
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise CompileError(f"{what} failed: {err!r}", log, source)


# ---- the compile worker (runtime/compile_worker.py; docs/reproducibility.md) ----------------
# NVRTC's output depends on where its heap objects lie (issue 22): every compile runs in a
# fresh worker process with address-space randomisation off, in a thread with a malloc
# arena of its own.  The worker loads the very library files this process loaded.
WORKER = Path(__file__).with_name("compile_worker.py")
_layout_warned = False


@functools.lru_cache(maxsize=None)
def _library_files(tool: str) -> Tuple[str, ...]:
    """The shared objects of `tool` loaded in this process (NVRTC: its builtins, then
    libnvrtc itself, last), from /proc/self/maps; else cuda-pathfinder's path."""
    (nvrtc_version if tool == "nvrtc" else nvjitlink_version)()  # loads it, or CompilerMissing
    stem = _LIBRARIES[tool][0]
    found = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:  # "address perms offset dev inode path"
                fields = line.split(maxsplit=5)
                path = fields[5].strip() if len(fields) == 6 else ""
                base = os.path.basename(path)
                if base.startswith(stem) and ".so" in base and path not in found:
                    found.append(path)
    except OSError:
        pass
    main = [p for p in found if os.path.basename(p).startswith(f"{stem}.so")]
    if len(main) == 1:
        return tuple(p for p in found if p not in main) + tuple(main)
    from cuda.pathfinder import load_nvidia_dynamic_lib
    return (load_nvidia_dynamic_lib("nvrtc" if tool == "nvrtc" else "nvJitLink").abs_path,)


def _worker_env() -> dict:
    from .compile_worker import REEXEC_MARK
    env = dict(os.environ)
    env.pop(REEXEC_MARK, None)
    return env


def _note_layout(layout: str) -> None:
    global _layout_warned
    if layout != "fixed" and not _layout_warned:
        _layout_warned = True
        print(f"regtile: warning: cannot turn off address-space randomisation for the compiler ({layout}); "
              f"NVRTC's output may then differ from run to run (docs/reproducibility.md)", file=sys.stderr)


def run_worker(tool: str, name: str, text: str, arch: str, options: Sequence[str]) -> Tuple[str, bytes, str]:
    """(ptx, cubin, log) of one compile by `tool` ("nvrtc": CUDA C; "nvjitlink": PTX, whose
    text comes back as the ptx) in a fresh worker process; CompileError if it failed."""
    what = f"{'NVRTC' if tool == 'nvrtc' else 'nvJitLink'} compile of {name} for {arch}"
    req = {"tool": tool, "libraries": list(_library_files(tool)), "name": name, "arch": arch,
           "options": list(options), "text": text}
    proc = subprocess.run([sys.executable, "-I", "-S", str(WORKER)], input=json.dumps(req).encode(),
                          capture_output=True, env=_worker_env())
    try:
        reply = json.loads(proc.stdout)
        if not isinstance(reply, dict):
            raise ValueError
    except ValueError:
        raise CompileError(f"{what}: the compile worker ended without a reply (exit status {proc.returncode})",
                           proc.stderr.decode(errors="replace")[-4000:]) from None
    _note_layout(reply.get("layout", "unknown"))
    if not reply.get("ok"):
        if "cannot load" in reply.get("error", ""):
            raise _missing(tool, RuntimeError(reply["error"]))
        raise CompileError(f"{what} failed: {reply.get('error')}", reply.get("log", ""), text)
    return reply["ptx"], base64.b64decode(reply["cubin"]), _TIMING.sub("", reply["log"])


# ptxas reports how long it took ("ptxas info    : Compile time = 135.574 ms"): a
# measurement of that run, not part of what it built.  Dropped, so that a compile's
# whole output (PTX, cubin, log) is a function of its inputs and a rebuild compares equal.
_TIMING = re.compile(r"^[^\n]*: Compile time = [\d.]+ ms[^\n]*\n?", re.M)


def _nvrtc_compile(src: KernelSource, arch: str, options: Tuple[str, ...]) -> Tuple[str, bytes, str]:
    """CUDA C -> (PTX, cubin, log) through NVRTC, uncached."""
    return run_worker("nvrtc", src.name, src.text, arch, options)


# ---- compile stage, cached ---------------------------------------------------------------
def compile_source(src: KernelSource, arch: str = DEFAULT_ARCH, use_cache: bool = True) -> Artifact:
    """CUDA C -> PTX + cubin (NVRTC), or PTX -> cubin (nvJitLink).  Cached on disk by
    source, options, compiler and arch.  PTX is first retargeted to `arch`
    (codegen.ptx_arch.for_arch: the `.target` line and the sm_90-only occupancy
    directive), and Artifact.ptx is the text that was compiled.  When the source asks
    for it, the SASS register-bank pass then rewrites the cubin (runtime/sass_stage.py)."""
    check_arch(arch)
    if src.language not in ("cuda", "ptx"):
        raise CompileError(f"compile_source takes CUDA C or PTX; {src.name} is {src.language}")
    stage, text, options = _stage_of(src, arch)
    inputs = compile_inputs(stage, src.name, arch, options, text)
    entry, hit = cached_stage(inputs, {"text": text}, use_cache)
    art = Artifact(src, arch, entry.ptx, entry.cubin, entry.log, _resources(entry.log, entry.cubin, src.name),
                   inputs["compiler"], from_cache=hit)
    if src.sass_pass:
        art = post_stage("sass-pass").apply(art, use_cache)
    return art


# ---- stages after the compiler, cached like a compile ----------------------------------------
# The pipeline is emit -> NVRTC / nvJitLink -> cubin -> optional SASS pass -> load.  The
# compiler does not import the pass: runtime/sass_stage.py registers it here (regtile.runtime's
# __init__ imports it), with how to apply it to an Artifact, how to rebuild a cached result from
# its recorded inputs (`regtile cache verify`) and why a recorded result is stale.
@dataclass(frozen=True)
class PostStage:
    apply: object    # (Artifact, use_cache) -> Artifact
    rebuild: object  # (inputs, rebuild payload) -> cache.Entry
    stale: object    # (inputs) -> Optional[str]


_POST_STAGES: dict = {}


def register_post_stage(name: str, stage: PostStage) -> None:
    _POST_STAGES[name] = stage


def post_stage(name: str) -> PostStage:
    try:
        return _POST_STAGES[name]
    except KeyError:
        raise CompileError(f"no {name!r} stage is registered (import regtile.runtime)") from None


def _stage_of(src: KernelSource, arch: str) -> Tuple[str, str, Tuple[str, ...]]:
    if src.language == "ptx":
        from ..codegen.ptx_arch import for_arch
        return "nvjitlink", for_arch(src.text, arch), NVJITLINK_OPTIONS
    return "nvrtc", src.text, NVRTC_OPTIONS


def compile_inputs(stage: str, name: str, arch: str, options: Sequence[str], text: str) -> dict:
    """What a compile's result depends on: the cache key's inputs, recorded in the entry."""
    version = nvrtc_version() if stage == "nvrtc" else nvjitlink_version()
    return {"stage": stage, "compiler": version, "arch": arch, "options": list(options), "name": name,
            "source_sha256": _cache.sha256_text(text)}


def cached_stage(inputs: dict, rebuild: dict, use_cache: bool) -> Tuple[_cache.Entry, bool]:
    """(entry, from_cache): the result recorded under `inputs`, or built (rebuild_entry) and
    stored; the compile stage's and every post stage's (runtime/sass_stage.py) cache."""
    if use_cache:
        hit = _cache.load(inputs)
        if hit is not None:
            return hit, True
    entry = rebuild_entry(inputs, rebuild)
    if use_cache:
        _cache.store(inputs, entry, rebuild)
    return entry, False


def rebuild_entry(inputs: dict, rebuild: dict) -> _cache.Entry:
    """Build a result from what its entry records (compile_source, and `regtile cache verify`)."""
    stage = inputs["stage"]
    if stage in ("nvrtc", "nvjitlink"):
        ptx, cubin, log = run_worker(stage, inputs["name"], rebuild["text"], inputs["arch"], inputs["options"])
        return _cache.Entry(ptx=ptx, cubin=cubin, log=log)
    if stage in _POST_STAGES:
        return _POST_STAGES[stage].rebuild(inputs, rebuild)
    raise CompileError(f"no rebuild for stage {stage!r}")


def current_inputs_differ(inputs: dict) -> Optional[str]:
    """Why an entry's inputs cannot be rebuilt by this install (another compiler or pass
    version), or None.  Such an entry is never loaded (its key is not asked for)."""
    stage = inputs.get("stage")
    if stage in ("nvrtc", "nvjitlink"):
        now = nvrtc_version() if stage == "nvrtc" else nvjitlink_version()
        return None if inputs.get("compiler") == now else f"built by {inputs.get('compiler')}, this is {now}"
    if stage in _POST_STAGES:
        return _POST_STAGES[stage].stale(inputs)
    return f"unknown stage {stage!r}"


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


def _compile_item(item) -> Optional[str]:
    cfg, backend, arch = item
    try:
        compile_config(cfg, arch, backend=backend)
        return None
    except Exception as e:  # reported per config: a sweep skips that one
        return f"{type(e).__name__}: {str(e)[:200]}"


def compile_many(items: Sequence[Tuple[object, str]], arch: str, workers: int = 16) -> list:
    """Compile each (config, backend) of `items` into the kernel cache, `workers` processes at a
    time (spawned: the caller may hold a CUDA context), as the sweeps do before they time: a list,
    in the order of `items`, of None or the error of that config."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    if not items:
        return []
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(_compile_item, [(cfg, backend, arch) for cfg, backend in items]))
