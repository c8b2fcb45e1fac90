"""Edge split (codegen/edges.py) without a GPU: the parts cover C exactly once, the cost
model splits ragged shapes and leaves aligned ones whole, and the module holds the edge
kernel beside the main one for every arch."""
import numpy as np
import pytest

import ptx_sim
from tiers import tiered
from regtile.codegen.config import ConfigError
from regtile.codegen.edges import EDGE_COST, EDGE_TILE_COST, edge_config, plan_edges
from regtile.codegen.emit import emit
from regtile.codegen.presets import get_preset
from regtile.runtime.compiler import compile_config
from regtile.runtime.sass import function_of

BEST = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True)
EDGE = edge_config()


@pytest.mark.parametrize("m, n", [(4097, 4097), (5000, 5000), (2049, 2049), (4096, 4097), (4097, 4096), (129, 257),
                                  (3000, 3000), (8193, 300), (4095, 4095), (4096, 4096), (127, 511), (8192, 128),
                                  (0, 64), (1, 1)])
def test_parts_cover_every_element_once(m, n):
    plan = plan_edges(m, n, 128, 256, EDGE.bm, EDGE.bn)
    if not plan.split:
        return
    seen = np.zeros((m, n), dtype=np.int32)
    for p in plan.parts:
        assert p.rows > 0 and p.cols > 0
        seen[p.row0:p.row0 + p.rows, p.col0:p.col0 + p.cols] += 1
    assert (seen == 1).all()
    main = plan.parts[0]
    assert main.kernel == "main" and (main.row0, main.col0) == (0, 0)
    assert main.rows % 128 == 0 and main.cols % 256 == 0  # the big kernel sees whole tiles only
    assert all(p.kernel == "edge" for p in plan.parts[1:])


@pytest.mark.parametrize("m, n, split", [
    (4097, 4097, True), (5000, 5000, True), (2049, 2049, True), (4096, 4097, True), (3000, 3000, True),
    (4096, 4096, False),  # no ragged edge
    (127, 511, False), (8192, 128, False),  # no tile-aligned interior in one dimension
    (4095, 4095, False),  # edge tiles 127/128 and 255/256 full: the small tiles would pad as much
])
def test_the_cost_model_splits_ragged_shapes_only(m, n, split):
    plan = plan_edges(m, n, 128, 256, EDGE.bm, EDGE.bn)
    assert plan.split == split, plan.describe()
    assert ("edge split: no" in plan.describe()) != split


def test_cost_model_arithmetic():
    """4097^2: interior 4096^2; the full grid pads to 4224 x 4352; the strips pad to
    64 x 4160 and 4096 x 64 in 64x64 tiles."""
    plan = plan_edges(4097, 4097, 128, 256, 64, 64)
    inner = 4096 * 4096
    assert plan.full_cost == inner + EDGE_TILE_COST * (4224 * 4352 - inner)
    assert plan.split_cost == inner + EDGE_COST * (64 * 4160 + 4096 * 64)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="bm=0"):
        plan_edges(10, 10, 0, 256, 64, 64)
    with pytest.raises(ValueError, match="m=-1"):
        plan_edges(-1, 10, 128, 256, 64, 64)


def test_config_field_and_backends():
    cfg = BEST.replace(edge_split=True)
    assert "edge_split" not in BEST.to_dict() and cfg.to_dict()["edge_split"] is True
    assert "edge split" in cfg.describe()
    with pytest.raises(ConfigError, match="edge_split=True: backend 'cuda' does not emit.*'ptx'"):
        emit(cfg.replace(stream_k=False, sass_pass=False), "cuda")


