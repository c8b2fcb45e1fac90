"""Bad input to the public entry points is refused before any GPU work, with an
error that names the argument; no GPU is needed to see it."""
import numpy as np
import pytest

import regtile
from regtile.runtime.errors import InputError

rng = np.random.default_rng()


def _m(r, c, dtype=np.float32):
    return rng.standard_normal((r, c)).astype(dtype)


@pytest.mark.parametrize("args, kwargs, needle", [
    ((_m(4, 5), _m(6, 7)), {}, "shapes do not match"),
    ((_m(4, 5, np.float64), _m(5, 7)), {}, "float32"),
    ((_m(4, 5), _m(5, 7)), {"beta": 1.0}, "beta=1.0 needs C"),
    ((_m(4, 5), _m(5, 7), _m(4, 6)), {}, "C is 4x6, expected 4x7"),
    ((_m(4, 5), np.ones((5, 14), np.float32)[:, ::2]), {}, "neither the column stride nor the row stride is 1"),
    ((_m(4, 5)[None, None], _m(5, 7)), {}, "4-D"),
    ((np.zeros((2, 4, 5), np.float32), np.zeros((3, 5, 7), np.float32)), {}, "batch sizes do not match"),
    ((_m(4, 5), _m(4, 7)), {"transa": True, "transb": True}, r"op\(B\) = B\^T is 7x4"),
    (([[1.0]], _m(1, 1)), {}, "neither a numpy array"),
    ((_m(4, 5), _m(5, 7)), {"alpha": "2"}, "alpha='2'"),
    ((_m(4, 5), _m(5, 7)), {"config": "zorder"}, "SgemmConfig"),
])
def test_sgemm_refuses(args, kwargs, needle):
    with pytest.raises(InputError, match=needle):
        regtile.sgemm(*args, **kwargs)


def test_read_only_c_is_refused_and_untouched():
    C = _m(4, 7)
    C.setflags(write=False)
    before = C.copy()
    with pytest.raises(InputError, match="read-only"):
        regtile.sgemm(_m(4, 5), _m(5, 7), C, beta=1.0)
    assert np.array_equal(C, before)


@pytest.mark.parametrize("args, kwargs, needle", [
    ((_m(4, 5), np.ones(6, np.float32)), {}, "x has 6 elements"),
    ((_m(4, 5), np.ones(5, np.float32), np.ones(3, np.float32)), {}, "y has 3 elements"),
    ((_m(4, 5), np.ones(10, np.float32)[::2]), {}, "vector stride"),
    ((_m(4, 5), np.ones(5, np.float32)), {"beta": 2.0}, "needs y"),
])
def test_sgemv_refuses(args, kwargs, needle):
    with pytest.raises(InputError, match=needle):
        regtile.sgemv(*args, **kwargs)


