"""The call path without a GPU: layout detection, the kernel problem (column-major C's
swap, batch strides, trans flags), argument errors, plan-cache hits and zero sizes on host."""
import threading

import numpy as np
import pytest

import regtile
from regtile.runtime import gemm, plan_store, plans
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
    plan = gemm.plan_cache.values()[0]
    assert plan.launches[0] == (0x10000, 0x10000, 0x10000, 1.0, 0.0, 7)


def test_plan_cache_evicts_least_recently_used():
    cache = plans.PlanCache(size=2)
    for key in "abc":
        cache.put(key, key)
    assert cache.get("a") is None and cache.get("c") == "c" and len(cache) == 2
    assert cache.values() == ["b", "c"]  # least recently used first


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


# ---- routing and config selection (the loader, compiler and device faked) -----------------
class FakeGemv:
    """gemv.plan_for's stand-in: records the plan asked for and its launches."""
    made = []

    def __init__(self, m, n, op, incx, incy, arch=None, config=None, batch=0, strides=(0, 0, 0)):
        self.args = (m, n, op, incx, incy)
        self.batch, self.strides = batch, strides
        self.config, self.launches, self.kernel = ("sgemv", op), [], None
        FakeGemv.made.append(self)

    def launch(self, *args):
        self.launches.append(args)

    def describe(self):
        return f"fake sgemv op {self.args[2]}"


@pytest.fixture
def fake_gpu(monkeypatch):
    """A 132-SM sm_90 without a GPU: compile_config and driver.load record the configs built."""
    from types import SimpleNamespace
    from regtile.runtime import choice, compiler, gemv
    built = []
    monkeypatch.setattr(gemm.driver, "device", lambda: SimpleNamespace(arch="sm_90", sm_count=132, name="fake"))
    monkeypatch.setattr(choice, "_tuned", lambda name: {})
    monkeypatch.setattr(gemm.driver, "stream_capturing", lambda stream: False)
    monkeypatch.setattr(compiler, "compile_config", lambda cfg, arch, backend="cuda": built.append((cfg, backend)))
    monkeypatch.setattr(plans.driver, "load", lambda artifact: SimpleNamespace(label="fake kernel"))
    monkeypatch.setattr(gemv, "plan_for", lambda *a, **k: FakeGemv(*a, **k))
    monkeypatch.setattr(gemm, "plan_cache", plans.PlanCache())
    # a GEMM plan's launches on a stream: none (nothing to pack without a kernel)
    monkeypatch.setattr(plans.GemmPlan, "_bind", lambda self, stream: plans._Bound((), None))
    FakeGemv.made.clear()
    return built


# (m, n, k, transa, transb) -> the GEMV asked for (rows, cols, op, incx, incy), which operand is
# the matrix and its ld: C row-major (ldc = n), A and B dense
GEMV_CASES = [
    ((1, 48, 32, False, False), (32, 48, "T", 1, 1), "B", 48),  # y = B^T a
    ((1, 48, 32, True, False), (32, 48, "T", 1, 1), "B", 48),   # A stored 32 x 1: its column, stride 1
    ((1, 48, 32, False, True), (48, 32, "N", 1, 1), "B", 32),   # y = B a, B stored 48 x 32
    ((1, 48, 32, True, True), (48, 32, "N", 1, 1), "B", 32),
    ((40, 1, 32, False, False), (40, 32, "N", 1, 1), "A", 32),  # y = A b, b's column (ldb 1)
    ((40, 1, 32, True, False), (32, 40, "T", 1, 1), "A", 40),   # y = A^T b, A stored 32 x 40
    ((40, 1, 32, False, True), (40, 32, "N", 1, 1), "A", 32),
    ((40, 1, 32, True, True), (32, 40, "T", 1, 1), "A", 40),
]


@pytest.mark.parametrize("case, want, mat, ld", GEMV_CASES)
def test_m_or_n_one_routes_to_the_gemv_family(fake_gpu, case, want, mat, ld):
    m, n, k, ta, tb = case
    A = Dev((k, m) if ta else (m, k), ptr=0xA000)
    B = Dev((n, k) if tb else (k, n), ptr=0xB000)
    C = Dev((m, n), ptr=0xC000)
    for _ in range(2):
        regtile.sgemm(A, B, C, alpha=2.0, beta=0.5, transa=ta, transb=tb, stream=5)
    assert fake_gpu == [] and len(FakeGemv.made) == 1  # no GEMM kernel built; the GEMV planned once
    g = FakeGemv.made[0]
    assert g.args == want
    alpha, mptr, mld, x, incx, beta, y, incy, stream = g.launches[-1]
    assert (mptr, x) == ((0xA000, 0xB000) if mat == "A" else (0xB000, 0xA000))
    assert (alpha, beta, y, mld, stream) == (2.0, 0.5, 0xC000, ld, 5) and len(g.launches) == 2
    plan = gemm.plan_cache.values()[0]
    assert "GEMV fake sgemv" in plan.describe()


def test_gemv_route_not_taken_for_batches_configs_or_k_zero(fake_gpu):
    C = Dev((3, 1, 48))
    regtile.sgemm(Dev((3, 1, 32)), Dev((32, 48)), C)  # a batch of row vectors: the batched GEMM
    regtile.sgemm(Dev((1, 32)), Dev((32, 48)), Dev((1, 48)), config=regtile.SgemmConfig())
    assert FakeGemv.made == [] and len(fake_gpu) == 2
    assert fake_gpu[0][0].batched and fake_gpu[1][0] == regtile.SgemmConfig()