@pytest.mark.slow  # two 128x256 modules an arch; the fast tier compiles the edge module in the inspect test below
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_90"])
def test_module_holds_the_edge_kernel(arch):
    cfg = BEST.replace(edge_split=True, sass_pass=arch == "sm_90")
    art = compile_config(cfg, arch, backend="ptx")  # refuses a spilling kernel in the module
    src = art.source
    assert src.edge is not None and src.edge.ranges is not None and src.edge.geometry.stream_k
    assert (src.edge.geometry.tile_m, src.edge.geometry.tile_n) == (EDGE.bm, EDGE.bn)
    names = (src.name, src.ranges.name, src.edge.name, src.edge.ranges.name)
    assert len(set(names)) == 4
    assert src.text.count(".version") == 1 and src.text.count(".extern .shared") == 1
    for name in names:
        assert f".entry {name}(" in src.text
        function_of(art.cubin, name)  # in the cubin, disassembles
    # the main kernel is the one it was without the edge kernel beside it
    alone = compile_config(cfg.replace(edge_split=False), arch, backend="ptx")
    assert art.resources.registers == alone.resources.registers


def test_one_pass_main_kernel_with_edges():
    """edge_split without stream-K on the main kernel: the module is the one-pass kernel and
    the edge kernel's two entries."""
    src = emit(BEST.replace(stream_k=False, edge_split=True), "ptx")
    assert src.ranges is None and src.edge is not None and src.text.count(".entry") == 3


def test_inspect_names_the_edge_kernel_and_the_split(capsys):
    from regtile.tools.cli import main
    flags = ["inspect", "--preset", "zorder", "--bn", "256", "--tn", "16", "--min-blocks", "1", "--stream-k",
             "--edge-split", "--backend", "ptx"]
    assert main(flags + ["--m", "4097", "--n", "4097", "--k", "64"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("edges "))
    assert edge_config().bm == 64 and "64x64 stream-K" in line
    assert "main 4096x4096 at (0, 0), edge 1x4097 at (4096, 0), edge 4096x1 at (0, 4096)" in line
    assert main(flags + ["--m", "4096", "--n", "4096", "--k", "64"]) == 0
    assert "edge split: no" in capsys.readouterr().out


class _FakeKernel:
    """What runtime/sgemm_launch.py reads of a LoadedKernel to plan (no GPU)."""

    def __init__(self, source, blocks_per_sm=1):
        self.source = source
        self.blocks_per_sm = blocks_per_sm
        self.reduce = None
        self.ranges = None if source.ranges is None else _FakeKernel(source.ranges, blocks_per_sm)
        self.edge = None if getattr(source, "edge", None) is None else _FakeKernel(source.edge, 4)


def test_launch_parts_and_workspace(monkeypatch):
    """The launch plan without a GPU: parts in order (interior by the main kernel, strips by
    the edge kernel), and a workspace that fits the largest part's stream-K partials."""
    from types import SimpleNamespace
    from regtile.runtime import sgemm_launch
    monkeypatch.setattr(sgemm_launch.driver, "device", lambda: SimpleNamespace(sm_count=132))
    kernel = _FakeKernel(emit(BEST.replace(edge_split=True), "ptx"))
    parts = sgemm_launch._parts(kernel, 4097, 4097)
    assert [(p[0] is kernel, p[0] is kernel.edge) for p in parts] == [(True, False), (False, True), (False, True)]
    assert [p[1:] for p in parts] == [(0, 0, 4096, 4096), (4096, 0, 1, 4097), (0, 4096, 4096, 1)]
    ws = sgemm_launch.workspace_bytes(kernel, 4097, 4097, 4097)
    inner = sgemm_launch.stream_k_plan(kernel, 4096, 4096, 4097).workspace_bytes
    strip = sgemm_launch.stream_k_plan(kernel.edge, 1, 4097, 4097).workspace_bytes
    assert inner > 0 and ws == max(inner, strip, sgemm_launch.stream_k_plan(kernel.edge, 4096, 1, 4097).workspace_bytes)
    assert sgemm_launch._parts(kernel, 4096, 4096) == [(kernel, 0, 0, 4096, 4096)]  # nothing ragged: one part
    assert sgemm_launch.workspace_bytes(kernel, 4096, 4096, 4096) == \
        sgemm_launch.stream_k_plan(kernel, 4096, 4096, 4096).workspace_bytes


def test_tune_offers_the_edge_split_on_ragged_shapes():
    from regtile.tools.tune import candidate_configs, edge_split_options
    wide = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1)
    assert edge_split_options(wide, 4097, 4097) == (False, True)
    assert edge_split_options(wide, 4096, 4096) == (False,) and edge_split_options(wide, 4095, 4095) == (False,)
    ragged = candidate_configs(3000, 3000, 3000, 132, split_k=False, stream_k=True)
    assert any(c.edge_split for c in ragged)
    assert {c.replace(edge_split=False) for c in ragged} == {c for c in ragged if not c.edge_split}
    assert not any(c.edge_split for c in candidate_configs(4096, 4096, 4096, 132, split_k=False, stream_k=True))


