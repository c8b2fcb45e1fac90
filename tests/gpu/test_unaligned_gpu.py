"""Unaligned rows (config.unaligned_rows, codegen/ptx_unaligned.py) on the GPU against float64:
every PTX family member that takes the path (codegen/operand_forms.for_rows) on ragged shapes whose
leading dimensions are not multiples of 4, fresh random data, C NaN-poisoned (every element
checked written); the float copies' edge tiles (a tile of one row or column, M or N under 4, K
under one k-tile or a multiple of BK); the four layouts with padded leading dimensions; the same
bits as the guarded path; and regtile.sgemm choosing the path."""
import numpy as np
import pytest

from regtile.codegen.operand_forms import for_rows
from regtile.codegen.presets import FAMILY
from gpu_helpers import check_config, check_host_sgemm, launch_each
from test_layouts_gpu import IDS, LAYOUTS, run_layout

pytestmark = pytest.mark.gpu

# every member the runtime gives the path, and the 8x16 ones (correct with it, slower: not chosen)
MEMBERS = sorted(n for n, m in FAMILY.items()
                 if m.backend == "ptx" and (for_rows(m.config, "ptx", 3, 3).unaligned_rows
                                            or n in ("wide-128x256", "wide-128x256-noedge", "tall-256x128")))
# lda = K, ldb = N: (A and B unaligned, every edge ragged), (an interior and edges, K % 4 = 3),
# (A aligned, B unaligned, K a multiple of every BK: every k-tile on the float path)
SHAPES = [(255, 257, 1031), (1000, 1001, 515), (129, 67, 512)]


def flagged(name):
    """The member with the float copies: as for_rows gives them (tall-128x64-k16's held at its register cap), or
    for the members it gives nothing or the vector floats, the float copies alone."""
    given = for_rows(FAMILY[name].config, "ptx", 1031, 257)
    if given.unaligned_rows:
        return given
    assert given in (FAMILY[name].config, FAMILY[name].config.replace(unaligned_vectors=True))
    return FAMILY[name].config.replace(unaligned_rows=True)


# the members the runtime gives the unchecked vector floats instead (config.unaligned_vectors, session 8:
# the 8x16 / 16x8 tiles, and the 128x128 one whose registers leave no room for the float copies)
VECTOR_MEMBERS = sorted(n for n, m in FAMILY.items()
                        if m.backend == "ptx" and for_rows(m.config, "ptx", 3, 3).unaligned_vectors)


def vectors(name):
    cfg = for_rows(FAMILY[name].config, "ptx", 1031, 257)
    assert cfg.unaligned_vectors
    return cfg


@pytest.mark.parametrize("m, n, k", SHAPES + [(300, 517, 2053), (1, 9, 1031)], ids=lambda x: str(x))
@pytest.mark.parametrize("name", VECTOR_MEMBERS)
def test_members_on_unaligned_vectors(name, m, n, k):
    check_config(vectors(name), m, n, k, backend="ptx", what=f"{name} unaligned vectors")


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
def test_unaligned_vectors_in_every_layout(ta, tb):
    run_layout(vectors("wide-128x256-noedge"), "ptx", 255, 257, 1031, ta, tb, 1.0, 0.0, 1)
    run_layout(vectors("tall-256x128"), "ptx", 300, 200, 64, ta, tb, 0.5, -1.5, 3)


def test_unaligned_vectors_bit_identical_to_the_checked_path():
    """The unchecked floats are the checked path's, in the same registers: C is the same to the bit."""
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    arch = driver.device().arch
    kernels = [driver.load(compile_config(cfg, arch, backend="ptx"))
               for cfg in (FAMILY["wide-128x256-noedge"].config, vectors("wide-128x256-noedge"))]
    outs = launch_each(kernels, 255, 257, 1031)
    assert not np.isnan(outs[0]).any() and outs[0].tobytes() == outs[1].tobytes()


@pytest.mark.parametrize("m, n, k", SHAPES, ids=lambda x: str(x))
@pytest.mark.parametrize("name", MEMBERS)
def test_members_on_unaligned_rows(name, m, n, k):
    check_config(flagged(name), m, n, k, backend="ptx", what=f"{name} unaligned rows")


@pytest.mark.parametrize("m, n, k", [(1, 1, 9), (2, 3, 17), (127, 1, 1025), (1, 129, 333), (5, 7, 64)],
                         ids=lambda x: str(x))
