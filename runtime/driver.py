"""Load and launch stage: the CUDA driver API through cuda.bindings.driver.

Every driver call goes through `check`, which raises DriverError naming the call
and the CUresult.  One primary context on device 0 is made current on first use.
Modules are loaded once per cubin (keyed by its sha256).
"""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from ..codegen.hardware import arch_number, needs_smem_opt_in
from ..codegen.kernel import ENTRY_ROLES
from .errors import DriverError, LaunchError, NoGpuError

_lock = threading.Lock()
_device: Optional["Device"] = None
_modules: Dict[Tuple[str, str], "LoadedKernel"] = {}


_bindings = None  # cuda.bindings.driver once imported


def _cu():
    # Kept in a global: a `from package import module` statement costs about 0.5 us a call (the
    # import machinery's fromlist handling), more than the driver call it serves on the hot path.
    global _bindings
    if _bindings is None:
        try:
            from cuda.bindings import driver
        except ImportError as e:  # cuda-bindings is a dependency; this means a broken install
            raise NoGpuError(f"cuda.bindings is not importable: {e}") from None
        _bindings = driver
    return _bindings


def _name(err) -> str:
    cu = _cu()
    try:
        e2, name = cu.cuGetErrorName(err)
        if e2 == cu.CUresult.CUDA_SUCCESS:
            return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:
        pass
    return repr(err)


def check(res, what: str, error=DriverError):
    """Unwrap a cuda.bindings result tuple; raise `error` on anything but CUDA_SUCCESS."""
    cu = _cu()
    err = res[0] if isinstance(res, tuple) else res
    if err != cu.CUresult.CUDA_SUCCESS:
        raise error(f"{what} failed: {_name(err)}")
    if isinstance(res, tuple):
        if len(res) == 1:
            return None
        return res[1] if len(res) == 2 else res[1:]
    return None


@dataclass(frozen=True)
class Device:
    ordinal: int
    handle: Any
    context: Any
    name: str
    compute_capability: Tuple[int, int]
    sm_count: int
    driver_version: str
    max_smem_optin: int
    l2_bytes: int  # the L2 cache: 50 MB on the H100 SXM, 60 MB on the H200 (benchmarks rotate past twice it)

    @property
    def arch(self) -> str:
        return f"sm_{self.compute_capability[0]}{self.compute_capability[1]}"