def test_describe_plans_names_the_split_and_the_interiors_stream_k(monkeypatch):
    from types import SimpleNamespace
    from regtile.runtime import sgemm_launch
    monkeypatch.setattr(sgemm_launch.driver, "device", lambda: SimpleNamespace(sm_count=132))
    kernel = _FakeKernel(emit(BEST.replace(edge_split=True), "ptx"))
    plans = sgemm_launch.describe_plans(kernel, 4097, 4097, 4097)
    assert plans["edge_split"].startswith("edge split: main 4096x4096")
    assert plans["stream_k"] == sgemm_launch.stream_k_plan(kernel, 4096, 4096, 4097).describe()  # the interior's
    assert sgemm_launch.describe_plans(_FakeKernel(emit(BEST.replace(stream_k=False), "ptx")), 64, 64, 64) == {}


# ---- the edge vector path (config.py edge_vector_path) ------------------------------------
def _writes_behind_vector_loads(text: str) -> int:
    """Instructions that write a register of a predicated float4 operand load (ld.global.nc) before the code
    leaves that copy block (its next branch): each makes ptxas wait for the load in flight."""
    import re
    count, pending = 0, set()
    for line in text.splitlines():
        body = line.split("//")[0].strip()
        if not body or body.endswith(":") or "bra" in body.split()[:2] or (body.startswith("@") and " bra" in body):
            pending = set()
            continue
        m = re.match(r"(@!?%\w+\s+)?([\w.]+)\s+(.*);", body)
        if not m:
            continue
        op, args = m.group(2), m.group(3)
        if op.startswith("ld.global.nc") and op.endswith(".v4.f32") and m.group(1):  # operand copies
            pending = set(re.findall(r"%\w+", args.split("}")[0]))
            continue
        dst = re.findall(r"%\w+", args.split(",")[0])
        if op.startswith(("st.", "bar")) or not dst:
            continue
        if dst[0] in pending:
            count += 1
    return count


def test_edge_vector_path_writes_nothing_behind_a_vector_load():
    from regtile.codegen.emit_ptx import emit_sgemm_ptx
    from regtile.codegen.presets import get_member
    cfg = get_member("sq-128x128").config.replace(stream_k=False, sass_pass=False)
    assert cfg.edge_vector_path  # the family's PTX members take it
    old = emit_sgemm_ptx(cfg.replace(edge_vector_path=False), "sm_90").text
    new = emit_sgemm_ptx(cfg, "sm_90").text
    assert _writes_behind_vector_loads(old) > 0  # the hazard the flag removes
    assert _writes_behind_vector_loads(new) == 0
    assert "wholly inside or outside" in new and "wholly inside or outside" not in old
    # the interior tiles' unchecked float4 loads are the same
    assert old.count("float4, unchecked") == new.count("float4, unchecked")


# ---- the clamped edge sources (config.py edge_clamp) on the CPU PTX interpreter --------------
def _clamp_sim(cfg, m, n, k, **kw):
    """C against float64 (every element written: C starts NaN) and the instructions executed;
    the interpreter's buffers hold exactly the matrices, so a clamped source that left them fails."""
    from regtile.codegen.emit_ptx import emit_sgemm_ptx
    c, ref, _, executed = ptx_sim.run_sgemm(emit_sgemm_ptx(cfg), m, n, k, 0.75, 0.0, **kw)
    got = c[:, :n]
    assert not np.isnan(got).any(), f"{int(np.isnan(got).sum())} elements of C unwritten"
    assert np.abs(got - ref).max() / np.abs(ref).max() < 1e-5
    return executed


