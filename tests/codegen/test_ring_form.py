"""The TN ring form (operand_forms.for_ring, session 37): which plans run the cp.async ring of four stages, which keep
the two-stage loop, and the ring kernels that regtile.sgemm can now run compiling spill-free on every architecture.
Right against float64 on the GPU: tests/gpu/test_api_gpu.py test_tn_ring_plans; the ring's own paths on the PTX
interpreter: tests/codegen/test_edges.py."""
import pytest

from regtile.codegen import heuristic as h
from regtile.codegen.operand_forms import RING_MIN_KTILES, RING_TN_STAGES, for_ring, member_for_shape
from regtile.codegen.presets import FAMILY
from regtile.runtime.compiler import compile_config, spilled_bytes
from tiers import tiered

LAYOUTS = {"NN": (False, False), "NT": (False, True), "TN": (True, False), "TT": (True, True)}


def _plan_config(m, n, k, layout):
    """The config regtile.sgemm's plan builds for packed operands (the table's member, generated for the layout and
    the operands), on 132 SMs."""
    ta, tb = LAYOUTS[layout]
    member = h.describe_choice(m, n, k, "sm_90", 132, h.rows_aligned(m, n, k, ta, tb), trans_a=ta, trans_b=tb)["member"]
    return member, member_for_shape(member, m, n, k, 132, ta, tb)[0]


@pytest.mark.parametrize("m, n, k", [(512, 512, 512), (127, 511, 257), (8192, 30, 1024), (49, 1280, 320)])
def test_tn_small_members_take_the_ring(m, n, k):
    """Suite and held-out shapes measured faster with the ring (docs/data/session37/b_508dc83): the same member in
    every layout, the ring in TN alone (A's transposed copy in NN / NT is a 4-byte cp.async a float: slower).
    8192x30x1024 (tall-64x32, C's rows staged) stands for session 37's 16384x30x4096 (tall-64x32-k32), which since
    session 41 runs the skinny-n stand-in in the transposed layouts (layout_choice.skinny_stand_in: since session 42
    from 48 MiB of A in TN, which took 16384x30x2048 as well)."""
    member, tn = _plan_config(m, n, k, "TN")
    assert tn.stages == RING_TN_STAGES and not tn.hoist_head and not tn.sass_pass, member
    assert tn.tm * tn.tn == 16 and max(tn.bm, tn.bn) <= 64
    for layout in ("NN", "NT", "TT"):
        other, cfg = _plan_config(m, n, k, layout)
        if other == member:
            assert cfg.stages == 2, (layout, other)


@pytest.mark.parametrize("m, n, k, why", [
    (256, 256, 256, "K of 16 k-tiles"),  # 5.7 / 5.9 us: the ring's three tiles in flight do not pay
    (50, 50, 50000, "two tiles"),  # stream-K cuts K into short pieces: 24.6 / 29.1 us
    (12544, 32, 144, "five k-tiles"),
])
def test_tn_ring_left_where_it_was_slower(m, n, k, why):
    member, cfg = _plan_config(m, n, k, "TN")
    assert cfg.stages == 2, (member, why)


@pytest.mark.parametrize("name", ["sq-64x64", "sq-64x64-4x8", "skinny-n16-k32", "skinny-m16-k32", "splitk-32x64-f4"])
def test_other_tiles_keep_their_loop(name):
    """8x8 and 4x8 thread tiles and the skinny members' 4x4 ones (slower with the ring on their TN picks) and the CUDA
    C split-K members (no ring) keep `cfg` on a shape the 4x4 members take it on."""
    cfg = FAMILY[name].config.replace(trans_a=True)
    backend = FAMILY[name].backend
    assert for_ring(cfg, backend, 4096, 4096, 4096) == cfg


@pytest.mark.parametrize("fields", [dict(sass_pass=True), dict(last_col=True),
                                    dict(stream_k=False, edge_split=False, split_k=4)])
def test_what_the_ring_cannot_take_keeps_its_loop(fields):
    """The SASS pass, C's fused last column and split-K: the config's checks refuse the ring with them, and for_ring
    asks for it through `taken`, which keeps the two-stage config."""
    cfg = FAMILY["sq-32x32"].config.replace(trans_a=True, **fields)
    assert for_ring(cfg, "ptx", 4096, 4096, 4096) == cfg


def test_the_k_tile_count_decides():
    """More than RING_MIN_KTILES k-tiles of the member's BK, and only with K known."""
    cfg = FAMILY["sq-32x32"].config.replace(trans_a=True)
    at = RING_MIN_KTILES * cfg.bk
    assert for_ring(cfg, "ptx", 512, 512, at) == cfg
    assert for_ring(cfg, "ptx", 512, 512, at + 1).stages == RING_TN_STAGES
    assert for_ring(cfg, "ptx", 512, 512, None) == cfg
    tt = cfg.replace(trans_b=True)
    assert for_ring(tt, "ptx", 512, 512, 4 * at) == tt  # TT: B^T's copy is transposed


