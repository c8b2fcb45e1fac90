"""Operands of the public entry points: numpy arrays (host) or device arrays.

Device arrays come from any library through `__cuda_array_interface__` (torch,
cupy, numba) or DLPack (`__dlpack__`), taken without copies and without importing
that library.  Everything here only reads metadata: no GPU is touched, so input
checks run (and fail) before any launch, also on machines without a GPU.
"""
from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from ..codegen.kernel import INT_MAX
from .errors import InputError

# The cached calls' fast path (runtime/gemm.py, runtime/gemv.py): scalars taken as they are,
# and how many operand-metadata keys each remembers.
REAL = (float, int)
FAST_SIZE = 1024
_torch_types: Optional[tuple] = None


def torch_tensor_types() -> tuple:
    """torch.Tensor and nn.Parameter once the caller has imported torch (regtile never imports
    it for this); () before that.  The one test of "a torch tensor": by exact type on the fast
    path (fast_key), by isinstance in array_meta (subclasses too)."""
    global _torch_types
    if _torch_types is None:
        torch = sys.modules.get("torch")
        if torch is None:
            return ()
        _torch_types = (torch.Tensor, torch.nn.Parameter)
    return _torch_types


def fast_key(a, b, c, *extra):
    """The fast paths' key (regtile.sgemm, Gemm, regtile.sgemv): everything a call's checks and
    plan depend on, from a few attribute reads of three torch tensors (dtype, shape, strides,
    device) and `extra`; None when one is not a torch tensor (the full path then)."""
    tt = _torch_types or torch_tensor_types()
    if type(a) not in tt or type(b) not in tt or type(c) not in tt:
        return None
    return (a.dtype, a.shape, a.stride(), a.get_device(), b.dtype, b.shape, b.stride(), b.get_device(),
            c.dtype, c.shape, c.stride(), c.get_device()) + extra


def remember(table: dict, key: tuple, value: tuple) -> None:
    """Store a fast-path entry; a full table starts over (FAST_SIZE keys at most)."""
    if len(table) >= FAST_SIZE:
        table.clear()
    table[key] = value


@dataclass
class Operand:
    """A 2-D float32 row-major matrix (or a 1-D vector as rows=n, cols=1)."""
    name: str
    rows: int
    cols: int
    ld: int  # elements between rows
    ptr: Optional[int]  # device pointer, None for host arrays
    host: Optional[np.ndarray]
    owner: Any  # keeps the caller's object alive while we hold its pointer

    @property
    def on_device(self) -> bool:
        return self.ptr is not None

    @property
    def extent(self) -> int:
        """Elements from the first to one past the last, with the leading dimension."""
        return 0 if self.rows == 0 else (self.rows - 1) * self.ld + self.cols


# ---- device array protocols ---------------------------------------------------------
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_KDL_CUDA, _KDL_FLOAT = 2, 2