CLAMP_TILE = get_preset("zorder").config.replace(bm=32, bn=32, tm=4, tn=4, warps=None, split_tile=False,
                                                 stream_k=False, edge_clamp=True)
CLAMP_LAYOUTS = {"NN": {}, "TN": dict(trans_a=True), "NT": dict(trans_b=True), "TT": dict(trans_a=True, trans_b=True)}
CLAMP_CASES = [  # m, n, k, lda / ldb (None: packed), edge_vector_path, unaligned_vectors
    (45, 44, 24, None, None, False, False),  # M and N edges, aligned rows, K a whole number of k-tiles
    (45, 42, 20, None, 44, True, False),  # N not a multiple of 4 on aligned rows (ldb 44): clamped to (N - 1) & ~3
    (33, 37, 17, None, None, False, False),  # rows not aligned (lda 17, ldb 37): every tile on the checked path
    (70, 75, 71, 73, 79, False, True),  # rows not aligned: k-tiles inside K load the vectors' floats unchecked
]


@pytest.mark.parametrize("layout, case", tiered(
    [(lay, c) for lay in CLAMP_LAYOUTS for c in CLAMP_CASES], fast={("NN", CLAMP_CASES[0]), ("TN", CLAMP_CASES[1])}),
    ids=lambda v: f"{v[0]}x{v[1]}x{v[2]}" if isinstance(v, tuple) else v)
def test_edge_clamp_is_right_on_the_interpreter(layout, case):
    m, n, k, lda, ldb, evp, uv = case
    lay = CLAMP_LAYOUTS[layout]
    if lay.get("trans_a"):
        lda = None  # A^T's rows run along M
    if lay.get("trans_b"):
        ldb = None  # B^T's rows run along K: the N edge is a line edge there
    _clamp_sim(CLAMP_TILE.replace(edge_vector_path=evp, unaligned_vectors=uv, **lay), m, n, k, lda=lda, ldb=ldb, **lay)


def test_unaligned_vectors_skip_the_checks_inside_k():
    """Unaligned rows (lda 33, ldb 65) and K a whole number of k-tiles: with unaligned_vectors every
    tile loads its vectors' floats unchecked, and runs fewer instructions than on the checked path."""
    runs = {uv: _clamp_sim(CLAMP_TILE.replace(unaligned_vectors=uv), 64, 64, 32, lda=33, ldb=65) for uv in (False, True)}
    assert runs[True] < runs[False]


@pytest.mark.parametrize("layout, m_edge", tiered([("NN", 33), ("TT", 36)], fast={("NN", 33)}))
def test_edge_clamp_runs_edge_tiles_like_interior_ones(layout, m_edge):
    """With the clamp a second tile row with a few valid rows (M = 33 in 32-row tiles; 36 with
    A^T, whose vectors run along M) runs the interior's copies: no more instructions than a whole
    second tile row (M = 64; the epilogue stores less); without it the same edge tile takes the
    checked copies on each of its 8 k-tiles and runs more."""
    lay = CLAMP_LAYOUTS[layout]
    clamped = {m: _clamp_sim(CLAMP_TILE.replace(**lay), m, 32, 128, **lay) for m in (m_edge, 64)}
    checked = {m: _clamp_sim(CLAMP_TILE.replace(edge_clamp=False, **lay), m, 32, 128, **lay) for m in (m_edge, 64)}
    assert clamped[m_edge] <= clamped[64]
    assert checked[m_edge] > checked[64]


# A vector bound that is not a multiple of 4 (B's N; A^T's M): the tile across it reads up to 3 floats past the
# bound in each line, never stored, and inside the operand's memory on every line but the last - so the
# interpreter's buffers, which end at the matrices' last element, fail any k-tile that read the last line so.
STRADDLE_FORMS = {"float4": {}, "floats": dict(unaligned_vectors=True), "ring": dict(stages=3),
                  "ring_floats": dict(stages=3, unaligned_vectors=True)}
