"""Progress of long commands (tune, bench, sweep, a slow compile) on one stderr line.

Shown only where someone watches: stderr is a terminal, the command was not asked
for --json, and REGTILE_PROGRESS is not 0.  Otherwise every call here does nothing,
so logs, pipes and CI stay clean.  No dependency: a carriage-return line, and for a
single slow step (one NVRTC compile) a timer thread that starts talking after a second.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator, Optional

_enabled: Optional[bool] = None  # None: decide from the terminal on first use


def configure(json_output: bool = False) -> None:
    """Called once by the command line: --json (machine-read output) turns progress off."""
    global _enabled
    _enabled = (not json_output and os.environ.get("REGTILE_PROGRESS", "1") != "0"
                and hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


def enabled() -> bool:
    if _enabled is None:
        configure()
    return bool(_enabled)


class _Line:
    """One rewritable stderr line."""

    def __init__(self):
        self.width = 0
        self.lock = threading.Lock()

    def show(self, text: str) -> None:
        if not enabled():
            return
        with self.lock:
            pad = max(0, self.width - len(text))
            sys.stderr.write("\r" + text + " " * pad)
            sys.stderr.flush()
            self.width = len(text)

    def clear(self) -> None:
        if not enabled() or not self.width:
            return
        with self.lock:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()
            self.width = 0


_line = _Line()


def status(text: str) -> None:
    """Show `text` on the progress line (replacing what was there)."""
    _line.show(text)


def clear() -> None:
    _line.clear()


class Counter:
    """`n/total label (elapsed)`, one step at a time:

        bar = Counter(len(todo), "time")
        for c in todo:
            bar.step(c.name)
            ...
        bar.done()
    """

    def __init__(self, total: int, what: str):
        self.total, self.what, self.i = total, what, 0
        self.t0 = time.monotonic()

    def step(self, label: str = "") -> None:
        self.i += 1
        self.show(label)

    def show(self, label: str = "") -> None:
        elapsed = time.monotonic() - self.t0
        _line.show(f"{self.what} {self.i}/{self.total} {label} ({elapsed:.0f} s)".replace("  ", " "))

    def done(self) -> None:
        _line.clear()


@contextmanager
def task(label: str, after_s: float = 1.0) -> Iterator[None]:
    """One slow step: `label ... N s` once it has taken `after_s`, cleared when it ends."""
    if not enabled():
        yield
        return
    stop = threading.Event()
    t0 = time.monotonic()

    def tick():
        if stop.wait(after_s):
            return
        while not stop.is_set():
            _line.show(f"{label} ... {time.monotonic() - t0:.0f} s")
            stop.wait(1.0)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        _line.clear()
