"""Issue 20's kernel family on the GPU against float64, with the method of the other GPU tests
(tests/gpu/gpu_helpers.check_config: fresh random operands, C and any workspace NaN-poisoned,
every element checked written): every member on ragged shapes - skinny, few tiles (all K
dealt out by stream-K / split over K), edges in M, N and K, with rows aligned or not - then regtile.sgemm with nothing
tuned (the shape heuristic's choice) on shapes of each kind."""
import pytest

from regtile.codegen.heuristic import member_config
from regtile.codegen.presets import FAMILY
from gpu_helpers import check_config, check_host_sgemm

pytestmark = pytest.mark.gpu

# skinny m / skinny n with long ragged K; few tiles; ragged edges in all three; tiny
SHAPES = [(3, 517, 2053), (517, 5, 2053), (33, 65, 4097), (257, 130, 61), (1000, 1001, 333), (1, 1, 1),
          # aligned rows (every size a multiple of 4), ragged against every tile and k-tile: the
          # edge vector path (config.py edge_vector_path) on M, N and K edges
          (300, 260, 1004)]


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("name", list(FAMILY))
def test_member_is_right_on_ragged_shapes(name, m, n, k):
    cfg, backend = member_config(name, m, n, k, 132)  # split-K members: the split for this shape
    check_config(cfg, m, n, k, backend=backend, what=f"{name} (split_k={cfg.split_k})")


@pytest.mark.parametrize("name", ["wide-128x256", "skinny-m16", "skinny-m48", "skinny-n32", "splitk-32x128", "plain-32x32", "fused-128x32",
                                  "sq-128x128-edges"])
def test_member_alpha_beta(name):
    cfg, backend = member_config(name, 129, 257, 1031, 132)
    check_config(cfg, 129, 257, 1031, 0.5, -1.5, backend=backend, what=name)


@pytest.mark.parametrize("m, n, k", [(16, 2048, 2048), (2048, 16, 2048), (700, 35, 2048), (1000, 1000, 1000),
                                     (127, 511, 257), (2049, 2047, 1025), (5, 7, 100003), (48, 2048, 8192)])
def test_sgemm_with_the_heuristics_choice(m, n, k):
    check_host_sgemm(m, k, n, 1.0, 0.5)


# The cp.async ring (config stages 3 / 4, PTX backend; slower where A's copy is transposed: docs/shapes-history.md,
# session 7; TN's 4x4 members run it since session 37, tests/gpu/test_api_gpu.py test_tn_ring_plans) on the members'
# own tiles, stream-K kernels included, on the ragged shapes above.  Checks like those of
# lab/device_runs/session7_ring.sh, which passed 60 of 60 on the H100 at f8e0a22 (its shapes and alpha /
# beta differ a little; this test itself was written after the session's last GPU run).
RING_MEMBERS = ["wide-64x128-k16", "tall-128x64-k16", "wide-128x256-noedge", "sq-64x64", "skinny-m48"]


@pytest.mark.parametrize("stages", [3, 4])
@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("name", RING_MEMBERS)
def test_cp_async_ring_is_right_on_ragged_shapes(name, m, n, k, stages):
    cfg, backend = member_config(name, m, n, k, 132)
    # the loop-head hoist belongs to the two-stage loop (tile_config.hoist_head)
    cfg = cfg.replace(stages=stages, sass_pass=False, hoist_head=False)
    check_config(cfg, m, n, k, 0.5, -1.5, backend=backend, what=f"{name} stages={stages}")


# The ring on unaligned rows (session 36): a k-tile inside K takes a 4-byte cp.async a float, each vector's floats
# (unaligned_vectors) or the float copies (unaligned_rows: consecutive threads on consecutive floats of a line).
# Shapes whose packed rows are not 16-byte aligned (lda = K, ldb = N), interior tiles beside edge tiles.
RING_UNALIGNED = [(1000, 1001, 333), (33, 65, 4097), (517, 5, 2053), (259, 263, 1029)]


@pytest.mark.parametrize("form", ["unaligned_vectors", "unaligned_rows"])
@pytest.mark.parametrize("m, n, k", RING_UNALIGNED)
@pytest.mark.parametrize("name", ["wide-128x256", "sq-64x64", "tall-128x64-k16"])
def test_cp_async_ring_on_unaligned_rows(name, m, n, k, form):
    cfg, backend = member_config(name, m, n, k, 132)
    cfg = cfg.replace(stages=3, sass_pass=False, hoist_head=False, **{form: True})
    check_config(cfg, m, n, k, 0.5, -1.5, backend=backend, what=f"{name} ring {form}")