STRADDLE_CASES = [  # layout, (m, n), the vector bound's ld (aligned, or not), the copies' form (STRADDLE_FORMS)
    ("NN", (40, 45), 48, "float4"),  # B's N = 45 on 16-byte aligned rows
    ("NN", (40, 42), 44, "float4"),  # ld is the last vector's end: the last line's read would leave B
    ("NN", (40, 43), 43, "floats"),  # B packed, rows not aligned: the vectors' floats
    ("TN", (45, 40), 48, "float4"),  # A^T's M
    ("TT", (42, 40), 42, "floats"),
    ("NN", (40, 2), 2, "floats"),  # ld < 4 (every k-tile checked; the guard's own test is below)
    ("NN", (40, 42), 44, "ring"),  # the cp.async ring (stages 3): its 16-byte copies
    ("NN", (40, 43), 43, "ring_floats"),  # the ring on unaligned rows: a 4-byte copy a float, unchecked
    ("TT", (42, 40), 42, "ring_floats"),
]


# The fast tier keeps the float copies' form, which TN's ring plans run (operand_forms.for_ring); each vector's floats on
# the ring run in no plan (the slow tier has them in every layout).
RING_UNALIGNED_CASES = tiered([(lay, form) for lay in CLAMP_LAYOUTS for form in ("unaligned_rows", "unaligned_vectors")],
                              fast={("NT", "unaligned_rows")})


@pytest.mark.parametrize("layout, form", RING_UNALIGNED_CASES)
def test_cp_async_ring_takes_its_unaligned_paths(layout, form):
    """The ring (stages 3) on unaligned rows: k-tiles inside K copy a float by a 4-byte cp.async, the plan's float
    copies (unaligned_rows) or each vector's floats (unaligned_vectors), unchecked (edge tiles in M and N, a partial
    last k-tile where K runs along a row).  C against float64, every element written, no read outside the operands
    (packed, M = 41, N = 37: a float path that lost its guards on the M / N edge reads past the last line; on TN, K =
    40 makes that line's k-tile an unchecked one), and fewer instructions executed than the same ring without the
    option, whose every k-tile takes the checked copies (session 36: a float path emitted into an unreachable block
    fell through to those, right but slow)."""
    from regtile.codegen.heuristic import leading_dims
    lay = CLAMP_LAYOUTS[layout]
    m, n, k = 41, 37, 40 if layout == "TN" else 45
    lda, ldb, _ = leading_dims(m, n, k, lay.get("trans_a", False), lay.get("trans_b", False))
    kw = dict(lda=lda, ldb=ldb, **lay)
    ring = CLAMP_TILE.replace(stages=3, **lay)
    taken = _clamp_sim(ring.replace(**{form: True}), m, n, k, **kw)
    checked = _clamp_sim(ring, m, n, k, **kw)
    assert taken < 0.95 * checked  # 0.3% fewer with the float copies' path unreachable


def _straddle_sim(layout, m, n, k, ld, form):
    lay = CLAMP_LAYOUTS[layout]
    kw = dict(lda=ld) if lay.get("trans_a") else dict(ldb=ld)
    return _clamp_sim(CLAMP_TILE.replace(**STRADDLE_FORMS[form], **lay), m, n, k, **kw, **lay)