def _from_cai(obj, name: str):
    cai = obj.__cuda_array_interface__
    typestr = cai.get("typestr")
    shape = tuple(int(s) for s in cai["shape"])
    if typestr not in ("<f4", "=f4", "f4"):
        raise InputError(f"{name}: dtype {typestr!r}, expected float32 ('<f4'); convert with .float() / .astype")
    itemsize = 4
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        acc, rev = itemsize, []
        for d in reversed(shape):
            rev.append(acc)
            acc *= d
        strides = tuple(reversed(rev))
    ptr = int(cai["data"][0])
    return shape, tuple(int(s) // itemsize if s % itemsize == 0 else -1 for s in strides), ptr, \
        tuple(int(s) % itemsize for s in strides)


def _from_dlpack(obj, name: str):
    dev_type, _ = obj.__dlpack_device__()
    if int(dev_type) != _KDL_CUDA:
        raise InputError(f"{name}: a DLPack tensor on device type {int(dev_type)}, not CUDA (2); "
                         f"pass a numpy array for host data")
    capsule = obj.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    # DLManagedTensor starts with its DLTensor.  The capsule keeps ownership (it is
    # not renamed "used_dltensor"), so its deleter runs when it is collected; `obj`
    # is held by the Operand, and it owns the memory.
    t = _DLTensor.from_address(get(capsule, b"dltensor"))
    if (t.dtype.code, t.dtype.bits, t.dtype.lanes) != (_KDL_FLOAT, 32, 1):
        raise InputError(f"{name}: DLPack dtype (code {t.dtype.code}, {t.dtype.bits} bits), expected float32")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides = tuple(int(np.prod(shape[i + 1:])) for i in range(t.ndim))
    return shape, strides, int(t.data or 0) + int(t.byte_offset), (0,) * t.ndim


def _torch_meta(obj, name: str):
    """shape, strides (elements), pointer of a torch tensor without __cuda_array_interface__
    (which refuses requires_grad tensors and costs a dict): a few attribute reads."""
    if str(obj.dtype) != "torch.float32":
        raise InputError(f"{name}: dtype {obj.dtype}, expected torch.float32; convert with .float()")
    if not obj.is_cuda:
        raise InputError(f"{name}: a torch tensor on {obj.device}; pass CUDA tensors (or numpy arrays for host data)")
    return tuple(obj.shape), tuple(obj.stride()), obj.data_ptr(), obj.get_device()


def array_meta(obj, name: str):
    """(shape, strides in elements, device pointer or None, host array or None, torch device or
    None) of a float32 numpy array, torch tensor, __cuda_array_interface__ or DLPack array; the
    one reader of operand metadata (as_operand and as_matrix check their own shapes on it)."""
    if isinstance(obj, np.ndarray):
        if obj.dtype != np.float32:
            raise InputError(f"{name}: dtype {obj.dtype}, expected float32; convert with .astype(np.float32)")
        shape, ptr, host, torch_dev, rem = obj.shape, None, obj, None, tuple(s % 4 for s in obj.strides)
        strides = tuple(s // 4 for s in obj.strides)
    elif isinstance(obj, torch_tensor_types()):
        (shape, strides, ptr, torch_dev), host, rem = _torch_meta(obj, name), None, ()
    elif hasattr(obj, "__cuda_array_interface__"):
        (shape, strides, ptr, rem), host, torch_dev = _from_cai(obj, name), None, None
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        (shape, strides, ptr, rem), host, torch_dev = _from_dlpack(obj, name), None, None
    else:
        raise InputError(f"{name}: {type(obj).__name__} is neither a numpy array nor a device array "
                         f"(torch tensor, __cuda_array_interface__ or DLPack)")
    if any(rem):
        raise InputError(f"{name}: strides are not whole float32 elements")
    return shape, strides, ptr, host, torch_dev


def as_operand(obj, name: str, ndim: int = 2) -> Operand:
    """Check a matrix (ndim=2) or vector (ndim=1) argument; InputError names what is wrong."""
    shape, strides, ptr, host, _ = array_meta(obj, name)
    if len(shape) != ndim:
        raise InputError(f"{name}: {len(shape)}-D array, expected {ndim}-D")
    if any(int(d) < 1 for d in shape):
        raise InputError(f"{name}: shape {tuple(shape)} has a zero or negative dimension; sizes must be >= 1")
    if ndim == 1:
        (n,), (s,) = shape, strides
        if n > 1 and s != 1:
            raise InputError(f"{name}: vector stride {s}, expected 1 (contiguous); pass a contiguous copy")
        rows, cols, ld = n, 1, 1
    else:
        rows, cols = shape
        rs, cs = strides
        if cols > 1 and cs != 1:
            raise InputError(f"{name}: column stride {cs}, expected 1 (row-major with contiguous rows); "
                             f"pass np.ascontiguousarray({name}) or a row-major copy")
        ld = rs if rows > 1 else max(cols, 1)
        if rows > 1 and ld < cols:
            raise InputError(f"{name}: row stride {ld} is smaller than its {cols} columns (transposed or "
                             f"overlapping view); pass a row-major copy")
    if ld > INT_MAX or rows > INT_MAX or cols > INT_MAX:
        raise InputError(f"{name}: dimensions and leading dimension must fit in a 32-bit int")
    if ptr is not None and ptr == 0:
        raise InputError(f"{name}: device pointer is null (a {rows}x{cols} array needs memory)")
    if ptr is not None and ptr % 4:
        raise InputError(f"{name}: device pointer {ptr:#x} is not 4-byte aligned")
    return Operand(name, rows, cols, ld, ptr, host, obj)


# ---- GEMM operands: any layout with one unit stride, 2-D or batched 3-D ---------------
@dataclass
class Matrix:
    """A float32 matrix operand of sgemm as the caller passed it (before transa/transb):
    `rows` x `cols`, element (i, j) at i*ld + j (`colmajor` False) or j*ld + i (True),
    optionally `batch` of them `bstride` elements apart (0: one matrix broadcast)."""
    name: str
    rows: int
    cols: int
    ld: int
    colmajor: bool
    batch: int  # 0 for a 2-D operand
    bstride: int
    ptr: Optional[int]  # device pointer, None for host arrays
    host: Optional[np.ndarray]
    owner: Any
    torch_device: Optional[int] = None  # the CUDA device index of a torch tensor
    ndim: int = 2

    @property
    def on_device(self) -> bool:
        return self.ptr is not None


def in_place_layout(rows: int, cols: int, rs: int, cs: int) -> Optional[Tuple[int, bool]]:
    """(ld, colmajor) of a 2-D view with strides (rs, cs) in elements that regtile reads in
    place, None when it cannot.  Row-major (cs == 1, rs >= cols) is preferred; a column-major
    view (rs == 1, cs >= rows: a transpose, Fortran order) is used in place with the flag set."""
    if rs < 0 or cs < 0:
        return None
    if cols <= 1 or cs == 1:
        ld = rs if rows > 1 else max(cols, 1)
        if ld >= cols:
            return max(ld, 1), False
    if rows <= 1 or rs == 1:
        ld = cs if cols > 1 else max(rows, 1)
        if ld >= rows:
            return max(ld, 1), True
    return None


def _layout(name: str, rows: int, cols: int, rs: int, cs: int) -> Tuple[int, bool]:
    """in_place_layout, or the InputError that says why there is none."""
    found = in_place_layout(rows, cols, rs, cs)
    if found is not None:
        return found
    if rs < 0 or cs < 0:
        raise InputError(f"{name}: negative strides ({rs}, {cs}); pass a copy")
    if cols > 1 and cs != 1 and rs != 1:
        raise InputError(f"{name}: strides ({rs}, {cs}): neither the column stride nor the row stride is 1; "
                         f"pass a copy with one contiguous dimension")
    raise InputError(f"{name}: strides ({rs}, {cs}) overlap for a {rows}x{cols} matrix (the leading "
                     f"dimension is smaller than the contiguous side); pass a copy")


def as_matrix(obj, name: str) -> Matrix:
    """Check a GEMM operand: 2-D (rows, cols) or 3-D (batch, rows, cols), float32, one unit
    stride among the last two; zero sizes are allowed (sgemm treats them as BLAS does)."""
    shape, strides, ptr, host, torch_dev = array_meta(obj, name)
    if len(shape) not in (2, 3):
        raise InputError(f"{name}: {len(shape)}-D array, expected 2-D (rows, cols) or 3-D (batch, rows, cols)")
    if any(int(d) < 0 for d in shape):
        raise InputError(f"{name}: shape {tuple(shape)} has a negative dimension")
    batch, bstride = 0, 0
    if len(shape) == 3:
        batch, bstride = int(shape[0]), int(strides[0])
        if bstride < 0:
            raise InputError(f"{name}: negative batch stride {bstride}")
        if batch <= 1:
            bstride = 0
    rows, cols = int(shape[-2]), int(shape[-1])
    empty = rows == 0 or cols == 0 or (len(shape) == 3 and batch == 0)
    if empty:  # nothing is read or written: any strides
        ld, colmajor = max(cols, 1), False
    else:
        ld, colmajor = _layout(name, rows, cols, int(strides[-2]), int(strides[-1]))
    if max(ld, rows, cols) > INT_MAX:
        raise INPUT_TOO_BIG(name)
    if ptr is not None and not empty:
        if ptr == 0:
            raise InputError(f"{name}: device pointer is null (a {rows}x{cols} array needs memory)")
        if ptr % 4:
            raise InputError(f"{name}: device pointer {ptr:#x} is not 4-byte aligned")
    return Matrix(name, rows, cols, ld, colmajor, batch, bstride, ptr, host, obj, torch_dev, len(shape))


def INPUT_TOO_BIG(name: str) -> InputError:
    return InputError(f"{name}: dimensions and leading dimension must fit in a 32-bit int")