def test_strided_column_of_b_and_row_of_transposed_a(fake_gpu):
    """n == 1 reads B's column at stride ldb; m == 1 with A^T reads A's column at stride lda."""
    regtile.sgemm(Dev((40, 32)), Dev((32, 1), strides=(4 * 7, 4)), Dev((40, 1)))
    regtile.sgemm(Dev((32, 1), strides=(4 * 9, 4)), Dev((32, 48)), Dev((1, 48)), transa=True)
    assert [g.args for g in FakeGemv.made] == [(40, 32, "N", 7, 1), (32, 48, "T", 9, 1)]


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
def test_batched_plans_choose_a_batched_member_for_the_layout(fake_gpu, ta, tb):
    from regtile.codegen import batch_choice, heuristic
    A = Dev((16, 512, 512), strides=(4 * 512 * 512, 4, 4 * 512)) if ta else Dev((16, 512, 512))
    B = Dev((16, 512, 512), strides=(4 * 512 * 512, 4, 4 * 512)) if tb else Dev((16, 512, 512))
    regtile.sgemm(A, B, Dev((16, 512, 512)))
    (cfg, backend), = fake_gpu
    want, want_backend = batch_choice.choose_batched(512, 512, 512, 16, "sm_90", 132, ta, tb)
    assert (cfg, backend) == (want, want_backend)
    assert cfg.batched and not cfg.stream_k and not cfg.edge_split and cfg.split_k == 1  # 16 x 512^3 fills the SMs
    member = heuristic.get_member(batch_choice.batch_member(512, 512, 512, 16, 132, tb, ta)).config
    assert (cfg.trans_a, cfg.trans_b) == (ta, tb) and (cfg.bm, cfg.bn) == (member.bm, member.bn)
    assert cfg.pad_b == (4 if tb else 0)


def test_layout_fallback_only_where_the_register_rule_refuses():
    """B^T at min_blocks=2 on 128x128 8x8 is refused (129 registers estimated, cap 128): the chosen
    member runs at min_blocks=1; everywhere else the member keeps its min_blocks; B^T gets pad_b=4.
    Batched forms of the 128x128 member drop edge_vector_path (it spilled batched at min_blocks=2) and keep the
    pass, so it runs there as measured fastest: min_blocks=2 with the pass; the others keep their edges."""
    from regtile.codegen.layouts import with_layout
    from regtile.codegen.presets import FAMILY
    sq = FAMILY["sq-128x128"].config
    assert with_layout(sq, False, True).min_blocks == 1 and with_layout(sq, True, False).min_blocks == 2
    b = with_layout(sq, False, False, batched=True)
    assert (b.min_blocks, b.edge_vector_path, b.sass_pass) == (2, False, True)
    # session 45: a member of one block an SM keeps its edge clamp and vector path batched (ragged tiles unchecked)
    k16 = with_layout(FAMILY["wide-64x128-k16"].config, False, True, batched=True)
    assert (k16.edge_clamp, k16.edge_vector_path, k16.min_blocks) == (True, True, 1)
    bt = with_layout(sq, False, True, batched=True)  # B^T: one block an SM, where the edges no longer spill
    assert (bt.edge_clamp, bt.min_blocks, b.edge_clamp) == (True, 1, False)
    with pytest.raises(regtile.ConfigError, match="registers"):  # spilled 32 B batched on the H100
        sq.replace(batched=True, stream_k=False)
    for name, mem in FAMILY.items():
        for ta in (False, True):
            for tb in (False, True):
                for batched in (False, True):
                    cfg = with_layout(mem.config, ta, tb, batched)
                    assert (cfg.trans_a, cfg.trans_b, cfg.batched) == (ta, tb, batched)
                    if not tb:
                        assert cfg.pad_b == mem.config.pad_b
                        assert cfg.min_blocks == mem.config.min_blocks, name
                    elif mem.config.stages and mem.config.vec == 4:
                        assert cfg.pad_b == 4


def test_a_given_config_that_cannot_run_the_layout_is_refused(fake_gpu):
    """A config the caller gave is not changed behind their back: the register rule's refusal
    of B^T at min_blocks=2 is an InputError naming the constraint."""
    cfg = regtile.get_preset("zorder").config
    assert cfg.min_blocks == 2
    with pytest.raises(InputError, match="config cannot run this layout or batch: registers"):
        regtile.sgemm(Dev((64, 32)), Dev((48, 32)), Dev((64, 48)), config=cfg, transb=True)
    assert fake_gpu == []


