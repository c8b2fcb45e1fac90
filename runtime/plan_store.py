"""Where plans are kept: the least-recently-used caches of regtile.sgemm's plans and of the
few-vector plans (PlanCache), and the plans a CUDA graph captured (captured_plans), kept alive for
the life of the process because a graph may replay their workspaces at any time (runtime/plans.py's
docstring).  Its own module so that runtime/plans.py and runtime/fewvec.py, which both keep plans,
need not import each other."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import List, Optional

PLAN_CACHE_SIZE = 256
captured_plans: List[object] = []
_pin_lock = threading.Lock()


def is_pinned(plan) -> bool:
    return any(p is plan for p in captured_plans)


def pin(plan) -> None:
    """Keep `plan` (its workspaces and work lists) for the life of the process, whatever a cache evicts."""
    with _pin_lock:
        if not is_pinned(plan):
            captured_plans.append(plan)


class PlanCache:
    """Plans by key, least recently used first out, `size` kept (a captured plan lives on in captured_plans)."""

    def __init__(self, size: int = PLAN_CACHE_SIZE):
        self.size = size
        self._plans: "OrderedDict[tuple, object]" = OrderedDict()
        self._lock = threading.Lock()
        self.misses = 0

    def get(self, key: tuple) -> Optional[object]:
        plan = self._plans.get(key)
        if plan is not None:
            try:
                self._plans.move_to_end(key)
            except KeyError:  # evicted by another thread in between: still a valid plan
                pass
        return plan

    def put(self, key: tuple, plan):
        with self._lock:
            self.misses += 1
            self._plans[key] = plan
            while len(self._plans) > self.size:
                self._plans.popitem(last=False)
        return plan

    def clear(self) -> None:
        with self._lock:
            self._plans.clear()

    def values(self) -> List[object]:
        """The plans held now, least recently used first (a copy: safe while others put)."""
        with self._lock:
            return list(self._plans.values())

    def __len__(self) -> int:
        return len(self._plans)
