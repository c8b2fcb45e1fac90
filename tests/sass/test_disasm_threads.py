"""sass/disasm.disassemble from several threads (the SASS stage rewrites a module's two kernels in threads, both
passes starting on the same cubin): one nvdisasm run for one cubin asked at once, and a failed run leaves the waiting
thread to run its own.  nvdisasm itself is stood in for: this tests the cache, not the tool."""
import threading
import time

import pytest

from regtile.errors import SassError
from regtile.sass import disasm


def _ask_together(cubin, threads=2):
    results, barrier = [None] * threads, threading.Barrier(threads)

    def ask(i):
        barrier.wait()
        try:
            results[i] = disasm.disassemble(cubin)
        except SassError as e:
            results[i] = e
    workers = [threading.Thread(target=ask, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(10)
    return results


def test_one_cubin_asked_by_two_threads_at_once_is_disassembled_once(monkeypatch):
    calls = []

    def slow_nvdisasm(cubin):
        calls.append(cubin)
        time.sleep(0.15)  # long enough for the second thread to ask while the first runs
        return f"text of {len(cubin)} bytes"
    monkeypatch.setattr(disasm, "_nvdisasm", slow_nvdisasm)
    cubin = b"one cubin, %f" % time.time()
    assert _ask_together(cubin) == [f"text of {len(cubin)} bytes"] * 2
    assert len(calls) == 1 and not disasm._IN_FLIGHT
    other = cubin + b" and another"
    assert _ask_together(other) == [f"text of {len(other)} bytes"] * 2 and len(calls) == 2


def test_a_failed_run_leaves_the_waiting_thread_to_run_its_own(monkeypatch):
    calls = []

    def fails_first(cubin):
        calls.append(cubin)
        time.sleep(0.15)
        if len(calls) == 1:
            raise SassError("nvdisasm failed (1): stand-in")
        return "text"
    monkeypatch.setattr(disasm, "_nvdisasm", fails_first)
    results = _ask_together(b"a cubin nvdisasm fails on once, %f" % time.time())
    assert sorted(type(r).__name__ for r in results) == ["SassError", "str"] and len(calls) == 2
    assert not disasm._IN_FLIGHT


def test_a_remembered_text_is_served_without_nvdisasm(monkeypatch):
    monkeypatch.setattr(disasm, "_nvdisasm", lambda cubin: "first")
    cubin = b"remembered, %f" % time.time()
    assert disasm.disassemble(cubin) == "first"
    monkeypatch.setattr(disasm, "_nvdisasm", lambda cubin: pytest.fail("ran nvdisasm again"))
    assert disasm.disassemble(cubin) == "first"