def device() -> Device:
    """Device 0 with its primary context current (created once); NoGpuError without one."""
    global _device
    with _lock:
        if _device is not None:
            check(_cu().cuCtxSetCurrent(_device.context), "cuCtxSetCurrent")
            return _device
        cu = _cu()
        try:
            res = cu.cuInit(0)
        except Exception as e:  # libcuda.so missing: no driver on this machine
            raise NoGpuError(f"no CUDA driver on this machine ({e}); GPU commands need an NVIDIA GPU") from None
        if res[0] != cu.CUresult.CUDA_SUCCESS:
            raise NoGpuError(f"cuInit failed ({_name(res[0])}): no usable NVIDIA GPU on this machine")
        count = check(cu.cuDeviceGetCount(), "cuDeviceGetCount", NoGpuError)
        if not count:
            raise NoGpuError("the CUDA driver sees no GPU on this machine")
        dev = check(cu.cuDeviceGet(0), "cuDeviceGet")
        attr = cu.CUdevice_attribute

        def get(a):
            return check(cu.cuDeviceGetAttribute(a, dev), f"cuDeviceGetAttribute({a.name})")

        raw_name = check(cu.cuDeviceGetName(256, dev), "cuDeviceGetName")
        name = raw_name.split(b"\0")[0].decode() if isinstance(raw_name, bytes) else str(raw_name)
        ver = check(cu.cuDriverGetVersion(), "cuDriverGetVersion")
        ctx = check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        _device = Device(
            ordinal=0, handle=dev, context=ctx, name=name,
            compute_capability=(get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)),
            sm_count=get(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            driver_version=f"CUDA {ver // 1000}.{(ver % 1000) // 10}",
            max_smem_optin=get(attr.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
            l2_bytes=get(attr.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
        )
        return _device


def gpu_available() -> bool:
    """True when a CUDA GPU can be used; never raises."""
    try:
        device()
        return True
    except Exception:
        return False


def synchronize(after: str = "") -> None:
    """Wait for the context; `after` names the work, so that an asynchronous kernel
    fault reported here says which kernel it was."""
    what = f"cuCtxSynchronize after {after}" if after else "cuCtxSynchronize (a kernel may have failed)"
    check(_cu().cuCtxSynchronize(), what, LaunchError)


# ---- memory -------------------------------------------------------------------------
class DeviceBuffer:
    """Device memory owned by Python: freed on close() or garbage collection."""

    ptr = 0  # until cuMemAlloc succeeds: close()/__del__ of a failed allocation free nothing

    def __init__(self, nbytes: int):
        device()
        self.nbytes = int(nbytes)
        self.ptr = int(check(_cu().cuMemAlloc(max(self.nbytes, 1)), f"cuMemAlloc({self.nbytes})"))

    def close(self):
        if self.ptr:
            try:
                _cu().cuMemFree(self.ptr)
            finally:
                self.ptr = 0

    def __del__(self):
        # At interpreter exit the context goes with the process, and cuda.bindings may already
        # be unimportable (a buffer held by a module global would print a traceback).
        if self.ptr and not sys.is_finalizing():
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def upload(self, host: np.ndarray) -> None:
        host = np.ascontiguousarray(host)
        if host.nbytes > self.nbytes:
            raise DriverError(f"upload of {host.nbytes} bytes into a {self.nbytes}-byte buffer")
        check(_cu().cuMemcpyHtoD(self.ptr, host.ctypes.data, host.nbytes), "cuMemcpyHtoD")

    def download(self, host: np.ndarray) -> np.ndarray:
        if not host.flags.c_contiguous or host.nbytes > self.nbytes:
            raise DriverError("download needs a C-contiguous host array no larger than the buffer")
        check(_cu().cuMemcpyDtoH(host.ctypes.data, self.ptr, host.nbytes), "cuMemcpyDtoH")
        return host


def to_device(host: np.ndarray) -> DeviceBuffer:
    buf = DeviceBuffer(host.nbytes)
    buf.upload(host)
    return buf


@contextlib.contextmanager
def _private_stream():
    """A non-blocking stream of its own for a plan's one-time device work, synchronised before
    the block ends: a plan's first call may come while the caller's stream is being captured
    (outside_capture's relaxed mode), where work on that stream would land in the graph and work
    on the legacy stream would order against a blocking stream that captures (an error)."""
    cu = _cu()
    s = check(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate")
    try:
        yield s
        check(cu.cuStreamSynchronize(s), "cuStreamSynchronize")
    finally:
        check(cu.cuStreamDestroy(s), "cuStreamDestroy")


def zeros_u32(count: int) -> DeviceBuffer:
    """A new device buffer of `count` zero words (at least one), zeroed before it returns (on a
    private stream): the one way regtile zeroes the counters and zero operands its plans keep."""
    buf = DeviceBuffer(4 * max(count, 1))
    with _private_stream() as s:
        fill_u32(buf.ptr, 0, max(count, 1), s)
    return buf


def to_device_private(host: np.ndarray) -> DeviceBuffer:
    """A new device buffer holding `host`'s bytes, copied on a private stream and complete before
    it returns: the work lists a plan uploads once (to_device copies on the legacy stream)."""
    host = np.ascontiguousarray(host)
    buf = DeviceBuffer(host.nbytes)
    with _private_stream() as s:
        check(_cu().cuMemcpyHtoDAsync(buf.ptr, host.ctypes.data, host.nbytes, s), "cuMemcpyHtoDAsync")
    return buf


NAN_BITS = 0x7FC00000  # float32 quiet NaN


def fill_u32(ptr: int, bits: int, count: int, stream: int = 0) -> None:
    """Fill `count` 32-bit words at `ptr` with `bits` (NaN poison: NAN_BITS)."""
    check(_cu().cuMemsetD32Async(ptr, bits, count, stream), "cuMemsetD32Async")


def copy_device(dst: int, src: int, nbytes: int, stream: int = 0) -> None:
    check(_cu().cuMemcpyDtoDAsync(dst, src, nbytes, stream), "cuMemcpyDtoDAsync")


# ---- modules and launches -----------------------------------------------------------
_C_TYPES = {"int": np.int32, "float": np.float32, "long long": np.int64}


class LoadedKernel:
    """A cubin loaded into the current context, with its launch geometry.  Each of the
    module's other entries (source.entries: codegen/kernel.ENTRY_ROLES) is loaded beside it
    from the same module, in `entries` by role: a split-K kernel's reduction as `reduce`, a
    stream-K module's work-list kernel as `ranges`, an edge-split module's small-tile kernel
    (with its own `ranges`) as `edge` (None where the module has no such entry)."""

    def __init__(self, artifact, label: str = "", source=None, module=None):
        cu = _cu()
        dev = device()
        self.artifact = artifact
        self.source = source if source is not None else artifact.source
        self.label = label or self.source.name
        if module is None:
            image = np.frombuffer(artifact.cubin, dtype=np.uint8).copy()
            module = check(cu.cuModuleLoadData(image.ctypes.data), f"cuModuleLoadData({self.source.name})",
                           LaunchError)
        self.module = module
        self.function = check(cu.cuModuleGetFunction(self.module, self.source.name.encode()),
                              f"cuModuleGetFunction({self.source.name})", LaunchError)
        smem = self.source.geometry.dynamic_smem_bytes
        # static and dynamic shared memory count together against both limits (hardware.needs_smem_opt_in)
        static = check(cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                             self.function),
                       f"cuFuncGetAttribute(SHARED_SIZE_BYTES) for {self.source.name}", LaunchError)
        if static + smem > dev.max_smem_optin:
            raise LaunchError(f"{self.source.name}: needs {smem} bytes of dynamic and {static} of static shared "
                              f"memory, the {dev.name} allows {dev.max_smem_optin} per block; use a smaller tile "
                              f"or fewer stages")
        if needs_smem_opt_in(static, smem):
            check(cu.cuFuncSetAttribute(
                self.function, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
                f"cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES={smem}) for {self.source.name}", LaunchError)
        self.entries = {role: LoadedKernel(artifact, f"{self.label} ({ENTRY_ROLES[role]})", src, self.module)
                        for role, src in getattr(self.source, "entries", ())}
        self.reduce, self.ranges, self.edge = (self.entries.get(role) for role in ("reduce", "ranges", "edge"))
        self._blocks_per_sm: Optional[int] = None
        # launch(): the programmatic launch configs by (grid, PROGRAMMATIC), built once; hStream is
        # set per call under the lock (a config is shared by the threads launching this kernel)
        self._programmatic: Dict[tuple, Optional["_LaunchConfig"]] = {}
        self._programmatic_lock = threading.Lock()

    @property
    def blocks_per_sm(self) -> int:
        """Blocks of this kernel one SM runs at once (the driver's occupancy query)."""
        if self._blocks_per_sm is None:
            g = self.source.geometry
            self._blocks_per_sm = int(check(_cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                self.function, g.block[0] * g.block[1] * g.block[2], g.dynamic_smem_bytes),
                f"cuOccupancyMaxActiveBlocksPerMultiprocessor({self.source.name})", LaunchError))
        return self._blocks_per_sm

    def pack(self, args: Sequence) -> Tuple[np.ndarray, list]:
        """kernelParams: an array of pointers to each argument's storage (kept alive)."""
        if len(args) != len(self.source.params):
            raise LaunchError(f"{self.source.name} takes {len(self.source.params)} arguments, got {len(args)}")
        storage = []
        for (pname, ctype), value in zip(self.source.params, args):
            if "*" in ctype:
                storage.append(np.array([int(value)], dtype=np.uint64))
            else:
                storage.append(np.array([value], dtype=_C_TYPES[ctype]))
        params = np.array([s.ctypes.data for s in storage], dtype=np.uint64)
        return params, storage

    def describe_launch(self, grid: Optional[Tuple[int, int, int]] = None) -> str:
        """The kernel and its launch config, for error messages."""
        g = self.source.geometry
        where = f"grid {tuple(grid)}, " if grid is not None else ""
        return (f"{self.label} ({self.source.name}, {where}block {tuple(g.block)}, "
                f"{g.dynamic_smem_bytes} B dynamic shared memory, {self.artifact.arch})")

    def launch(self, grid: Tuple[int, int, int], args: Sequence, stream: int = 0, packed=None) -> None:
        cu = _cu()
        params, storage = packed if packed is not None else self.pack(args)
        key = (tuple(grid), PROGRAMMATIC)
        ex = self._programmatic.get(key, False)
        if ex is False:
            ex = self._programmatic.setdefault(key, programmatic_config(self, grid))
        if ex is not None:
            with self._programmatic_lock:
                ex.hStream = int(stream)
                err = _launch_ex_fn(ctypes.addressof(ex), int(self.function), params.ctypes.data, None)
            if err:
                raise LaunchError(f"cuLaunchKernelEx (programmatic) of {self.describe_launch(grid)} failed: "
                                  f"{_name(cu.CUresult(err))}")
            return
        bx, by, bz = self.source.geometry.block
        check(cu.cuLaunchKernel(self.function, grid[0], grid[1], grid[2], bx, by, bz,
                                self.source.geometry.dynamic_smem_bytes, stream, params.ctypes.data, 0),
              f"cuLaunchKernel of {self.describe_launch(grid)}", LaunchError)


def load(artifact, label: str = "") -> LoadedKernel:
    key = (hashlib.sha256(artifact.cubin).hexdigest(), artifact.name)
    kernel = _modules.get(key)
    if kernel is None:
        kernel = LoadedKernel(artifact, label)
        _modules[key] = kernel
    return kernel


# ---- the hot launch path (runtime/plans.py) -------------------------------------------
_STRUCT = {"int": "i", "float": "f", "long long": "q"}
_CU_ERROR_INVALID_CONTEXT, _CU_ERROR_NOT_INITIALIZED = 201, 3
_raw_launch = None  # the cuLaunchKernel callable PackedLaunch uses (_launcher)


def make_launcher(kind: str = "bindings"):
    """cuLaunchKernel as a plain callable returning an int CUresult: cuda-bindings'
    cuLaunchKernel ("bindings"), or libcuda through ctypes ("ctypes"; cuda-bindings where
    libcuda.so.1 cannot be opened).  docs/overhead.md measures both on the H100: pack + launch
    6.2-6.5 us through cuda-bindings, 7.5-7.6 us through ctypes (the default until session 4,
    whose GPU suite ran on cuda-bindings)."""
    if kind == "ctypes":
        import ctypes
        try:
            fn = ctypes.CDLL("libcuda.so.1").cuLaunchKernel
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
            return fn
        except (OSError, AttributeError):
            pass
    cu = _cu()

    def via_bindings(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        return int(cu.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, params, 0)[0])
    return via_bindings


def _launcher():
    """The process's launcher: make_launcher(REGTILE_LAUNCH, default "bindings"), made once."""
    global _raw_launch
    if _raw_launch is None:
        _raw_launch = make_launcher(os.environ.get("REGTILE_LAUNCH", "bindings"))
    return _raw_launch


# ---- programmatic dependent launch (codegen/kernel.PDL_WAIT) ---------------------------------
# A kernel whose geometry is `programmatic` goes through cuLaunchKernelEx with the
# programmatic-stream-serialization attribute on sm_90 and newer: its blocks may be scheduled
# while the kernel before it on the stream finishes, and its first lines wait for that kernel.
# On by default: lab/experiments/pdl_ab.py measured it ahead on every one of 27 shapes on the H100
# (2026-11-27, docs/shapes-history.md): 0.4-1.1 us a GEMV in a CUDA graph (32x4096 T 2.08 -> 1.52 us),
# up to 0.7 us a split-K GEMM.  REGTILE_PDL=0 (or PROGRAMMATIC = False before a plan packs its
# launches) turns it off.  Off, below sm_90, or where ctypes cannot open libcuda: plain launches,
# and the kernels' griddepcontrol lines do nothing (no kernel in flight before them is a prerequisite).
PROGRAMMATIC = os.environ.get("REGTILE_PDL", "1") != "0"
_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6


class _LaunchAttribute(ctypes.Structure):  # CUlaunchAttribute (cuda.h): id, padding, a 64-byte union
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_int),
                ("rest", ctypes.c_char * 60)]


