"""A plan's one-time device work (runtime/driver.py: zeros_u32, to_device_private) runs on a
private non-blocking stream, synchronised before it returns; stream-K's work list is uploaded so
(runtime/sgemm_launch.py), never through the legacy stream, which orders against a blocking
stream that is being captured."""
from types import SimpleNamespace

import numpy as np
import pytest

from regtile.runtime import driver, sgemm_launch


@pytest.fixture
def calls(monkeypatch):
    seen = []

    def record(name, result=0):
        return lambda *args: seen.append((name,) + args) or (0, result)
    fake = SimpleNamespace(
        CUstream_flags=SimpleNamespace(CU_STREAM_NON_BLOCKING="non-blocking"),
        cuStreamCreate=record("create", 0x77), cuStreamSynchronize=record("sync"),
        cuStreamDestroy=record("destroy"), cuMemcpyHtoDAsync=record("copy"), cuMemsetD32Async=record("memset"),
        cuMemcpyHtoD=record("legacy copy"))
    monkeypatch.setattr(driver, "_cu", lambda: fake)
    monkeypatch.setattr(driver, "check", lambda res, what, error=None: res[1] if isinstance(res, tuple) else res)
    monkeypatch.setattr(driver, "DeviceBuffer", lambda nbytes: SimpleNamespace(ptr=0x9000, nbytes=nbytes))
    return seen


def test_to_device_private_copies_on_a_private_stream_and_waits(calls):
    host = np.arange(6, dtype=np.int32)
    buf = driver.to_device_private(host)
    assert buf.nbytes == 24
    assert [c[0] for c in calls] == ["create", "copy", "sync", "destroy"]
    assert calls[0][1] == "non-blocking" and calls[1][1] == 0x9000 and calls[1][3:] == (24, 0x77)
    assert calls[2][1] == calls[3][1] == 0x77


def test_zeros_u32_memsets_on_a_private_stream(calls):
    driver.zeros_u32(5)
    assert [c[0] for c in calls] == ["create", "memset", "sync", "destroy"] and calls[1][1:] == (0x9000, 0, 5, 0x77)


def test_stream_k_work_list_is_uploaded_privately(calls, monkeypatch):
    plan = SimpleNamespace(whole_tiles=2, ranges=3, slots=4, workspace_bytes=64, starts_offset=8, flags_offset=16,
                           work_ints=lambda: np.arange(8, dtype=np.int32))
    monkeypatch.setattr(sgemm_launch, "stream_k_plan", lambda kernel, m, n, k: plan)
    monkeypatch.setattr(sgemm_launch, "edge_plan", lambda kernel, m, n: None)
    monkeypatch.setattr(sgemm_launch, "part_offsets", lambda source, r, c, lda, ldb, ldc: (0, 0, 0))
    geo = SimpleNamespace(stream_k=True, last_col=False)
    kernel = SimpleNamespace(source=SimpleNamespace(geometry=geo, params=()), ranges="ranges kernel", label="k")
    launch = sgemm_launch.SgemmLaunch(kernel, 256, 256, 256, 1.0, 0xA, 256, 0xB, 256, 0.0, 0xC, 256, workspace=0x5)
    assert [c[0] for c in calls] == ["create", "copy", "sync", "destroy"]  # no legacy-stream copy
    (_, _, whole), (ranges, grid, args) = launch.calls
    assert ranges == "ranges kernel" and grid == (3, 1, 1) and args[-4:] == (0x9000, 0x9008, 0x9010, 0x5)