@pytest.mark.parametrize("name", ["tall-128x64", "wide-128x256", "sq-32x32"])
def test_tiny_and_single_row_shapes(name, m, n, k):
    """Tiles of one row or column (every float but a few outside the block dimension), N or M
    under 4, K under one k-tile (the float path never taken) or a few."""
    check_config(flagged(name), m, n, k, backend="ptx", what=f"{name} unaligned rows")


@pytest.mark.parametrize("alpha, beta", [(0.5, -1.5), (0.0, 0.75)])
def test_alpha_beta(alpha, beta):
    check_config(flagged("wide-64x128"), 1023, 1025, 1023, alpha, beta, backend="ptx", what="unaligned rows")


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
@pytest.mark.parametrize("name", ["tall-128x64", "wide-128x256-noedge"])
def test_layouts_with_padded_rows(name, ta, tb):
    """ld = the stored rows + 1 or 3: unaligned whatever the sizes, for every layout."""
    run_layout(flagged(name), "ptx", 255, 257, 1031, ta, tb, 1.0, 0.0, 1)
    run_layout(flagged(name), "ptx", 300, 200, 64, ta, tb, 0.5, -1.5, 3)


def test_regtile_sgemm_takes_the_path():
    from regtile.runtime.plans import GemmPlan
    plan = GemmPlan(1023, 1025, 1023, False, False, 1023, 1025, 1025)  # a PTX member (wide-64x128-k16)
    assert plan.backend == "ptx" and (plan.config.unaligned_rows or plan.config.unaligned_vectors)
    aligned = GemmPlan(1024, 1024, 1024, False, False, 1024, 1024, 1024).config
    assert not (aligned.unaligned_rows or aligned.unaligned_vectors)
    check_host_sgemm(1023, 1023, 1025, 1.5, 0.5)
    check_host_sgemm(255, 1031, 257, 1.5, 0.5)
    check_host_sgemm(8, 4097, 4099, 1.0, 0.0)


def test_bit_identical_to_the_guarded_path():
    """Inside the matrix the unchecked path loads the floats the guarded one loads, into the same
    registers, in the same order of FFMAs: C is the same to the bit."""
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_config
    arch = driver.device().arch
    kernels = [driver.load(compile_config(cfg, arch, backend="ptx"))
               for cfg in (FAMILY["tall-128x64"].config, flagged("tall-128x64"))]
    outs = launch_each(kernels, 255, 257, 1031)
    assert not np.isnan(outs[0]).any() and outs[0].tobytes() == outs[1].tobytes()


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
@pytest.mark.parametrize("name", ["wide-128x256", "wide-128x256-noedge"])
def test_aligned_rows_with_ragged_extents(name, ta, tb):
    """Rows padded by 3 floats to 16-byte alignment, every extent ragged (301 x 517 x 201, each 1 mod 4): the
    128x256 members' tiles across B's N (or A^T's M) on float4s before line K - 1 (ptx_edges.clamp_setup; until
    session 28 operand_forms.for_vector_edges gave them the edge vector path here; wide-128x256 splits this shape,
    and NT has no such operand: the kernel is checked in every layout all the same)."""
    m, n, k, pad = 301, 517, 201, 3
    lda, ldb = (m if ta else k) + pad, (k if tb else n) + pad
    assert lda % 4 == 0 and ldb % 4 == 0
    cfg = FAMILY[name].config.replace(trans_a=ta, trans_b=tb)
    run_layout(cfg, "ptx", m, n, k, ta, tb, 0.5, -1.5, pad)
    run_layout(cfg, "ptx", m, n, k, ta, tb, 1.0, 0.0, pad)


def _plan_into(m, n, k, lda, ldb, ldc, seed=None):
    """regtile's plan (runtime/plans.GemmPlan, as regtile.sgemm builds it for these leading dimensions) on fresh
    random rows with the given pitches, C NaN-poisoned; -> (relative error against float64, unwritten, plan)."""
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, lda), dtype=np.float32)
    b = rng.standard_normal((k, ldb), dtype=np.float32)
    c = np.full((m, ldc), np.nan, np.float32)
    plan = GemmPlan(m, n, k, False, False, lda, ldb, ldc)
    da, db, dc = driver.to_device(a), driver.to_device(b), driver.to_device(c)
    try:
        plan.launch(da.ptr, db.ptr, dc.ptr, 1.0, 0.0, 0)
        driver.synchronize()
        dc.download(c)
    finally:
        for buf in (da, db, dc):
            buf.close()
    ref = a[:, :k].astype(np.float64) @ b[:, :n]
    got = c[:, :n]
    return float(np.linalg.norm(np.nan_to_num(got - ref, nan=1e30)) / np.linalg.norm(ref)), \
        int(np.isnan(got).sum()), plan