RING_MEMBERS = ["sq-32x32", "wide-32x64", "tall-64x32", "wide-32x64-k32", "tall-64x32-k32", "plain-32x32",
                "plain-32x64"]


RING_CASES = tiered([(name, arch, False) for name in RING_MEMBERS for arch in ("sm_90", "sm_80", "sm_86", "sm_89")]
                    + [(name, "sm_90", True) for name in RING_MEMBERS],
                    fast={("sq-32x32", "sm_90", False), ("wide-32x64", "sm_90", True)})


@pytest.mark.parametrize("name, arch, unaligned", RING_CASES)
def test_ring_forms_compile_spill_free(name, arch, unaligned):
    """Every member the form can take, as the ring, on aligned rows and (sm_90) on rows that take the float copies (a
    4-byte cp.async a float): ptxas's own report, read from the real cubin, no spill."""
    m, n, k = (512, 512, 1024) if not unaligned else (509, 511, 1021)
    cfg, backend = member_for_shape(name, m, n, k, 132, True, False)
    assert cfg.stages == RING_TN_STAGES and cfg.unaligned_rows == unaligned
    art = compile_config(cfg, arch, backend=backend, allow_spills=True)
    assert spilled_bytes(art) == 0


class _Dev:
    """A device array by __cuda_array_interface__ (strides in bytes; None: C order): the operands' metadata alone."""

    def __init__(self, shape, strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "data": (0x10000, False),
                                         "strides": strides, "version": 3}


def _col_major(rows, cols):
    return _Dev((rows, cols), strides=(4, 4 * rows))


@pytest.fixture
def chosen(monkeypatch):
    """regtile.sgemm's path from operands to the plan's config on a fake H200 with nothing tuned: the kernel's problem
    (runtime/problem.kernel_problem: a column-major C swaps A and B), then GemmPlan's choice (choose_sgemm_kernel)."""
    from types import SimpleNamespace
    from regtile.runtime import choice, driver
    from regtile.runtime.problem import kernel_problem, resolve
    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(name="Fake GPU", arch="sm_90", sm_count=132))
    monkeypatch.setattr(choice, "_tuned", lambda device_name: {})

    def run(a, b, c, transa=False, transb=False):
        p = kernel_problem(resolve(a, b, c, transa=transa, transb=transb), transa, transb)
        batch = p.batch if p.batch > 1 else 0
        cfg, _ = choice.choose_sgemm_kernel(p.kernel_m, p.kernel_n, p.k, "sm_90", p.trans_a, p.trans_b, batch, p.lda,
                                            p.ldb, p.ldc)
        return p, cfg
    return run


def test_the_ring_through_regtile_sgemm_s_operands(chosen):
    """512^3 (sq-32x32's TN pick): TN takes the ring whichever way it is reached - transa on a row-major A, a
    column-major A, a column-major C (C^T = B^T A^T is TN again), padded or unaligned leading dimensions; NN with a
    column-major C runs TT and a batch the batched kernel: neither takes it."""
    m = n = k = 512
    cases = [  # (A, B, C, transa): the kernel's layout, whether it runs the ring
        ((_Dev((k, m)), _Dev((k, n)), _Dev((m, n)), True), ("TN", True)),
        ((_col_major(m, k), _Dev((k, n)), _Dev((m, n)), False), ("TN", True)),
        ((_Dev((k, m)), _Dev((k, n)), _col_major(m, n), True), ("TN", True)),
        ((_Dev((k, m), strides=(4 * (m + 4), 4)), _Dev((k, n)), _Dev((m, n)), True), ("TN", True)),
        ((_Dev((m, k)), _Dev((k, n)), _col_major(m, n), False), ("TT", False)),
        ((_Dev((4, k, m)), _Dev((4, k, n)), _Dev((4, m, n)), True), ("TN", False)),
    ]
    for (a, b, c, transa), (layout, ring) in cases:
        p, cfg = chosen(a, b, c, transa)
        assert "NT"[p.trans_a] + "NT"[p.trans_b] == layout
        assert (cfg.stages == RING_TN_STAGES) == ring, (layout, p.lda, p.batch, cfg)
    _, unaligned = chosen(_Dev((k, m), strides=(4 * (m + 1), 4)), _Dev((k, n)), _Dev((m, n), strides=(4 * (n + 1), 4)),
                          True)
    assert unaligned.stages == RING_TN_STAGES and unaligned.unaligned_rows and unaligned.c_staged


def test_a_given_config_keeps_its_loop():
    """A plan built with a config (regtile.sgemm(config=...), GemmPlan(config=...)) runs it as given: kernel_config
    generates it for the layout and never asks for the ring."""
    from regtile.runtime.plans import kernel_config
    cfg = FAMILY["sq-32x32"].config
    assert kernel_config(cfg, True, False, False).stages == cfg.stages == 2
