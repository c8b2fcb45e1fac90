"""tools/shape_sweep's library pass on the CPU: the retime rule for disturbed passes and the summary's
skinny-shapes line (issue 20's copy-bandwidth target), on made-up rounds and rows."""
import pytest

from regtile.tools.shape_sweep import DISTURBED_SPREAD, summary_markdown, time_steady, traffic_bytes


def _timer(*passes):
    calls = []

    def timer():
        calls.append(1)
        return passes[len(calls) - 1]
    return timer, calls


STEADY = {"cublas": [100.0, 101.0, 100.5], "regtile": [90.0, 90.5, 90.2]}
SPIKED = {"cublas": [100.0, 170.0, 100.5], "regtile": [90.0, 90.5, 90.2]}


def test_a_steady_pass_is_timed_once():
    timer, calls = _timer(STEADY)
    assert time_steady(timer) == (STEADY, False) and len(calls) == 1


def test_a_disturbed_pass_is_timed_again_and_the_steadier_kept():
    timer, calls = _timer(SPIKED, STEADY)
    assert time_steady(timer) == (STEADY, True) and len(calls) == 2
    worse = {"cublas": [100.0, 200.0, 100.5], "regtile": [90.0, 90.5, 90.2]}
    timer, calls = _timer(SPIKED, worse)
    assert time_steady(timer) == (SPIKED, True) and len(calls) == 2


def test_the_bound_is_a_spread_not_a_difference_between_sides():
    slow = {"cublas": [300.0, 301.0], "regtile": [90.0, 90.0 * (DISTURBED_SPREAD - 0.01)]}
    timer, calls = _timer(slow)
    assert time_steady(timer)[1] is False and len(calls) == 1


def _row(m, n, k, us, group, pct=None, **extra):
    r = {"m": m, "n": n, "k": k, "regtile_us": us, "cublas_us": us, "x_cublas": 1.0, "kernel": "x",
         "group": group, "ok": True, **extra}
    if pct is not None:
        r.update(pct_copy=pct, copy_gbs=3000)
    return r


def test_summary_counts_the_skinny_shapes_at_the_copy_target_and_names_the_others():
    rows = [_row(16, 4096, 4096, 35.0, "skinny", 63.2), _row(8, 8192, 8192, 95.0, "skinny", 93.0),
            _row(1024, 1024, 1024, 50.0, "square", retimed=True)]
    text = summary_markdown(rows)
    assert "at >= 85% of the copy bandwidth (3000 GB/s): 1 of 2; below: 16x4096x4096 63.2%." in text
    assert "Timed again (a pass's rounds spread by more than 10%): 1024x1024x1024." in text
    assert "Skinny" not in summary_markdown(rows[2:]) and "Timed again" not in summary_markdown(rows[:2])


def test_traffic_counts_a_b_and_c_once():
    assert traffic_bytes(16, 4096, 4096) == 4 * (16 * 4096 + 4096 * 4096 + 16 * 4096)


@pytest.mark.parametrize("layout", ["NN", "NT", "TN", "TT"])
def test_the_sweep_labels_each_layout_s_plan_by_its_member(layout):
    """The plan regtile.sgemm builds in a layout (the member with_layout'd, for_operands on the packed operands) is
    labelled by its member, never "tuned" (session 30: every non-NN plan was); a fused pick's stand-in in a transposed
    layout is named, with how it was chosen."""
    from regtile.codegen import heuristic as h
    from regtile.codegen.operand_forms import for_operands
    from regtile.tools.shape_sweep import _gemm_leading_dims, _label, gemv_routed, load_suite
    ta, tb = layout[0] == "T", layout[1] == "T"
    labelled = repacked = 0
    for s in load_suite():
        m, n, k = s["m"], s["n"], s["k"]
        if gemv_routed(m, n, k, ta, tb):
            continue
        ldc = n
        lda, ldb = _gemm_leading_dims(m, n, k, ta, tb)  # a repacking plan's GEMM runs on the padded copies
        repacked += (lda, ldb) != h.leading_dims(m, n, k, ta, tb)[:2]
        cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, ta, tb,
                                       aligned=h.rows_aligned(m, n, k, ta, tb, lda, ldb))
        label = _label(for_operands(cfg, backend, lda, ldb, m, n, ldc, k), backend, m, n, k, "sm_90", 132, ta, tb)
        assert not label.startswith("tuned"), (m, n, k, label)
        labelled += 1
        if (m, n, k) == (32768, 32, 4096):
            stand_in = h.describe_choice(m, n, k, "sm_90", 132, trans_a=ta, trans_b=tb)
            assert label.startswith(stand_in["member"]) and f"({stand_in['by']})" in label, label
    assert labelled >= 92
    assert repacked == (0 if layout == "TN" else 5)  # codegen/repack.py: the suite's shapes with both rows unaligned
    # a fused pick runs itself in every layout (session 33), its lean copies as for_operands gives them for K; but in
    # TN a short-K fused-32x32-k8 pick of a wave of tiles or more, whose stand-in runs TN's ring (session 40)
    for m, n, k in ((196, 1152, 384), (64, 128, 16384), (3136, 64, 576)):
        lda, ldb, ldc = h.leading_dims(m, n, k, ta, tb)
        cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, ta, tb)
        label = _label(for_operands(cfg, backend, lda, ldb, m, n, ldc, k), backend, m, n, k, "sm_90", 132, ta, tb)
        if layout == "TN" and k <= 576:
            assert backend == "ptx" and label == "plain-32x32 (stand-in) +ring of 4", label
        else:
            assert backend == "fusedk" and label.startswith("fused-32x") and "(table)" in label, label