class FakeDeviceArray:
    """An object with a CUDA array interface (no GPU needed to read it)."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x10000):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


def test_device_array_metadata_checked_without_gpu():
    A = FakeDeviceArray((4, 5))
    with pytest.raises(InputError, match="float32"):
        regtile.sgemm(FakeDeviceArray((4, 5), "<f8"), A)
    with pytest.raises(InputError, match="4-byte aligned"):
        regtile.sgemm(FakeDeviceArray((4, 5), ptr=0x10002), FakeDeviceArray((5, 3)), FakeDeviceArray((4, 3)))
    with pytest.raises(InputError, match="pass C"):
        regtile.sgemm(A, FakeDeviceArray((5, 3)))


def test_no_gpu_is_a_clear_error(monkeypatch):
    from regtile.runtime import driver
    if driver.gpu_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(regtile.runtime.errors.NoGpuError, match="GPU"):
        regtile.sgemm(_m(4, 5), _m(5, 7))


def test_no_cublas_is_a_clear_error(monkeypatch):
    from regtile.runtime import cublas
    from regtile.runtime.errors import CublasUnavailable
    monkeypatch.setattr(cublas, "_library", None)
    monkeypatch.setattr(cublas, "_candidates", lambda: iter(()))
    with pytest.raises(CublasUnavailable, match="no cuBLAS library found"):
        cublas.Cublas()


def test_cli_without_gpu_is_one_line_exit_2():
    import subprocess
    import sys
    from regtile.runtime import driver
    if driver.gpu_available():
        pytest.skip("this machine has a GPU")
    for args in (["run", "--preset", "zorder", "--m", "64", "--n", "64", "--k", "64"],
                 ["bench", "--ladder", "--sizes", "64"], ["tune", "--m", "64", "--n", "64", "--k", "64"]):
        res = subprocess.run([sys.executable, "-m", "regtile.tools.cli", *args], capture_output=True, text=True)
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert res.returncode == 2 and len(lines) == 1 and "GPU" in lines[0], (args, res.stderr)


# ---- issue 8: one test per class of bad input, each refused before any GPU work ------
def _fake_dlpack(device_type):
    class T:
        def __dlpack_device__(self):
            return (device_type, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("read only after the device check")
    return T()


@pytest.mark.parametrize("A, needle", [
    (FakeDeviceArray((-4, 5)), r"shape \(-4, 5\) has a negative dimension"),
    (_m(4, 5, np.int32), "dtype int32, expected float32"),
    (_m(4, 5, np.float16), "dtype float16, expected float32"),
    (FakeDeviceArray((4, 5), "<i4"), "dtype '<i4', expected float32"),
    (_fake_dlpack(1), "a DLPack tensor on device type 1, not CUDA"),
    (FakeDeviceArray((4, 5), strides=(8, 4)), r"strides \(2, 1\) overlap for a 4x5 matrix"),
    (FakeDeviceArray((4, 5), strides=(22, 4)), "strides are not whole float32 elements"),
    (FakeDeviceArray((4, 5), ptr=0), "device pointer is null"),
    (FakeDeviceArray((4, 5), ptr=0x10001), "device pointer 0x10001 is not 4-byte aligned"),
    (np.ones((4, 10), np.float32)[:, ::2], r"strides \(10, 2\): neither the column stride nor the row stride"),
])
def test_bad_operand_is_named(A, needle):
    """Sizes, dtypes, layouts and pointers: the error names the operand and the value."""
    B = FakeDeviceArray((5, 3)) if not isinstance(A, np.ndarray) else _m(5, 3)
    C = FakeDeviceArray((4, 3)) if not isinstance(A, np.ndarray) else None
    with pytest.raises(InputError, match="A: " + needle):
        regtile.sgemm(A, B, C)


def test_device_output_too_small_is_refused():
    with pytest.raises(InputError, match="C is 4x2, expected 4x3"):
        regtile.sgemm(FakeDeviceArray((4, 5)), FakeDeviceArray((5, 3)), FakeDeviceArray((4, 2)))
    with pytest.raises(InputError, match="y has 3 elements, expected 4"):
        regtile.sgemv(FakeDeviceArray((4, 5)), FakeDeviceArray((5,)), FakeDeviceArray((3,)))


def test_sgemv_device_vector_misaligned_or_wrong_dtype():
    with pytest.raises(InputError, match="x: device pointer 0x10006 is not 4-byte aligned"):
        regtile.sgemv(FakeDeviceArray((4, 5)), FakeDeviceArray((5,), ptr=0x10006), FakeDeviceArray((4,)))
    with pytest.raises(InputError, match="x: dtype '<f8'"):
        regtile.sgemv(FakeDeviceArray((4, 5)), FakeDeviceArray((5,), "<f8"), FakeDeviceArray((4,)))


def test_mixed_host_and_device_operands_are_refused():
    with pytest.raises(InputError, match="mix host and device"):
        regtile.sgemm(_m(4, 5), FakeDeviceArray((5, 3)), FakeDeviceArray((4, 3)))


def test_wrong_config_types_are_refused():
    with pytest.raises(InputError, match="expected an SgemvConfig, got SgemmConfig"):
        regtile.sgemv(_m(4, 5), np.ones(5, np.float32), config=regtile.SgemmConfig())
    with pytest.raises(InputError, match="expected an SgemmConfig, got dict"):
        regtile.sgemm(_m(4, 5), _m(5, 7), config={"bm": 64})


@pytest.mark.parametrize("call", [
    lambda: regtile.sgemm(_m(4, 5), _m(5, 7), arch="sm_75"),
    lambda: regtile.sgemv(_m(4, 5), np.ones(5, np.float32), arch="sm_100"),
])
def test_unknown_arch_is_refused_before_the_gpu(call):
    """ArchError, not NoGpuError: the arch is checked at compile time, before a GPU is looked for."""
    from regtile.runtime.compiler import ArchError
    with pytest.raises(ArchError, match=r"unknown arch 'sm_1?[07]5?0?'.*sm_80, sm_86, sm_89, sm_90"):
        call()


@pytest.mark.parametrize("kwargs", [
    dict(A=_m(4, 5, np.float64), B=_m(5, 7)),
    dict(A=_m(4, 5), B=_m(6, 7)),
    dict(A=_m(4, 5), B=_m(5, 7), alpha=None),
    dict(A=_m(4, 5), B=_m(5, 7), config="zorder"),
    dict(A=_m(4, 5), B=_m(5, 7), arch="sm_75"),
])
def test_refused_call_leaves_c_untouched(kwargs):
    C = _m(4, 7)
    before = C.copy()
    with pytest.raises((InputError, ValueError)):
        regtile.sgemm(C=C, beta=0.5, **kwargs)
    assert np.array_equal(C, before)


def test_sgemv_without_gpu_is_a_clear_error():
    from regtile.runtime import driver
    if driver.gpu_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(regtile.runtime.errors.NoGpuError, match="GPU"):
        regtile.sgemv(_m(4, 5), np.ones(5, np.float32))


def test_missing_driver_library_is_a_clear_no_gpu_error(monkeypatch):
    """Also on a machine with a GPU: libcuda that cannot be loaded reads as NoGpuError."""
    from types import SimpleNamespace
    from regtile.runtime import driver
    from regtile.runtime.errors import NoGpuError

    def no_libcuda(_flags):
        raise RuntimeError("libcuda.so.1: cannot open shared object file")
    monkeypatch.setattr(driver, "_device", None)
    monkeypatch.setattr(driver, "_cu", lambda: SimpleNamespace(cuInit=no_libcuda))
    with pytest.raises(NoGpuError, match="no CUDA driver on this machine.*libcuda.so.1"):
        regtile.sgemm(_m(4, 5), _m(5, 7))
    assert driver.gpu_available() is False


def test_cublas_is_looked_up_without_a_gpu(monkeypatch):
    from regtile.runtime import cublas
    from regtile.runtime.errors import CublasUnavailable
    monkeypatch.setattr(cublas, "_library", None)
    monkeypatch.setattr(cublas, "_candidates", lambda: iter(["/nonexistent/libcublas.so.13"]))
    with pytest.raises(CublasUnavailable, match="no cuBLAS library found.*/nonexistent/libcublas.so.13"):
        cublas.require()


def test_torch_tensors_are_known_by_type_subclasses_included(monkeypatch):
    """arrays.torch_tensor_types is the one test of "a torch tensor" (array_meta by isinstance,
    fast_key by exact type): a Tensor subclass takes the torch reader (its device index kept,
    no __cuda_array_interface__, which refuses requires_grad tensors); before torch is imported
    nothing is a torch tensor and torch is not imported for the question."""
    import sys
    from types import SimpleNamespace
    from regtile.runtime import arrays

    class Tensor:
        dtype, is_cuda, shape = "torch.float32", True, (4, 5)

        def stride(self):
            return (5, 1)

        def data_ptr(self):
            return 0x10000

        def get_device(self):
            return 1

        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("requires_grad tensors refuse __cuda_array_interface__")

    class Parameter(Tensor):
        pass

    class MyTensor(Tensor):  # a user's subclass, outside torch's modules
        pass
    monkeypatch.setattr(arrays, "_torch_types", None)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert arrays.torch_tensor_types() == () and "torch" not in sys.modules
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(Tensor=Tensor, nn=SimpleNamespace(Parameter=Parameter)))
    assert arrays.torch_tensor_types() == (Tensor, Parameter)
    assert arrays.array_meta(MyTensor(), "A") == ((4, 5), (5, 1), 0x10000, None, 1)
    assert arrays.fast_key(MyTensor(), Tensor(), Tensor()) is None  # the fast path takes exact types only
    assert arrays.fast_key(Parameter(), Tensor(), Tensor()) is not None


def test_in_place_layout_finds_a_unit_stride_layout_exactly_when_one_exists():
    """arrays.in_place_layout is the one rule for reading a 2-D view in place (as_matrix, and
    regtile.torch's choice between the tensor and a contiguous copy): on every small shape and
    stride pair it returns an (ld, colmajor) that addresses each element where the strides do,
    and None only when no such layout with ld >= the contiguous side exists."""
    import itertools
    from regtile.runtime.arrays import in_place_layout

    def faithful(rows, cols, rs, cs, ld, colmajor):
        if ld < max(rows if colmajor else cols, 1):
            return False
        return all(i * rs + j * cs == (j * ld + i if colmajor else i * ld + j)
                   for i in range(rows) for j in range(cols))
    for rows, cols, rs, cs in itertools.product(range(1, 5), range(1, 5), range(7), range(7)):
        found = in_place_layout(rows, cols, rs, cs)
        exists = any(faithful(rows, cols, rs, cs, ld, cm) for ld in range(1, 8) for cm in (False, True))
        assert (found is not None) == exists, (rows, cols, rs, cs, found)
        assert found is None or faithful(rows, cols, rs, cs, *found), (rows, cols, rs, cs, found)
    assert in_place_layout(4, 4, -1, 1) is None
