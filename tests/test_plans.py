"""The call path without a GPU: layout detection, the kernel problem (column-major C's
swap, batch strides, trans flags), argument errors, plan-cache hits and zero sizes on host."""
import numpy as np
import pytest

import regtile
from regtile.runtime import gemm, plans
from regtile.runtime.arrays import as_matrix
from regtile.runtime.errors import InputError
from regtile.runtime.problem import kernel_problem, resolve, stream_handle


class Dev:
    """A device array by __cuda_array_interface__ (strides in bytes, None: C order)."""

    def __init__(self, shape, strides=None, ptr=0x10000):
        self.shape = shape
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (ptr, False),
                                         "strides": strides, "version": 3}


def _z(*shape, order="C"):
    return np.zeros(shape, np.float32, order=order)


@pytest.mark.parametrize("arr, ld, colmajor", [
    (_z(4, 5), 5, False),
    (_z(4, 5, order="F"), 4, True),
    (_z(5, 4).T, 4, True),
    (_z(4, 9)[:, :5], 9, False),
    (_z(5, 9)[:, :4].T, 9, True),
    (_z(4, 1), 1, False),
    (_z(1, 4).T, 1, False),
])
def test_layout_detection(arr, ld, colmajor):
    x = as_matrix(arr, "A")
    assert (x.ld, x.colmajor) == (ld, colmajor)


def test_batch_strides_and_broadcast():
    x = as_matrix(_z(3, 4, 5), "A")
    assert (x.batch, x.bstride, x.ndim) == (3, 20, 3)
    y = as_matrix(np.broadcast_to(_z(4, 5), (3, 4, 5)), "A")
    assert (y.batch, y.bstride) == (3, 0)
    assert as_matrix(Dev((3, 4, 5), strides=(0, 20, 4)), "A").bstride == 0


def test_row_major_problem_is_passed_through():
    p = kernel_problem(resolve(Dev((4, 5)), Dev((5, 7)), Dev((4, 7))), False, False)
    assert (p.kernel_m, p.kernel_n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc, p.swapped) == \
        (4, 7, 5, False, False, 5, 7, 7, False)


def test_transposed_views_and_flags_set_the_kernel_layout():
    at = Dev((4, 5), strides=(4, 16))  # a column-major 4x5 (ld 4)
    p = kernel_problem(resolve(at, Dev((5, 7)), Dev((4, 7))), False, False)
    assert (p.trans_a, p.lda) == (True, 4)
    # transa on a column-major 5x4 array: op(A) = A^T is row-major
    p = kernel_problem(resolve(Dev((5, 4), strides=(4, 20)), Dev((5, 7)), Dev((4, 7)), transa=True), True, False)
    assert (p.m, p.k, p.trans_a, p.lda) == (4, 5, False, 5)


def test_column_major_c_swaps_a_and_b():
    """C^T = op(B)^T op(A)^T: m and n swap, the flags flip, the pointers swap."""
    A, B = Dev((4, 5), ptr=0x1000), Dev((5, 7), ptr=0x2000)
    C = Dev((4, 7), strides=(4, 16), ptr=0x3000)
    p = kernel_problem(resolve(A, B, C), False, False)
    assert (p.kernel_m, p.kernel_n, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc) == (7, 4, True, True, 7, 5, 4)
    assert p.pointers() == (0x2000, 0x1000, 0x3000)


def test_batched_problem_strides():
    p = kernel_problem(resolve(Dev((3, 4, 5)), Dev((5, 7)), Dev((3, 4, 7))), False, False)
    assert (p.batch, p.strides) == (3, (20, 0, 28))
    with pytest.raises(InputError, match="batch stride 0"):
        resolve(Dev((3, 4, 5)), Dev((5, 7)), Dev((3, 4, 7), strides=(0, 28, 4)))
    with pytest.raises(InputError, match="batch sizes do not match: A: 3, B: 1, C: 2"):
        resolve(Dev((3, 4, 5)), Dev((5, 7)), Dev((2, 4, 7)))


def test_stream_arguments():
    class TorchLike:
        cuda_stream = 1234

    class CupyLike:
        ptr = 99

    class Proto:
        def __cuda_stream__(self):
            return (0, 77)
    assert [stream_handle(s) for s in (None, 5, TorchLike(), CupyLike(), Proto())] == [0, 5, 1234, 99, 77]
    with pytest.raises(InputError, match="stream="):
        stream_handle("fast")


class FakePlan:
    built = []

    def __init__(self, *args, **kwargs):
        FakePlan.built.append(args)
        self.launches = []

    def launch(self, *args):
        self.launches.append(args)


def test_plan_cache_builds_once_per_problem(monkeypatch):
    monkeypatch.setattr(gemm, "GemmPlan", FakePlan)
    monkeypatch.setattr(gemm, "plan_cache", plans.PlanCache())
    monkeypatch.setattr(gemm.driver, "stream_capturing", lambda stream: False)
    FakePlan.built.clear()
    A, B, C = Dev((64, 32)), Dev((32, 48)), Dev((64, 48))
    for _ in range(3):
        assert regtile.sgemm(A, B, C, stream=7) is C
    assert len(FakePlan.built) == 1
    regtile.sgemm(Dev((64, 32), strides=(4, 256)), B, C)  # another layout: another plan
    assert len(FakePlan.built) == 2
    plan = gemm.plan_cache.get(next(iter(gemm.plan_cache._plans)))
    assert plan.launches[0] == (0x10000, 0x10000, 0x10000, 1.0, 0.0, 7)


def test_plan_cache_evicts_least_recently_used():
    cache = plans.PlanCache(size=2)
    for key in "abc":
        cache.put(key, key)
    assert cache.get("a") is None and cache.get("c") == "c" and len(cache) == 2


def test_zero_sizes_on_host_need_no_gpu():
    C = np.full((3, 4), 2.0, np.float32)
    assert regtile.sgemm(_z(3, 0), _z(0, 4), C, beta=0.5) is C and np.all(C == 1.0)
    assert regtile.sgemm(_z(3, 0), _z(0, 4), C, beta=0.0) is C and np.all(C == 0.0)
    assert regtile.sgemm(_z(0, 5), _z(5, 4)).shape == (0, 4)
    assert regtile.sgemm(_z(0, 3, 5), _z(5, 4)).shape == (0, 3, 4)


def test_zero_sizes_on_device_launch_nothing(monkeypatch):
    monkeypatch.setattr(gemm, "GemmPlan", FakePlan)
    FakePlan.built.clear()
    C = Dev((0, 7))
    assert regtile.sgemm(Dev((0, 5)), Dev((5, 7)), C) is C
    C = Dev((4, 7))
    assert regtile.sgemm(Dev((4, 0)), Dev((0, 7)), C, beta=1.0) is C
    assert FakePlan.built == []


def test_transposed_operands_refused_clearly_without_layout_kernels(monkeypatch):
    monkeypatch.setattr(plans, "has_layout_kernels", lambda: False)
    with pytest.raises(InputError, match="layout kernels"):
        plans.kernel_config(regtile.SgemmConfig(), True, False, False)
