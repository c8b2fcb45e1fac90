"""What the GEMV plans (runtime/gemv.GemvPlan) and the few-vector plans (runtime/fewvec.FewVecPlan)
share: a workspace per stream, allocated on the first call on that stream, and launches packed
once per key (driver.PackedLaunch) whose first field is the stream.

The workspace is allocated outside any CUDA graph capture of the stream (driver.outside_capture)
and kept while the plan lives, so a graph that captured a launch keeps pointing at live memory.
A call looks its packed launches up, takes `_args_lock` (the driver copies kernelParams at
launch: the buffers are free after) and launches them; the subclasses keep that lookup inline in
their `launch`, the hot path (docs/overhead.md), and call `_pack_once` only on a miss.
"""
from __future__ import annotations

import threading
from typing import Dict, Optional, Sequence

from . import driver


class PackedPlan:
    """Per-stream workspaces (`_new_workspace`) and packed launches (`_launches`), built once."""

    def __init__(self):
        self._ws: Dict[int, driver.DeviceBuffer] = {}
        self._packed: Dict[tuple, tuple] = {}
        self._args_lock = threading.Lock()

    def _new_workspace(self) -> Optional[driver.DeviceBuffer]:
        """A fresh workspace for one stream; None: the plan needs none."""
        raise NotImplementedError

    def _launches(self, key: tuple, workspace: int) -> Sequence[driver.PackedLaunch]:
        """The launches of `key` (its first field the stream) on the workspace at `workspace`."""
        raise NotImplementedError

    def workspace_buffer(self, stream: int) -> Optional[driver.DeviceBuffer]:
        """`stream`'s workspace, allocated on first use (None when the plan needs none)."""
        buf = self._ws.get(stream)
        if buf is None:
            with self._args_lock:
                buf = self._ws.get(stream)
                if buf is None:
                    buf = self._new_workspace()
                    if buf is not None:
                        buf = self._ws.setdefault(stream, buf)
        return buf

    def workspace_streams(self):
        return list(self._ws)

    def _pack_once(self, key: tuple) -> tuple:
        """The packed launches of `key`, built on its first call (the workspace outside a graph)."""
        packed = self._packed.get(key)
        if packed is None:
            stream = key[0]
            with driver.outside_capture(stream):  # the workspace: outside a graph
                buf = self.workspace_buffer(stream)
            packed = self._packed.setdefault(key, tuple(self._launches(key, buf.ptr if buf is not None else 0)))
        return packed