class _LaunchConfig(ctypes.Structure):  # CUlaunchConfig (cuda.h)
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_LaunchAttribute)), ("numAttrs", ctypes.c_uint)]


_launch_ex_fn = None  # libcuda's cuLaunchKernelEx through ctypes; False where it cannot be had


def _have_launch_ex() -> bool:
    global _launch_ex_fn
    if _launch_ex_fn is None:
        try:
            fn = ctypes.CDLL("libcuda.so.1").cuLaunchKernelEx
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_void_p] * 4
            _launch_ex_fn = fn
        except (OSError, AttributeError):
            _launch_ex_fn = False
    return bool(_launch_ex_fn)


def programmatic_config(kernel: "LoadedKernel", grid) -> Optional[_LaunchConfig]:
    """The CUlaunchConfig of a programmatic launch of `kernel` on `grid` (hStream set per call),
    or None where the launch is a plain cuLaunchKernel."""
    g = kernel.source.geometry
    if not (PROGRAMMATIC and g.programmatic and arch_number(kernel.artifact.arch) >= 90 and _have_launch_ex()):
        return None
    attr = _LaunchAttribute(id=_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, value=1)
    cfg = _LaunchConfig(*(int(v) for v in grid), *g.block, g.dynamic_smem_bytes, None,
                        ctypes.pointer(attr), 1)
    cfg._attr = attr  # kept alive with the config
    return cfg