def test_the_label_names_the_ring():
    """TN's small members on the cp.async ring (operand_forms.for_ring, session 37): the label says so, and the same
    member in NN does not."""
    from regtile.codegen import heuristic as h
    from regtile.codegen.operand_forms import for_operands
    from regtile.tools.shape_sweep import _label
    m, n, k = 512, 512, 512
    member = h.choose_member(m, n, k, 132)  # a small 4x4 PTX member (plain-32x64 since session 40, sq-32x32 before)
    assert member in ("plain-32x64", "sq-32x32"), member
    for (ta, tb), ring in {(True, False): True, (False, False): False}.items():
        cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, ta, tb)
        lda, ldb, ldc = h.leading_dims(m, n, k, ta, tb)
        label = _label(for_operands(cfg, backend, lda, ldb, m, n, ldc, k), backend, m, n, k, "sm_90", 132, ta, tb)
        assert label.startswith(member) and ("+ring of 4" in label) == ring, label


def test_the_label_names_the_unaligned_form_and_its_register_cap():
    """A held kernel's label says its cap (session 32: TN's wide-64x128-k16 on unaligned rows, the vector floats held
    at 168 registers, ran 12% faster than the same form unheld, which the label could not tell apart), and names the
    member a layout runs where it demotes the row-major one."""
    from regtile.codegen import heuristic as h
    from regtile.codegen.operand_forms import for_operands
    from regtile.tools.shape_sweep import _gemm_leading_dims, _label
    for (ta, tb), form in {(True, False): "+unaligned vectors", (False, True): "+unaligned rows",
                           (False, False): "+unaligned vectors"}.items():
        # 1531x2039x1021 until session 40's refit, whose neighbours pick sq-128x128 there; 1531x1787x1021 until session
        # 43 repacked NT from m n / (m + n) of 700 (codegen/repack.py; 824 there)
        m, n, k = 1531, 1151, 1021
        cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, ta, tb)
        lda, ldb, ldc = h.leading_dims(m, n, k, ta, tb)
        label = _label(for_operands(cfg, backend, lda, ldb, m, n, ldc, k), backend, m, n, k, "sm_90", 132, ta, tb)
        assert label.startswith("wide-64x128-k16") and form in label, label
        assert ("+168 registers" in label) == (ta or tb), label
    # NT's choice where the row-major one is sq-128x128 (demoted on B^T): labelled by the member that runs, not "tuned"
    # (1919x2929x3939 until session 42 repacked it: codegen/repack.py; this one is repacked since session 43, and the
    # plan's GEMM runs on the copies' leading dimensions, as the sweep labels it)
    m, n, k = 1531, 2039, 1021
    assert h.choose_member(m, n, k, 132, aligned=False) == "sq-128x128"
    cfg, backend = h.choose_kernel(m, n, k, "sm_90", 132, False, True)
    (lda, ldb), ldc = _gemm_leading_dims(m, n, k, False, True), n
    label = _label(for_operands(cfg, backend, lda, ldb, m, n, ldc, k), backend, m, n, k, "sm_90", 132, False, True)
    assert not label.startswith("tuned") and not label.startswith("sq-128x128"), label


def test_the_few_vector_route_depends_on_the_layout():
    """m or n of 2-16 takes the few-vector GEMV in every layout since session 31, within the bounds measured for
    the op the layout gives: op N (NN's and NT's small n over A, NT's and TT's small m over B^T) with 16 vectors only
    on rows shorter than 4096, with 12 on any; op T over A^T (TN's and TT's small n) with 16 up to 64 MB of matrix;
    4 MB takes op N's 2 MB bound, not op T's 32 MB.  m == 1 is a GEMV in every layout."""
    from regtile.tools.shape_sweep import gemv_routed
    layouts = [(ta, tb) for ta in (False, True) for tb in (False, True)]
    assert [gemv_routed(16, 4096, 4096, ta, tb) for ta, tb in layouts] == [True, False, True, False]
    assert all(gemv_routed(12, 4096, 4096, ta, tb) for ta, tb in layouts)
    assert [gemv_routed(4096, 16, 4096, ta, tb) for ta, tb in layouts] == [False, False, True, True]
    assert [gemv_routed(65536, 16, 1024, ta, tb) for ta, tb in layouts] == [True, True, False, False]
    assert not gemv_routed(4, 1024, 1024) and gemv_routed(4, 1024, 1024, False, True)
    assert gemv_routed(1024, 4, 1024) and not gemv_routed(1024, 4, 1024, True, False)
    assert all(gemv_routed(1, 4096, 4096, ta, tb) for ta, tb in layouts)


@pytest.mark.parametrize("layout", ["NN", "NT", "TN", "TT"])
def test_the_bench_leading_dims_packed_and_padded(layout):
    """ShapeBench's operands (tools/shape_sweep.bench_leading_dims): packed as regtile.sgemm sees packed operands
    (heuristic.leading_dims), or padded as a repacking plan's copies (repack.padded)."""
    from regtile.codegen.heuristic import leading_dims
    from regtile.codegen.repack import padded
    from regtile.tools.shape_sweep import bench_leading_dims
    ta, tb = layout[0] == "T", layout[1] == "T"
    m, n, k = 7, 9, 13
    lda, ldb, _ = leading_dims(m, n, k, ta, tb)
    assert bench_leading_dims(m, n, k, ta, tb) == (lda, ldb)
    assert bench_leading_dims(m, n, k, ta, tb, padded_rows=True) == (padded(lda), padded(ldb))
