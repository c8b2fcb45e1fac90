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
    ((_m(4, 5), _m(7, 5).T), {}, "column stride"),
    ((np.zeros((0, 5), np.float32), _m(5, 7)), {}, "zero dimension"),
    ((_m(4, 5)[None], _m(5, 7)), {}, "3-D"),
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