@pytest.mark.parametrize("m,n,k", [(2047, 4097, 1023), (1111, 3333, 2222), (333, 777, 999), (301, 517, 203)],
                         ids=lambda v: str(v))
@pytest.mark.parametrize("padded", ["A", "B", "C", "AB", "BC"])
def test_mixed_row_alignment_through_the_plan(m, n, k, padded):
    """One or two operands' rows padded to 16 bytes, the others packed at odd leading dimensions (a weight's
    slice beside packed activations): the kernel tests each operand's rows at run time, so every mix must be
    right.  Session 27's ragged_cost_ab saw B padded with A and C packed come out wrong (rel err 1.41)."""
    up4 = lambda v: -(-v // 4) * 4  # noqa: E731
    lda, ldb, ldc = (up4(k) if "A" in padded else k), (up4(n) if "B" in padded else n), \
        (up4(n) if "C" in padded else n)
    err, unwritten, plan = _plan_into(m, n, k, lda, ldb, ldc)
    assert unwritten == 0 and err <= 1e-5, f"{plan.describe()} lda {lda} ldb {ldb} ldc {ldc}: rel err {err}, " \
                                            f"{unwritten} unwritten"


@pytest.mark.parametrize("m,n,k,ta,tb,pad", [
    (1111, 3333, 2222, False, False, 0),  # B packed, N % 4 == 1
    (1111, 3333, 2222, False, False, 3),  # rows padded to 16 bytes: the float4s past N on every line but the last
    (1919, 2929, 3939, True, False, 1),   # A^T with M % 4 == 3
    (4097, 4096, 2047, True, True, 0),    # A^T's M % 4 == 1; B^T
], ids=lambda v: str(v))
def test_ragged_vector_bounds_through_the_plan(m, n, k, ta, tb, pad):
    """Tiles across a ragged vector bound (ptx_edges.clamp_setup: B's N, A^T's M) in regtile's plan (until session
    28 the last column or row ran as a GEMV of its own, the vector trim): alpha and beta (C random, beta != 0; then
    C NaN-poisoned, beta 0: every element written), against float64 in each layout."""
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan
    rng = np.random.default_rng()
    lda, ldb, ldc = (m if ta else k) + pad, (k if tb else n) + pad, n + pad
    a = rng.standard_normal((k if ta else m, lda), dtype=np.float32)
    b = rng.standard_normal((n if tb else k, ldb), dtype=np.float32)
    opa = (a[:, :m].T if ta else a[:, :k]).astype(np.float64)
    opb = (b[:, :k].T if tb else b[:, :n]).astype(np.float64)
    plan = GemmPlan(m, n, k, ta, tb, lda, ldb, ldc)
    for alpha, beta in ((0.5, -1.5), (1.0, 0.0)):
        c0 = rng.standard_normal((m, ldc), dtype=np.float32)
        if not beta:
            c0[:, :n] = np.nan
        got = np.empty_like(c0)
        da, db, dc = driver.to_device(a), driver.to_device(b), driver.to_device(c0)
        try:
            plan.launch(da.ptr, db.ptr, dc.ptr, alpha, beta, 0)
            driver.synchronize()
            dc.download(got)
        finally:
            for buf in (da, db, dc):
                buf.close()
        ref = alpha * (opa @ opb) + (beta * c0[:, :n].astype(np.float64) if beta else 0.0)
        what = f"{plan.describe()} alpha {alpha} beta {beta}"
        assert not np.isnan(got[:, :n]).any(), f"{what}: {int(np.isnan(got[:, :n]).sum())} unwritten"
        err = np.linalg.norm(got[:, :n] - ref) / np.linalg.norm(ref)
        assert err <= 1e-5, f"{what}: rel err {err}"
        assert np.array_equal(got[:, n:], c0[:, n:]), f"{what}: C's padding columns written"