@pytest.mark.parametrize("layout, mn, ld, form", tiered(STRADDLE_CASES, fast={STRADDLE_CASES[1], STRADDLE_CASES[5],
                                                                               STRADDLE_CASES[6]}),
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_a_tile_across_a_ragged_vector_bound_stays_in_memory(layout, mn, ld, form):
    """K a whole number of k-tiles, so the last k-tile is inside K and only k_test's loose test (before line
    K - 1) keeps it off the interior paths; C against float64, every element written, no read past the operand."""
    m, n = mn
    _straddle_sim(layout, m, n, 64, ld, form)


@pytest.mark.parametrize("layout, mn, ld", tiered([("NN", (40, 1), 1), ("TN", (1, 40), 2)], fast={("NN", (40, 1), 1)}),
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_ld_below_4_keeps_a_tile_across_the_bound_checked(layout, mn, ld):
    """ld < 4 (a bound of 1 with ld 1 or 2): the next line can start within the 3 floats a vector read past the bound
    takes, so such a tile keeps the checked copies (clamp_setup's spaced).  K = 4 BK + 1: the k-tile before the
    partial last one ends before line K - 1, where the loose test alone would read past the operand's end."""
    m, n = mn
    _straddle_sim(layout, m, n, 4 * CLAMP_TILE.bk + 1, ld, "floats")


EXTRA_CASES = [("NN", (32, (33, 36)), (36, 36), "float4"), ("NN", (32, (33, 36)), (37, 37), "floats"),
               ("TN", ((33, 36), 32), (36, 36), "float4")]


@pytest.mark.parametrize("layout, mn, lds, form", tiered(EXTRA_CASES, fast={EXTRA_CASES[0]}),
                         ids=lambda v: "-".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_a_tile_across_a_ragged_vector_bound_takes_the_interior_paths(layout, mn, lds, form):
    """The tile across N = 33 (A^T: M = 33) runs the checked copies on its last k-tile alone: what it executes
    beyond the same grid on N = 36 (a multiple of 4: clamped float4s, or floats) does not grow with K.  Before
    (session 27) it took them on every k-tile: 4-13% of a kernel's time on the H200."""
    def extra(k):
        runs = []
        for ragged, ld in zip((0, 1), lds):
            m, n = (mn[0][ragged], mn[1]) if isinstance(mn[0], tuple) else (mn[0], mn[1][ragged])
            runs.append(_straddle_sim(layout, m, n, k, ld, form))
        return runs[0] - runs[1]
    assert extra(128) == extra(64)


def test_edge_clamp_is_ptx_only_and_needs_the_tile_guard():
    with pytest.raises(ConfigError, match="edge_clamp=True: backend 'cuda' does not emit"):
        emit(CLAMP_TILE, "cuda")
    with pytest.raises(ConfigError, match="edge_clamp: .*vec=1"):
        get_preset("naive").config.replace(edge_clamp=True)
    with pytest.raises(ConfigError, match="unaligned_vectors: .*edge_clamp=True"):
        CLAMP_TILE.replace(edge_clamp=False, unaligned_vectors=True)


# TN's 4x4 members as regtile.sgemm runs them where K is long (operand_forms.for_ring: the cp.async ring of four
# stages, session 37), on the interpreter: the form comes from for_operands on the case's leading dimensions and a
# shape the rule takes (4096^2, K of 4096); the interpreter then runs it on a small one, K past the ring's wrap and a
# partial last k-tile.  Without stream-K: the interpreter sizes the grid from M x N (the K-range kernel is the GPU's,
# tests/gpu/test_api_gpu.py test_tn_ring_plans).
TN_RING_CASES = [  # member, m, n, lda, ldb, ldc (aligned rows: 16-byte cp.asyncs; unaligned: the float copies, C staged)
    ("sq-32x32", 44, 40, 48, 40, 40),
    ("wide-32x64-k32", 41, 37, 41, 37, 37),
    ("tall-64x32", 70, 36, 72, 36, 36),
]


@pytest.mark.parametrize("name, m, n, lda, ldb, ldc", tiered(TN_RING_CASES, fast={TN_RING_CASES[0]}))
def test_tn_ring_form_is_right_on_the_interpreter(name, m, n, lda, ldb, ldc):
    from regtile.codegen.layouts import with_layout
    from regtile.codegen.operand_forms import RING_TN_STAGES, for_operands
    from regtile.codegen.presets import FAMILY
    member = with_layout(FAMILY[name].config.replace(stream_k=False), True, False)
    big = 4096
    cfg = for_operands(member, "ptx", lda, ldb, big, big, ldc, big)
    assert cfg.stages == RING_TN_STAGES and cfg.unaligned_rows == (lda % 4 != 0) and cfg.c_staged == (ldc % 4 != 0)
    k = 6 * cfg.bk + 5  # six whole k-tiles (the four stages wrap) and a partial seventh
    _clamp_sim(cfg, m, n, k, lda=lda, ldb=ldb, ldc=ldc, trans_a=True)