def test_gemv_plan_packs_once_and_writes_the_per_call_fields(monkeypatch):
    """GemvPlan's launches are packed once per (stream, incx, incy); a call writes A, lda, x, y,
    alpha and beta into the packed buffers (read back here through the launch's params)."""
    import ctypes
    import struct
    from types import SimpleNamespace
    from regtile.codegen.emit_sgemv import REDUCE_PARAMS, SGEMV_PARAMS
    from regtile.codegen.kernel import LaunchGeometry
    from regtile.runtime import driver, gemv

    def kernel(params, fn):
        geo = LaunchGeometry(tile_m=4, tile_n=32, block=(128, 1, 1), dynamic_smem_bytes=0)  # a plain launch
        return SimpleNamespace(source=SimpleNamespace(params=params, geometry=geo, name="regtile_sgemv_fake"),
                               function=fn, describe_launch=lambda grid: "fake")
    main = kernel(SGEMV_PARAMS, 11)
    main.reduce = kernel(REDUCE_PARAMS, 22)
    seen = []

    def fake_launch(func, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        n = len(SGEMV_PARAMS if func == 11 else REDUCE_PARAMS)
        addrs = [params[i] for i in range(n)]
        seen.append((func, (gx, gy, gz), stream, addrs))
        return 0
    monkeypatch.setattr(driver, "_raw_launch", fake_launch)
    monkeypatch.setattr(driver, "DeviceBuffer", lambda nbytes: SimpleNamespace(ptr=0x5000, nbytes=nbytes))
    monkeypatch.setattr(driver, "stream_capturing", lambda stream: False)
    plan = gemv.GemvPlan(main, 64, 1000, "N", splits=4)
    plan.launch(2.0, 0xA0, 1003, 0xB0, 1, 0.5, 0xC0, 3, stream=9)
    plan.launch(3.0, 0xA4, 1001, 0xB8, 1, 0.0, 0xC8, 3, stream=9)
    assert len(plan._packed) == 1 and [s[0] for s in seen] == [11, 22, 11, 22]
    func, grid, stream, addrs = seen[2]
    assert grid == (16, 4, 1) and stream == 9
    read = lambda i, code: struct.unpack(code, ctypes.string_at(addrs[i], struct.calcsize(code)))[0]  # noqa: E731
    assert (read(0, "<i"), read(1, "<i"), read(2, "<f"), read(3, "<Q"), read(4, "<i")) == (64, 1000, 3.0, 0xA4, 1001)
    assert (read(5, "<Q"), read(6, "<i"), read(7, "<f"), read(8, "<Q"), read(9, "<i"), read(10, "<Q")) == \
        (0xB8, 1, 0.0, 0xC8, 3, 0x5000)
    _, rgrid, _, raddrs = seen[3]
    rread = lambda i, code: struct.unpack(code, ctypes.string_at(raddrs[i], struct.calcsize(code)))[0]  # noqa: E731
    assert (rread(0, "<i"), rread(1, "<i"), rread(2, "<f"), rread(3, "<Q"), rread(4, "<f"), rread(5, "<Q"),
            rread(6, "<i")) == (64, 4, 3.0, 0x5000, 0.0, 0xC8, 3)
    plan.launch(1.0, 0xA0, 1000, 0xB0, -1, 0.0, 0xC0, 1, stream=9)  # other increments: packed anew
    assert len(plan._packed) == 2


@pytest.mark.parametrize("device_state", [True, False])
def test_a_plan_launched_during_a_capture_is_pinned_only_with_device_state(monkeypatch, device_state):
    """A captured graph points into a plan's workspace and work lists (runtime/plans.py): a plan
    owning them is kept for the life of the process once a capture launches it; the check costs
    a driver call only for such plans, and stops once pinned."""
    asked, launched = [], []
    monkeypatch.setattr(plans.driver, "stream_capturing", lambda stream: asked.append(stream) or True)
    plan = plans.GemmPlan.__new__(plans.GemmPlan)
    plan.gemv, plan._lock = None, threading.Lock()
    plan._bound = {7: plans._Bound((lambda values, stream: launched.append(stream),), None, device_state)}
    monkeypatch.setattr(plan_store, "captured_plans", [])
    plan.launch(1, 2, 3, 1.0, 0.0, stream=7)
    plan.launch(1, 2, 3, 1.0, 0.0, stream=7)
    assert launched == [7, 7]
    assert plan_store.captured_plans == ([plan] if device_state else [])
    assert asked == ([7] if device_state else [])


@pytest.mark.parametrize("first", ["ok", "capturing", "no context", "failed"])
def test_stream_capturing_makes_the_context_current_for_a_thread_that_never_used_the_gpu(monkeypatch, first):
    """A plan with device state asks cuStreamIsCapturing before it launches: on a thread with no
    current context that call fails as cuLaunchKernel would, and is retried as PackedLaunch retries;
    any other failure is a DriverError naming the call."""
    from types import SimpleNamespace
    from regtile.runtime import driver
    from regtile.runtime.errors import DriverError
    asked, made_current = [], []

    def is_capturing(stream):
        asked.append(stream)
        if first == "failed":
            return (700, None)
        if first == "no context" and not made_current:
            return (driver._CU_ERROR_INVALID_CONTEXT, None)
        return (0, "active" if first == "capturing" else "none")
    fake = SimpleNamespace(cuStreamIsCapturing=is_capturing, CUresult=SimpleNamespace(CUDA_SUCCESS=0),
                           CUstreamCaptureStatus=SimpleNamespace(CU_STREAM_CAPTURE_STATUS_NONE="none"))
    monkeypatch.setattr(driver, "_cu", lambda: fake)
    monkeypatch.setattr(driver, "device", lambda: made_current.append(True))
    if first == "failed":
        with pytest.raises(DriverError, match="cuStreamIsCapturing failed"):
            driver.stream_capturing(5)
    else:
        assert driver.stream_capturing(5) is (first == "capturing")
    assert asked == ([5, 5] if first == "no context" else [5])
    assert made_current == ([True] if first == "no context" else [])


def test_the_driver_module_is_imported_once():
    """driver._cu keeps cuda.bindings.driver: the import statement it replaced cost more than
    the cuStreamIsCapturing call it served on every launch of a plan with device state."""
    import sys
    from regtile.runtime import driver
    assert driver._cu() is driver._cu() is sys.modules["cuda.bindings.driver"]


def test_a_pinned_plan_does_not_ask_about_captures_on_its_later_streams(monkeypatch):
    """Pinning keeps the whole plan (every stream's workspace): a stream bound after the pin
    (eager calls on another stream after a graph's capture) launches without the driver query."""
    from types import SimpleNamespace
    capturing, asked, launched = [True], [], []
    monkeypatch.setattr(plans.driver, "stream_capturing", lambda stream: asked.append(stream) or capturing[0])
    monkeypatch.setattr(plans.driver, "relaxed_capture", lambda: "mode")
    monkeypatch.setattr(plans.driver, "restore_capture", lambda mode: None)
    monkeypatch.setattr(plans.driver, "DeviceBuffer", lambda nbytes: SimpleNamespace(ptr=0x5000, nbytes=nbytes))
    monkeypatch.setattr(plans.driver, "PackedLaunch",
                        lambda kernel, grid, args, dynamic: (lambda values, stream: launched.append(stream)))
    monkeypatch.setattr(plans, "workspace_bytes", lambda kernel, m, n, k, batch=1: 256)
    monkeypatch.setattr(plan_store, "captured_plans", [])
    plan = plans.GemmPlan.__new__(plans.GemmPlan)
    plan.gemv, plan._lock, plan._bound, plan.kernel, plan.m, plan.n, plan.k = None, threading.Lock(), {}, None, 8, 8, 8
    plan.batch = 0
    plan._launch_sets = lambda ws: [SimpleNamespace(calls=[("kernel", (1, 1, 1), ())], work_lists=[])]
    plan.launch(1, 2, 3, 1.0, 0.0, stream=7)  # first call during a capture: bound and pinned
    assert plan_store.captured_plans == [plan] and launched == [7]
    capturing[0] = False
    del asked[:]
    plan.launch(1, 2, 3, 1.0, 0.0, stream=8)  # binding stream 8 asks once, its launches never
    plan.launch(1, 2, 3, 1.0, 0.0, stream=8)
    plan.launch(1, 2, 3, 1.0, 0.0, stream=7)
    assert launched == [7, 8, 8, 7] and asked == [8]


def test_fast_key_reads_three_torch_tensors_and_remember_bounds_the_table(monkeypatch):
    """The fast paths' one key (regtile.sgemm, Gemm, regtile.sgemv): the three tensors' dtype,
    shape, strides and device plus the call's other arguments; None for anything not a torch
    tensor; a full table starts over."""
    from regtile.runtime import arrays

    class T:
        def __init__(self, shape, dev=0):
            self.dtype, self.shape, self.dev = "float32", shape, dev

        def stride(self):
            return (self.shape[1], 1)

        def get_device(self):
            return self.dev

    monkeypatch.setattr(arrays, "_torch_types", (T,))
    a, b, c = T((2, 3)), T((3, 4)), T((2, 4), dev=1)
    key = arrays.fast_key(a, b, c, True, False, None)
    assert key == ("float32", (2, 3), (3, 1), 0, "float32", (3, 4), (4, 1), 0, "float32", (2, 4), (4, 1), 1,
                   True, False, None)
    assert arrays.fast_key(a, np.zeros((3, 4), np.float32), c) is None
    table = {}
    monkeypatch.setattr(arrays, "FAST_SIZE", 2)
    for i in range(3):
        arrays.remember(table, (i,), ("plan", i))
    assert table == {(2,): ("plan", 2)}


def test_outside_capture_switches_to_relaxed_mode_only_while_capturing(monkeypatch):
    """driver.outside_capture: the one place a first call's loads and allocations leave a capture
    (plans, the GEMV plans, regtile.sgemm's plan cache); stream 0 is never asked; the mode comes
    back even when the body fails."""
    from regtile.runtime import driver
    calls = []
    monkeypatch.setattr(driver, "stream_capturing", lambda s: calls.append(("ask", s)) or s == 7)
    monkeypatch.setattr(driver, "relaxed_capture", lambda: calls.append("relax") or "old")
    monkeypatch.setattr(driver, "restore_capture", lambda mode: calls.append(("restore", mode)))
    with driver.outside_capture(0) as capturing:
        assert capturing is False
    with driver.outside_capture(5) as capturing:
        assert capturing is False
    with pytest.raises(RuntimeError):
        with driver.outside_capture(7) as capturing:
            assert capturing is True
            raise RuntimeError("allocation failed")
    assert calls == [("ask", 5), ("ask", 7), "relax", ("restore", "old")]


@pytest.mark.parametrize("arch, enabled, programmatic", [("sm_90", True, True), ("sm_90a", True, True),
                                                         ("sm_80", True, False), ("sm_90", False, False)])
def test_programmatic_launch_config(monkeypatch, arch, enabled, programmatic):
    """A kernel whose geometry is programmatic (a split's reduce) goes through cuLaunchKernelEx with
    the programmatic-stream-serialization attribute on sm_90 (grid, block, shared memory and the
    call's stream in the config), and through the plain launcher below sm_90 or with PDL off."""
    from types import SimpleNamespace
    from regtile.codegen.emit_sgemv import REDUCE_PARAMS
    from regtile.codegen.kernel import LaunchGeometry
    from regtile.runtime import driver

    geo = LaunchGeometry(tile_m=1, tile_n=1, block=(256, 1, 1), dynamic_smem_bytes=0, flat_elements=256,
                         programmatic=True)
    kernel = SimpleNamespace(source=SimpleNamespace(params=REDUCE_PARAMS, geometry=geo, name="fake_reduce"),
                             function=33, artifact=SimpleNamespace(arch=arch), describe_launch=lambda grid: "fake")
    plain, ex = [], []

    def fake_ex(config_addr, func, params, extra):
        c = driver._LaunchConfig.from_address(config_addr)
        a = c.attrs[0]
        ex.append(((c.gridDimX, c.gridDimY, c.gridDimZ), (c.blockDimX, c.blockDimY, c.blockDimZ), c.sharedMemBytes,
                   c.hStream, c.numAttrs, a.id, a.value, func))
        return 0
    monkeypatch.setattr(driver, "PROGRAMMATIC", enabled)
    monkeypatch.setattr(driver, "_launch_ex_fn", fake_ex)
    monkeypatch.setattr(driver, "_raw_launch", lambda *args: plain.append(args[:4]) or 0)
    launch = driver.PackedLaunch(kernel, (5, 1, 1), (7, 4, 1.0, 0x50, 0.0, 0xC0, 1), {"alpha": 0})
    launch((2.0,), 77)
    launch((2.0,), 0)
    if programmatic:
        assert not plain and ex == [((5, 1, 1), (256, 1, 1), 0, 77, 1, 6, 1, 33), ((5, 1, 1), (256, 1, 1), 0, None,
                                                                                 1, 6, 1, 33)]
    else:
        assert not ex and plain == [(33, 5, 1, 1)] * 2


@pytest.mark.parametrize("cluster", [0, 2])
def test_launcher_for_takes_the_op_and_the_cluster_from_the_config(monkeypatch, cluster):
    """bench's launcher (gemv.launcher_for): op T from an SgemvTConfig whatever the kernel's name,
    and a cluster kernel's splits meet in the cluster: one launch, no workspace, no reduce (with
    no config the plan launched the reduce over a workspace the cluster kernel never wrote)."""
    from types import SimpleNamespace
    from regtile.codegen.emit_sgemv import REDUCE_PARAMS, SGEMV_PARAMS
    from regtile.codegen.kernel import LaunchGeometry
    from regtile.codegen.sgemv_config import SgemvTConfig
    from regtile.runtime import driver, gemv
    geo = LaunchGeometry(tile_m=4, tile_n=32, block=(128, 1, 1), dynamic_smem_bytes=0, cluster=cluster)
    main = SimpleNamespace(source=SimpleNamespace(params=SGEMV_PARAMS, geometry=geo, name="renamed"), function=11,
                           describe_launch=lambda grid: "fake")
    main.reduce = SimpleNamespace(source=SimpleNamespace(params=REDUCE_PARAMS, geometry=geo, name="r"), function=22)
    funcs, allocated = [], []
    monkeypatch.setattr(driver, "_raw_launch", lambda func, *rest: funcs.append((func, rest[:3])) or 0)
    monkeypatch.setattr(driver, "DeviceBuffer", lambda nbytes: allocated.append(nbytes) or SimpleNamespace(ptr=1))
    monkeypatch.setattr(driver, "stream_capturing", lambda stream: False)
    cfg = SgemvTConfig(32, 8, 4, 8, cluster=cluster) if cluster else SgemvTConfig()
    plan = gemv.launcher_for(main, 512, 1024, cfg)
    assert (plan.op, plan.splits, plan.cluster) == ("T", cluster or 1, cluster)
    plan.launch(1.0, 0xA0, 1024, 0xB0, 1, 0.0, 0xC0, 1, stream=3)
    assert funcs == [(11, (1024 // 32, cluster or 1, 1))] and allocated == []


def test_gemm_plans_lists_one_plan_per_operand_layout(fake_gpu):
    """regtile.Gemm.plans() reads its PlanCache through values(): one plan per layout met."""
    g = regtile.Gemm(64, 48, 32, arch="sm_90")
    assert g.plans() == [] and "chosen on first call" in g.describe()
    A, B, C = Dev((64, 32)), Dev((32, 48)), Dev((64, 48))
    g(A, B, C, stream=3)
    g(A, B, C, stream=3)
    g(Dev((64, 32), strides=(4, 256)), B, C, stream=3)
    made = g.plans()
    assert len(made) == 2 and all(isinstance(p, plans.GemmPlan) for p in made)
    assert [(p.trans_a, p.lda) for p in made] == [(False, 32), (True, 64)]


def test_loaded_kernel_launch_builds_its_programmatic_config_once(monkeypatch):
    """LoadedKernel.launch (SgemmLaunch's steps: bench, the sweeps' candidates) goes through
    cuLaunchKernelEx for a programmatic kernel with a config built once per grid, the call's stream
    set each time; a new grid gets its own."""
    import threading
    from types import SimpleNamespace
    from regtile.codegen.emit_sgemv import REDUCE_PARAMS
    from regtile.codegen.kernel import LaunchGeometry
    from regtile.runtime import driver

    geo = LaunchGeometry(tile_m=1, tile_n=1, block=(256, 1, 1), dynamic_smem_bytes=0, flat_elements=256,
                         programmatic=True)
    kernel = object.__new__(driver.LoadedKernel)
    kernel.source = SimpleNamespace(params=REDUCE_PARAMS, geometry=geo, name="fake_reduce")
    kernel.function, kernel.artifact, kernel.label = 33, SimpleNamespace(arch="sm_90"), "fake"
    kernel._programmatic, kernel._programmatic_lock = {}, threading.Lock()
    built, ex = [], []
    real = driver.programmatic_config

    def counted(k, grid):
        built.append(tuple(grid))
        return real(k, grid)

    def fake_ex(config_addr, func, params, extra):
        c = driver._LaunchConfig.from_address(config_addr)
        ex.append(((c.gridDimX, c.gridDimY, c.gridDimZ), c.hStream, c.attrs[0].id, func))
        return 0
    monkeypatch.setattr(driver, "PROGRAMMATIC", True)
    monkeypatch.setattr(driver, "_have_launch_ex", lambda: True)
    monkeypatch.setattr(driver, "_launch_ex_fn", fake_ex)
    monkeypatch.setattr(driver, "programmatic_config", counted)
    args = (7, 4, 1.0, 0x50, 0.0, 0xC0, 1)
    kernel.launch((5, 1, 1), args, 77)
    kernel.launch((5, 1, 1), args, 9)
    kernel.launch((6, 1, 1), args, 9)
    assert built == [(5, 1, 1), (6, 1, 1)]
    assert ex == [((5, 1, 1), 77, 6, 33), ((5, 1, 1), 9, 6, 33), ((6, 1, 1), 9, 6, 33)]


@pytest.mark.parametrize("given", [False, True])
def test_a_chosen_config_that_spills_under_its_cap_is_built_without_it(fake_gpu, monkeypatch, given):
    """What ptxas fits under a register cap varies with its build: where the library chose the config, a spill
    under min_blocks=2 builds the same tile at min_blocks=1 (and says so); a config the caller gave is refused."""
    from regtile.codegen.presets import FAMILY
    from regtile.errors import SpillError
    from regtile.runtime import choice, compiler
    member = FAMILY["sq-128x128"].config
    built = []

    def compile_config(cfg, arch, backend="cuda"):
        built.append(cfg)
        if cfg.min_blocks > 1:
            raise SpillError("ptxas spilled to local memory (128 registers, 4 B spill stores)")
    monkeypatch.setattr(compiler, "compile_config", compile_config)
    monkeypatch.setattr(choice, "choose_sgemm_kernel", lambda *a, **k: (member, "ptx"))
    if given:
        with pytest.raises(SpillError):
            plans.GemmPlan(1024, 1024, 1024, False, False, 1024, 1024, 1024, config=member, backend="ptx")
        assert len(built) == 1
        return
    plan = plans.GemmPlan(1024, 1024, 1024, False, False, 1024, 1024, 1024)
    assert [c.min_blocks for c in built] == [2, 1] and built[1] == member.replace(min_blocks=1)
    assert plan.config == built[1] and plan.spilled == member
    assert "without its register cap" in plan.describe()


def test_the_cap_is_lifted_a_step_at_a_time_and_a_spill_without_one_is_raised(fake_gpu, monkeypatch):
    """A held config (max_registers; config validation takes it only beside min_blocks 1) loses its cap; where the
    kernel spills without one, the SpillError reaches the caller."""
    from regtile.codegen.presets import FAMILY
    from regtile.errors import SpillError
    from regtile.runtime import choice, compiler
    held = FAMILY["sq-128x128"].config.replace(min_blocks=1, max_registers=128)
    built, spill_at = [], []

    def compile_config(cfg, arch, backend="cuda"):
        built.append((cfg.min_blocks, cfg.max_registers))
        if spill_at and spill_at[0](cfg):
            raise SpillError("ptxas spilled to local memory")
    monkeypatch.setattr(compiler, "compile_config", compile_config)
    monkeypatch.setattr(choice, "choose_sgemm_kernel", lambda *a, **k: (held, "ptx"))
    spill_at.append(lambda cfg: cfg.min_blocks > 1 or cfg.max_registers)
    plan = plans.GemmPlan(1024, 1024, 1024, False, False, 1024, 1024, 1024)
    assert built == [(1, 128), (1, 0)] and plan.spilled == held
    built.clear()
    spill_at[0] = lambda cfg: True
    with pytest.raises(SpillError):
        plans.GemmPlan(1024, 1024, 1024, False, False, 1024, 1024, 1024)
    assert built == [(1, 128), (1, 0)]


def _bind_repacking_plan(monkeypatch, m, n, k, lda, ldb, repack):
    """A GemmPlan of NT m x n x k with `repack` (codegen/repack.Repack), bound to stream 0 with the driver faked: ->
    (the bound launches, [(kernel, grid, args, dynamic)] of each PackedLaunch made, [the GEMM's SgemmLaunch fields])."""
    from types import SimpleNamespace
    made, gemms = [], []
    monkeypatch.setattr(plans.driver, "DeviceBuffer", lambda nbytes: SimpleNamespace(ptr=0x100000, nbytes=nbytes))
    monkeypatch.setattr(plans.driver, "PackedLaunch",
                        lambda kernel, grid, args, dynamic: made.append((kernel, grid, args, dynamic)) or
                        (lambda values, stream: None))
    monkeypatch.setattr(plans, "workspace_bytes", lambda kernel, m, n, k, batch=1: 1000)

    def sgemm_launch(kernel, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workspace=0, batch=0, strides=()):
        gemms.append(dict(a=a, lda=lda, b=b, ldb=ldb, ldc=ldc, workspace=workspace))
        return SimpleNamespace(calls=[(kernel, (8, 33, 1), (m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))],
                               work_lists=[])
    monkeypatch.setattr(plans, "SgemmLaunch", sgemm_launch)
    plan = plans.GemmPlan.__new__(plans.GemmPlan)
    plan.gemv, plan._lock, plan._bound, plan.kernel, plan.pack_kernel = None, threading.Lock(), {}, "gemm", "pack"
    plan.m, plan.n, plan.k, plan.lda, plan.ldb, plan.ldc = m, n, k, lda, ldb, n
    plan.batch, plan.strides = 0, (0, 0, 0)
    plan.repack = repack
    return plan._bind(0), made, gemms


def test_a_repacking_plan_copies_both_operands_then_runs_the_gemm_on_the_copies(monkeypatch):
    """codegen/repack.py's plan (session 42): per stream one workspace holds the GEMM's own bytes, then A's copy, then
    B's (each 256-byte aligned); the copy launch comes first (one for both since session 43), fed the call's operands
    (SA, SB) with their own leading dimensions, and the GEMM (runtime/sgemm_launch.SgemmLaunch, as the plan builds
    it) reads the copies: A and B packed as the copies' pointers with the padded leading dimensions, no longer
    per-call fields."""
    from regtile.codegen.repack import repack_for
    m, n, k, lda, ldb = 2049, 2047, 1025, 1027, 1029  # strided views, both unaligned
    repack = repack_for(m, n, k, False, True, lda, ldb)
    assert repack.a.ld == lda and repack.b.ld == ldb
    bound, made, gemms = _bind_repacking_plan(monkeypatch, m, n, k, lda, ldb, repack)
    ws = bound.keep[0]
    a_copy = 0x100000 + 1024  # past the GEMM's 1000 bytes, rounded up to 256
    b_copy = a_copy + -(-4 * m * 1032 // 256) * 256
    assert ws.nbytes == b_copy - 0x100000 + -(-4 * n * 1032 // 256) * 256
    assert gemms == [dict(a=a_copy, lda=1032, b=b_copy, ldb=1032, ldc=n, workspace=0x100000)]
    (k1, g1, a1, d1), (k3, _, a3, d3) = made  # one copy launch for both operands, then the GEMM
    assert (k1, d1) == ("pack", {"SA": 0, "SB": 1})
    assert a1 == (0, a_copy, m, k, lda, 1032, 3, 0, b_copy, n, k, ldb, 1032, 3)  # 1032 floats a row: 3 blocks of 512
    assert g1 == (3 * m + 3 * n, 1, 1)
    assert k3 == "gemm" and a3[4:8] == (a_copy, 1032, b_copy, 1032) and d3 == {"C": 2, "alpha": 3, "beta": 4}
    assert bound.watch_capture  # a graph would point into the copies: the plan is pinned on capture


def test_a_plan_copying_one_operand_keeps_the_other_a_per_call_field(monkeypatch):
    """A rule naming A alone (codegen/repack.RepackRule("A", ...)): the workspace holds A's copy only, the copy launch
    has no rows of B and takes only SA per call, and the GEMM reads A's copy and the call's B (still per call)."""
    from regtile.codegen import repack as rp
    m, n, k, lda, ldb = 2049, 2047, 1025, 1025, 1025
    monkeypatch.setattr(rp, "REPACK_RULES", {"NT": (rp.RepackRule("A", 0),)})
    repack = rp.repack_for(m, n, k, False, True, lda, ldb)
    assert repack.a is not None and repack.b is None
    bound, made, gemms = _bind_repacking_plan(monkeypatch, m, n, k, lda, ldb, repack)
    a_copy = 0x100000 + 1024
    assert bound.keep[0].nbytes == a_copy - 0x100000 + -(-4 * m * 1032 // 256) * 256
    assert gemms == [dict(a=a_copy, lda=1032, b=0, ldb=ldb, ldc=n, workspace=0x100000)]
    (k1, g1, a1, d1), (k3, _, a3, d3) = made
    assert (k1, d1, g1) == ("pack", {"SA": 0}, (3 * m, 1, 1))
    assert a1 == (0, a_copy, m, k, lda, 1032, 3, 0, 0, 0, 0, 0, 4, 1)
    assert k3 == "gemm" and d3 == {"B": 1, "C": 2, "alpha": 3, "beta": 4}


def test_a_batch_split_over_k_has_a_workspace_an_entry_and_a_grid_within_z(fake_gpu):
    """A batched split-K kernel's partials: split_k x M x N floats for every entry; the grid's z (entry x split) stays
    within CUDA's 65535, or the plan is refused naming the limit."""
    from types import SimpleNamespace
    from regtile.codegen.batch_choice import split_config
    from regtile.codegen.emit_cuda import emit_sgemm_cuda
    from regtile.runtime.sgemm_launch import workspace_bytes
    cfg, _ = split_config(4, False, False)
    src = emit_sgemm_cuda(cfg)
    loaded = SimpleNamespace(source=src, reduce=src.entries[0][1], edge=None)  # as a LoadedKernel names its entries
    assert workspace_bytes(loaded, 8, 128, 1024, batch=10) == 4 * 4 * 8 * 128 * 10
    assert workspace_bytes(loaded, 8, 128, 1024) == 4 * 4 * 8 * 128
    with pytest.raises(regtile.InputError, match="65535"):
        plans.GemmPlan(8, 128, 1024, False, False, 1024, 128, 128, 20000, (8 * 1024, 1024 * 128, 8 * 128),
                       config=cfg, backend="cuda")
    plans.GemmPlan(8, 128, 1024, False, False, 1024, 128, 128, 16000, (8 * 1024, 1024 * 128, 8 * 128),
                   config=cfg, backend="cuda")  # 64000 along z


@pytest.mark.parametrize("tb, want, strides", [
    (False, (1024, 128, "T", 1, 1), (1024 * 128, 1024, 128)),  # p V: op T over B (k x n), x = A's row
    (True, (1024, 128, "N", 1, 1), (1024 * 128, 0, 1024)),  # q K^T, one query for every entry: op N over B^T
])
def test_batched_m_one_routes_to_a_batched_gemv(fake_gpu, tb, want, strides):
    """A batch of m == 1 GEMMs that batch_choice.batched_gemv takes: one batched GEMV, the matrix's stride first,
    then x's (0: broadcast), then y's; a batch it leaves (5 entries of 3 strips) keeps the GEMM member."""
    batch, n, k = (256, 1024, 128) if tb else (256, 128, 1024)
    A = Dev((batch, 1, k), strides=(0 if tb else 4 * k, 4 * k, 4), ptr=0xA000)
    B = Dev((batch, n, k) if tb else (batch, k, n), ptr=0xB000)
    C = Dev((batch, 1, n), ptr=0xC000)
    regtile.sgemm(A, B, C, transb=tb, stream=5)
    assert fake_gpu == [] and len(FakeGemv.made) == 1
    g = FakeGemv.made[0]
    assert g.args == want and g.batch == batch and g.strides == strides
    assert g.launches[-1][1:4:2] == (0xB000, 0xA000)  # the matrix is B, x is A's row
    FakeGemv.made.clear()
    regtile.sgemm(Dev((5, 1, 200)), Dev((5, 200, 300)), Dev((5, 1, 300)))
    assert FakeGemv.made == [] and len(fake_gpu) == 1 and fake_gpu[0][0].batched


def test_batched_n_one_and_a_strided_c_route_to_a_batched_gemv(fake_gpu):
    """n == 1 (the matrix is A: strides kept in order) and a C whose row is strided (seen as column-major: the problem
    is swapped to C^T = B^T A^T, then n == 1 with the matrix B), each one batched GEMV with the right strides."""
    batch, m, k = 256, 4096, 64
    regtile.sgemm(Dev((batch, m, k), ptr=0xA000), Dev((batch, k, 1), ptr=0xB000), Dev((batch, m, 1), ptr=0xC000))
    g = FakeGemv.made[-1]
    assert g.args == (m, k, "N", 1, 1) and g.batch == batch and g.strides == (m * k, k, m)
    FakeGemv.made.clear()
    n = 16
    C = Dev((batch, 1, n), strides=(4 * 2 * n, 4 * 2 * n, 4 * 2), ptr=0xC000)  # y at stride 2
    regtile.sgemm(Dev((batch, 1, 8), ptr=0xA000), Dev((batch, 8, n), ptr=0xB000), C)
    g = FakeGemv.made[-1]
    # C^T (n x 1) = B^T (n x 8) A^T: the matrix is B (8 x n row-major, op T over it), x A's row, y C at stride 2
    assert g.args == (8, n, "T", 1, 2) and g.batch == batch and g.strides == (8 * n, 8, 2 * n)
    assert g.launches[-1][1:4:2] == (0xB000, 0xA000)


def test_gemv_plan_batched_grid_arguments_and_refusals():
    """GemvPlan with a batch: gridDim.z = batch, one split, the three strides packed after the usual arguments; a
    batch without a batched config, a split with a batch and a z over the launch limit are refused."""
    from types import SimpleNamespace
    from regtile.codegen.emit_sgemv import emit_sgemv_cuda
    from regtile.codegen.sgemv_config import SgemvTConfig
    from regtile.runtime import gemv
    from regtile.runtime.errors import InputError
    cfg = SgemvTConfig(8, 32, 4, 8, warp_reduce=True, batched=True)
    kernel = SimpleNamespace(source=emit_sgemv_cuda(cfg))
    plan = gemv.GemvPlan(kernel, 1024, 128, "T", 1, cfg, batch=300, strides=(1024 * 128, 1024, 128))
    assert plan.grid == (4, 1, 300) and plan._new_workspace() is None
    captured = []
    real = gemv.driver.PackedLaunch
    try:
        gemv.driver.PackedLaunch = lambda k, grid, args, dyn: captured.append((grid, args)) or "launch"
        assert plan._launches((0, 1, 1), 0) == ["launch"]
    finally:
        gemv.driver.PackedLaunch = real
    grid, args = captured[0]
    assert grid == (4, 1, 300) and len(args) == len(kernel.source.params) and args[-3:] == (1024 * 128, 1024, 128)
    plain = SgemvTConfig(8, 32, 4, 8, warp_reduce=True)
    with pytest.raises(InputError, match="needs a batched GEMV kernel"):
        gemv.GemvPlan(SimpleNamespace(source=emit_sgemv_cuda(plain)), 1024, 128, "T", 1, plain, batch=300)
    with pytest.raises(InputError, match="one split a matrix"):
        gemv.GemvPlan(kernel, 1024, 128, "T", 2, cfg, batch=300)
    with pytest.raises(InputError, match="launch limits"):
        gemv.GemvPlan(kernel, 1024, 128, "T", 1, cfg, batch=70000)
    with pytest.raises(InputError, match="needs a batch"):
        gemv.GemvPlan(kernel, 1024, 128, "T", 1, cfg)


def test_gemv_plan_for_keys_on_the_batch_and_its_strides(monkeypatch):
    """runtime/gemv.plan_for: a batched plan per (batch, strides) - another batch or another stride is another plan,
    the same ones the cached plan - in the batched LRU, apart from the unbatched plans (no GPU: compile and load faked)."""
    from types import SimpleNamespace
    from regtile.codegen.emit_sgemv import emit_sgemv_cuda
    from regtile.runtime import gemv
    monkeypatch.setattr(gemv, "compile_config", lambda cfg, arch: cfg)
    monkeypatch.setattr(gemv.driver, "load", lambda cfg: SimpleNamespace(source=emit_sgemv_cuda(cfg), blocks_per_sm=2))
    monkeypatch.setattr(gemv, "_batched_plans", plans.PlanCache(size=4))
    monkeypatch.setattr(gemv, "_arch_and_sms", lambda: ("sm_90", 132))
    a = gemv.plan_for(1024, 128, "T", arch="sm_90", batch=256, strides=(131072, 1024, 128))
    assert a.batch == 256 and a.grid == (1, 1, 256) and a.config.batched
    assert gemv.plan_for(1024, 128, "T", arch="sm_90", batch=256, strides=(131072, 1024, 128)) is a
    b = gemv.plan_for(1024, 128, "T", arch="sm_90", batch=255, strides=(131072, 1024, 128))
    c = gemv.plan_for(1024, 128, "T", arch="sm_90", batch=256, strides=(0, 1024, 128))
    assert len({id(a), id(b), id(c)}) == 3 and (b.batch, c.strides) == (255, (0, 1024, 128))
    assert len(gemv._batched_plans) == 3 and all(p.batch for p in gemv._batched_plans.values())