class PackedLaunch:
    """One launch of a kernel whose arguments sit in one buffer packed at construction;
    a call rewrites only the per-call fields (the operands' pointers, alpha, beta) and
    launches: no numpy, no driver-object wrapping.  `dynamic` maps a parameter name
    (any of the kernel's: A, B, C, alpha, beta for an SGEMM; lda, x, y for a GEMV; S for a
    few-vector staging) to the index of its value in the call's tuple; a pointer's
    value in `args` is its offset from that base (an edge part, a batch entry)."""

    __slots__ = ("kernel", "grid", "buf", "params", "fields", "func", "block", "smem", "ex", "ex_addr")

    def __init__(self, kernel: "LoadedKernel", grid, args: Sequence, dynamic: Dict[str, int]):
        import ctypes
        import struct
        params = kernel.source.params
        if len(args) != len(params):
            raise LaunchError(f"{kernel.source.name} takes {len(params)} arguments, got {len(args)}")
        offsets, off = [], 0
        codes = []
        for (_, ctype), value in zip(params, args):
            code = "Q" if "*" in ctype else _STRUCT[ctype]
            size = struct.calcsize(code)
            off = -(-off // size) * size  # the C alignment of each argument
            offsets.append(off)
            codes.append(code)
            off += size
        self.buf = ctypes.create_string_buffer(max(off, 8))
        base = ctypes.addressof(self.buf)
        self.fields = []
        for (pname, _), value, code, o in zip(params, args, codes, offsets):
            packer = struct.Struct("<" + code).pack_into
            packer(self.buf, o, int(value) if code in "Qiq" else float(value))
            if pname in dynamic:
                self.fields.append((packer, o, dynamic[pname], int(value) if code == "Q" else None))
        self.params = (ctypes.c_void_p * max(len(params), 1))(*[base + o for o in offsets])
        self.kernel = kernel
        self.grid = tuple(int(g) for g in grid)
        self.func = int(kernel.function)
        self.block = tuple(kernel.source.geometry.block)
        self.smem = kernel.source.geometry.dynamic_smem_bytes
        self.ex = programmatic_config(kernel, self.grid)  # None: a plain launch
        self.ex_addr = ctypes.addressof(self.ex) if self.ex is not None else 0

    def __call__(self, values: tuple, stream: int) -> None:
        buf = self.buf
        for packer, o, i, add in self.fields:
            packer(buf, o, values[i] + add if add is not None else values[i])
        if self.ex is None:  # the plain launch inline: the hot path (docs/overhead.md)
            gx, gy, gz = self.grid
            bx, by, bz = self.block
            err = (_raw_launch or _launcher())(self.func, gx, gy, gz, bx, by, bz, self.smem, stream, self.params, None)
        else:
            err = self._launch(stream)
        if err:
            if err in (_CU_ERROR_INVALID_CONTEXT, _CU_ERROR_NOT_INITIALIZED):
                device()  # a thread that never used the GPU: make the primary context current
                err = self._launch(stream)
            if err:
                cu = _cu()
                what = "cuLaunchKernelEx (programmatic)" if self.ex is not None else "cuLaunchKernel"
                raise LaunchError(f"{what} of {self.kernel.describe_launch(self.grid)} failed: "
                                  f"{_name(cu.CUresult(err))}")

    def _launch(self, stream: int) -> int:
        if self.ex is not None:
            self.ex.hStream = stream
            return _launch_ex_fn(self.ex_addr, self.func, self.params, None)
        gx, gy, gz = self.grid
        bx, by, bz = self.block
        return (_raw_launch or _launcher())(self.func, gx, gy, gz, bx, by, bz, self.smem, stream, self.params, None)


def stream_capturing(stream: int) -> bool:
    """Whether `stream` is being captured into a CUDA graph.  Asked before a plan's launches
    (runtime/plans.py), so a thread that never used the GPU is handled here as in
    PackedLaunch: the primary context made current, then asked again.
    cuda-bindings, not ctypes as the launch: with a stand-in libcuda (no GPU work, only the
    Python side) the ctypes call cost 0.77 us against cuda-bindings' 0.60 us; what cost was
    the wrapping around it (2.0 us before this plain success path and the cached module)."""
    cu = _cu()
    err, status = cu.cuStreamIsCapturing(stream)
    if err in (_CU_ERROR_INVALID_CONTEXT, _CU_ERROR_NOT_INITIALIZED):
        device()
        err, status = cu.cuStreamIsCapturing(stream)
    if err != cu.CUresult.CUDA_SUCCESS:
        check(err, "cuStreamIsCapturing")
    return status != cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE


def relaxed_capture():
    """Switch this thread to relaxed stream-capture mode (allocations allowed during a
    capture, made outside the graph); returns the mode to give restore_capture."""
    cu = _cu()
    return check(cu.cuThreadExchangeStreamCaptureMode(cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED),
                 "cuThreadExchangeStreamCaptureMode")


def restore_capture(mode) -> None:
    check(_cu().cuThreadExchangeStreamCaptureMode(mode), "cuThreadExchangeStreamCaptureMode")


@contextlib.contextmanager
def outside_capture(stream: int):
    """For a plan's first call on `stream`, which may come during a CUDA graph capture of it: the
    module loads and allocations made inside happen outside the graph (relaxed capture mode for
    this thread), kept for the graph's replays.  Yields whether `stream` was being captured.  The
    legacy stream 0 is never captured and never asked (asking it while another stream captures
    in global mode is an error)."""
    capturing = bool(stream) and stream_capturing(stream)
    mode = relaxed_capture() if capturing else None
    try:
        yield capturing
    finally:
        if mode is not None:
            restore_capture(mode)


class Stream:
    def __init__(self):
        device()
        self.handle = check(_cu().cuStreamCreate(0), "cuStreamCreate")

    def __int__(self):
        return int(self.handle)

    def synchronize(self):
        check(_cu().cuStreamSynchronize(self.handle), "cuStreamSynchronize (a kernel may have failed)", LaunchError)


class EventTimer:
    """Elapsed milliseconds between two events recorded on a stream."""

    def __init__(self):
        cu = _cu()
        device()
        self.start = check(cu.cuEventCreate(0), "cuEventCreate")
        self.stop = check(cu.cuEventCreate(0), "cuEventCreate")

    def time(self, fn, stream) -> float:
        cu = _cu()
        check(cu.cuEventRecord(self.start, stream), "cuEventRecord")
        fn()
        check(cu.cuEventRecord(self.stop, stream), "cuEventRecord")
        check(cu.cuEventSynchronize(self.stop), "cuEventSynchronize (a kernel may have failed)", LaunchError)
        return float(check(cu.cuEventElapsedTime(self.start, self.stop), "cuEventElapsedTime"))
