"""The few-vector plans (runtime/fewvec.py) without a GPU: the launches packed once per (stream,
strides), the per-call fields written where the kernels read them, the workspace's layout, the
bounded plan cache and the pin of a plan a graph captured."""
import ctypes
import struct
from types import SimpleNamespace

import pytest

from regtile.codegen.emit_fewvec import FEWVEC_PARAMS, FEWVEC_REDUCE_PARAMS, STAGE_PARAMS
from regtile.codegen.fewvec_config import FewVecNConfig, FewVecTConfig
from regtile.codegen.kernel import LaunchGeometry
from regtile.runtime import driver, fewvec, plan_store, plans

_FUNCS = {11: FEWVEC_PARAMS, 22: STAGE_PARAMS, 33: FEWVEC_REDUCE_PARAMS}


def _kernel(params, fn):
    geo = LaunchGeometry(block=(256, 1, 1), tile_m=1, tile_n=1, dynamic_smem_bytes=0)  # plain launches here
    return SimpleNamespace(source=SimpleNamespace(params=params, geometry=geo, name=f"regtile_fewvec_fake{fn}"),
                           function=fn, describe_launch=lambda grid: "fake")


@pytest.fixture
def launched(monkeypatch):
    """Each launch as (function, grid, stream, {param: value}), read back from kernelParams."""
    seen = []

    def fake_launch(func, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        values = {}
        for i, (name, ctype) in enumerate(_FUNCS[func]):
            code = "<Q" if "*" in ctype else {"int": "<i", "float": "<f"}[ctype]
            values[name] = struct.unpack(code, ctypes.string_at(params[i], struct.calcsize(code)))[0]
        seen.append((func, (gx, gy, gz), stream, values))
        return 0
    allocated = []

    def buffer(nbytes):
        allocated.append(nbytes)
        return SimpleNamespace(ptr=0x50000 * len(allocated), nbytes=nbytes)
    monkeypatch.setattr(driver, "_raw_launch", fake_launch)
    monkeypatch.setattr(driver, "DeviceBuffer", buffer)
    monkeypatch.setattr(driver, "stream_capturing", lambda stream: False)
    monkeypatch.setattr(plan_store, "captured_plans", [])
    return seen, allocated


def _plan(cfg, rows, cols, splits):
    main = _kernel(FEWVEC_PARAMS, 11)
    main.entries = {"stage": _kernel(STAGE_PARAMS, 22)}
    main.reduce = _kernel(FEWVEC_REDUCE_PARAMS, 33)
    return fewvec.FewVecPlan(main, cfg, rows, cols, splits)


def test_op_t_split_plan_packs_once_and_writes_the_call_fields(launched):
    seen, allocated = launched
    plan = _plan(FewVecTConfig(4, 32, 8, 4), 1000, 3000, 3)
    route = fewvec.FewVecRoute(plan, sv=1, sp=7, ld=3001, ldc=3002, mat_is_a=False)
    route.launch(0xA0, 0xB0, 0xC0, 2.0, 0.5, stream=9)
    route.launch(0xA4, 0xB4, 0xC4, 3.0, 0.0, stream=9)
    assert len(plan._packed) == 1 and allocated == [4 * (plan.staged + 3 * plan.count)]
    assert plan.workspace_streams() == [9]
    assert [s[0] for s in seen] == [22, 11, 33] * 2 and {s[2] for s in seen} == {9}
    (_, sgrid, _, stage), (_, grid, _, main), (_, rgrid, _, red) = seen[3:]
    x, w = 0x50000, 0x50000 + 4 * plan.staged
    assert stage == {"S": 0xA4, "sv": 1, "sp": 7, "K": 1000, "X": x}  # the vectors: A's rows
    assert main == {"M": 1000, "N": 3000, "alpha": 3.0, "A": 0xB4, "lda": 3001, "X": x, "beta": 0.0,
                    "C": 0xC4, "ldc": 3002, "W": w}
    assert red == {"count": plan.count, "splits": 3, "alpha": 3.0, "W": w, "beta": 0.0, "C": 0xC4,
                   "inner": 3000, "ldo": 3002}
    assert grid == plan.grid and grid[1] == 3 and sgrid == plan.stage_grid and rgrid == plan.reduce_grid
    route.launch(0xA0, 0xB0, 0xC0, 1.0, 0.0, stream=4)  # another stream: its own workspace and packing
    assert len(plan._packed) == 2 and len(allocated) == 2 and seen[-2][3]["X"] == 0xA0000


def test_op_n_plan_without_split_reads_the_vectors_from_b(launched):
    seen, allocated = launched
    plan = _plan(FewVecNConfig(5, 2, 3, 2), 130, 5000, 1)
    fewvec.FewVecRoute(plan, sv=1, sp=5, ld=5000, ldc=5, mat_is_a=True).launch(0xA0, 0xB0, 0xC0, 1.0, 0.0)
    assert [s[0] for s in seen] == [22, 11] and allocated == [4 * plan.staged]
    assert seen[0][3]["S"] == 0xB0 and seen[1][3]["A"] == 0xA0 and seen[1][3]["W"] == 0x50000 + 4 * plan.staged


def test_a_plan_launched_during_a_capture_is_pinned_once(launched, monkeypatch):
    """A graph points into the plan's workspace: pinned (plan_store.captured_plans), so the bounded
    cache's eviction frees nothing the graph replays; stream 0 is never asked, a pinned plan never again."""
    asked = []
    monkeypatch.setattr(driver, "stream_capturing", lambda stream: asked.append(stream) or stream == 7)
    monkeypatch.setattr(driver, "relaxed_capture", lambda: "mode")
    monkeypatch.setattr(driver, "restore_capture", lambda mode: None)
    plan = _plan(FewVecTConfig(4, 32, 8, 4), 1000, 3000, 1)
    route = fewvec.FewVecRoute(plan, sv=1, sp=7, ld=3001, ldc=3002, mat_is_a=False)
    route.launch(1, 2, 3, 1.0, 0.0, stream=0)
    route.launch(1, 2, 3, 1.0, 0.0, stream=5)
    assert plan_store.captured_plans == [] and not plan.pinned
    del asked[:]
    route.launch(1, 2, 3, 1.0, 0.0, stream=7)
    route.launch(1, 2, 3, 1.0, 0.0, stream=7)
    route.launch(1, 2, 3, 1.0, 0.0, stream=5)
    assert plan_store.captured_plans == [plan] and plan.pinned
    assert asked == [7, 7]  # the launch's question, then packing's outside_capture; none after the pin


def test_the_plan_cache_is_bounded_and_builds_each_plan_once(monkeypatch):
    built = []
    monkeypatch.setattr(fewvec, "plan_cache", plans.PlanCache(size=2))
    monkeypatch.setattr(fewvec, "compile_config", lambda cfg, arch: cfg)
    monkeypatch.setattr(fewvec.driver, "load", lambda artifact: SimpleNamespace(blocks_per_sm=2))
    monkeypatch.setattr(fewvec, "FewVecPlan", lambda kernel, cfg, rows, cols, splits: built.append(rows) or rows)
    monkeypatch.setattr(fewvec, "_arch_and_sms", lambda: ("sm_90", 132))
    cfg = FewVecTConfig(4, 32, 8, 4)
    for rows in (100, 100, 200, 300, 300, 100):
        assert fewvec.plan_for(rows, 4096, "T", 4, config=cfg, splits=1) == rows
    assert built == [100, 200, 300, 100] and len(fewvec.plan_cache) == 2


def test_the_rule_runs_its_first_form_that_compiles_without_spilling(monkeypatch):
    """The shared-memory op T kernels' forms are compiled best first; the first that does not spill runs
    (the rest are never compiled), and where all spill the last SpillError comes out."""
    from regtile.codegen.fewvec_config import SMEM_FORMS, fewvec_candidates
    from regtile.errors import SpillError
    forms = fewvec_candidates(4096, 4096, "T", 15)
    compiled = []

    def compile_config(cfg, arch, spilling=2):
        compiled.append((cfg.unroll, cfg.running_rows, arch))
        if len(compiled) <= spilling:
            raise SpillError(f"form {len(compiled)} spilled")
        return "artifact"
    monkeypatch.setattr(fewvec, "compile_config", compile_config)
    assert fewvec._rule_kernel(4096, 4096, "T", 15, "sm_86") == (forms[2], "artifact")
    assert compiled == [(u, r, "sm_86") for u, r in SMEM_FORMS[:3]]
    compiled.clear()
    monkeypatch.setattr(fewvec, "compile_config", lambda cfg, arch: compile_config(cfg, arch, spilling=99))
    with pytest.raises(SpillError, match=f"form {len(SMEM_FORMS)} spilled"):
        fewvec.rule_config(4096, 4096, "T", 15, "sm_80")
    assert len(compiled) == len(SMEM_FORMS)


def test_a_spilling_rule_kernel_leaves_the_gemm_to_the_members(monkeypatch):
    """Where the rule's few-vector kernel spills under this arch's compiler, the route declines (the family's
    members take the GEMM: regtile never runs a spilling kernel); a config the caller gave still raises."""
    from regtile.errors import SpillError

    def spills(*args, **kwargs):
        raise SpillError("regtile_fewvec_ts16x16_v16 (sm_80): ptxas spilled to local memory")
    monkeypatch.setattr(fewvec, "compile_config", spills)
    monkeypatch.setattr(fewvec, "_arch_and_sms", lambda: ("sm_80", 108))
    monkeypatch.setattr(fewvec, "plan_cache", plan_store.PlanCache())
    assert fewvec.fewvec_route(16, 4096, 4096, False, 4096, False, 4096, 4096) is None
    with pytest.raises(SpillError):
        fewvec.fewvec_route(16, 4096, 4096, False, 4096, False, 4096, 4096,
                            config=FewVecTConfig(16, 16, 16, 4, min_blocks=2, smem_vectors=True))
