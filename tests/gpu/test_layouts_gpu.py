"""Operand layouts (trans_a, trans_b) and strided batches on the GPU against float64: every layout
x backend x {plain, stream-K, edge split}, and batched (broadcast strides included), on ragged
sizes, fresh random data, C NaN-poisoned (beta == 0) or random (beta != 0), padding columns of C
checked untouched.  Launched directly: driver.load(compile_config(cfg, arch, backend)) and
runtime/sgemm_launch.SgemmLaunch (edge parts offset by layout), or kernel.launch for batches."""
import numpy as np
import pytest

from regtile.codegen.presets import get_preset
from regtile.runtime import driver
from regtile.runtime.compiler import compile_config
from regtile.runtime.sgemm_launch import SgemmLaunch, edge_plan, workspace_bytes

pytestmark = pytest.mark.gpu

LAYOUTS = [(False, False), (False, True), (True, False), (True, True)]
IDS = ["NN", "NT", "TN", "TT"]
# min_blocks=1: at the preset's 2 blocks/SM (128 registers) validation refuses B^T (config.py
# register_estimate: ptxas spilled the CUDA C NT kernel there)
ZORDER = get_preset("zorder").config.replace(min_blocks=1)
DEFAULT_90 = ZORDER.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True, edge_split=True)
KINDS = {  # (config, backend)
    "cuda-plain": (ZORDER, "cuda"),
    "cuda-splitk": (ZORDER.replace(split_k=3), "cuda"),
    "cuda-naive": (get_preset("naive").config, "cuda"),
    "ptx-plain": (ZORDER, "ptx"),
    "ptx-tile1d": (get_preset("tile1d").config, "ptx"),
    "ptx-streamk": (ZORDER.replace(stream_k=True, min_blocks=1), "ptx"),
    "ptx-edge": (DEFAULT_90, "ptx"),
}
_loaded = {}


def _kernel(cfg, backend):
    key = (cfg, backend)
    if key not in _loaded:
        _loaded[key] = driver.load(compile_config(cfg, driver.device().arch, backend=backend))
    return _loaded[key]


def _operands(rng, m, n, k, ta, tb, pad, batch=1, strides=None):
    """Host A, B (stored as the layouts say, leading dimensions padded), their leading
    dimensions and op(A), op(B) in float64 per batch."""
    a_rows, a_cols = (k, m) if ta else (m, k)
    b_rows, b_cols = (n, k) if tb else (k, n)
    lda, ldb = a_cols + pad, b_cols + pad
    sa, sb = strides or (a_rows * lda, b_rows * ldb)
    a = rng.standard_normal((batch - 1) * sa + a_rows * lda, dtype=np.float32)
    b = rng.standard_normal((batch - 1) * sb + b_rows * ldb, dtype=np.float32)
    ops = []
    for z in range(batch):
        az = a[z * sa: z * sa + a_rows * lda].reshape(a_rows, lda)[:, :a_cols].astype(np.float64)
        bz = b[z * sb: z * sb + b_rows * ldb].reshape(b_rows, ldb)[:, :b_cols].astype(np.float64)
        ops.append((az.T if ta else az, bz.T if tb else bz))
    return a, b, lda, ldb, ops


def _check(got, ref, c0, n, what):
    assert not np.isnan(got[..., :n]).any(), f"{what}: {int(np.isnan(got[..., :n]).sum())} elements unwritten"
    err = np.linalg.norm(got[..., :n] - ref) / np.linalg.norm(ref)
    assert err <= 1e-5, f"{what}: rel err {err}"
    assert np.array_equal(got[..., n:], c0[..., n:], equal_nan=True), f"{what}: C's padding columns written"


def run_layout(cfg, backend, m, n, k, ta, tb, alpha=1.0, beta=0.0, pad=0):
    kernel = _kernel(cfg.replace(trans_a=ta, trans_b=tb), backend)
    rng = np.random.default_rng()
    a, b, lda, ldb, ((opa, opb),) = _operands(rng, m, n, k, ta, tb, pad)
    ldc = n + pad
    c0 = rng.standard_normal((m, ldc), dtype=np.float32) if beta else np.full((m, ldc), np.nan, np.float32)
    da, db, dc = driver.to_device(a), driver.to_device(b), driver.to_device(c0)
    ws_bytes = workspace_bytes(kernel, m, n, k)
    ws = driver.DeviceBuffer(ws_bytes) if ws_bytes else None
    stream = driver.Stream()
    try:
        launch = SgemmLaunch(kernel, m, n, k, alpha, da.ptr, lda, db.ptr, ldb, beta, dc.ptr, ldc,
                             ws.ptr if ws else 0)
        launch(int(stream))
        stream.synchronize()
        got = np.empty((m, ldc), np.float32)
        dc.download(got)
    finally:
        for buf in (da, db, dc, ws):
            if buf is not None:
                buf.close()
    ref = alpha * (opa @ opb) + (beta * c0[:, :n].astype(np.float64) if beta else 0.0)
    _check(got, ref, c0, n, f"{kernel.source.name} ta={ta} tb={tb} {m}x{n}x{k} pad {pad} alpha {alpha} beta {beta}")
    return kernel


SHAPES = [(129, 257, 64, 0), (300, 200, 37, 3), (1000, 1000, 200, 1)]


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("m,n,k,pad", SHAPES, ids=lambda x: str(x))
def test_layouts(kind, ta, tb, m, n, k, pad):
    cfg, backend = KINDS[kind]
    run_layout(cfg, backend, m, n, k, ta, tb, 0.5 if pad else 1.0, -1.5 if pad == 3 else 0.0, pad)


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
def test_edge_split_parts_follow_the_layouts(ta, tb):
    """2049^3 splits (interior + bottom + right strips): the parts' A and B offsets depend on
    the layout (runtime/sgemm_launch.py, codegen/edges.part_offsets)."""
    kernel = run_layout(DEFAULT_90, "ptx", 2049, 2049, 33, ta, tb, 1.0, 0.5, 0)
    assert edge_plan(kernel, 2049, 2049).split
    assert kernel.source.trans_a == ta and kernel.edge.source.trans_a == ta and kernel.edge.source.trans_b == tb


def test_large_aligned_whole_tiles():
    """The unchecked float4 paths of every layout: whole tiles, aligned leading dimensions."""
    for ta, tb in LAYOUTS:
        run_layout(DEFAULT_90, "ptx", 1024, 2048, 512, ta, tb)


# ---- strided batch ------------------------------------------------------------------------
def _pack(kernel, args):
    """kernelParams for the batched signature (stride params are long long)."""
    storage = []
    for (_, ctype), v in zip(kernel.source.params, args):
        dt = np.uint64 if "*" in ctype else {"int": np.int32, "float": np.float32, "long long": np.int64}[ctype]
        storage.append(np.array([int(v) if dt != np.float32 else v], dtype=dt))
    return np.array([s.ctypes.data for s in storage], dtype=np.uint64), storage


def run_batched(cfg, backend, batch, m, n, k, ta, tb, broadcast=None, alpha=1.0, beta=0.0, pad=0):
    kernel = _kernel(cfg.replace(trans_a=ta, trans_b=tb, batched=True), backend)
    assert [p for p, _ in kernel.source.params][11:14] == ["stride_a", "stride_b", "stride_c"]
    rng = np.random.default_rng()
    a_size = ((k, m) if ta else (m, k))[0] * (((m if ta else k)) + pad)
    b_size = ((n, k) if tb else (k, n))[0] * (((k if tb else n)) + pad)
    sa = 0 if broadcast == "A" else a_size + 4
    sb = 0 if broadcast == "B" else b_size
    a, b, lda, ldb, ops = _operands(rng, m, n, k, ta, tb, pad, batch, (sa, sb))
    ldc = n + pad
    sc = m * ldc + 8
    c0 = (rng.standard_normal((batch - 1) * sc + m * ldc, dtype=np.float32) if beta
          else np.full((batch - 1) * sc + m * ldc, np.nan, np.float32))
    da, db, dc = driver.to_device(a), driver.to_device(b), driver.to_device(c0)
    stream = driver.Stream()
    try:
        args = (m, n, k, alpha, da.ptr, lda, db.ptr, ldb, beta, dc.ptr, ldc, sa, sb, sc)
        kernel.launch(kernel.source.geometry.grid(m, n, batch), (), int(stream), packed=_pack(kernel, args))
        stream.synchronize()
        got = np.empty_like(c0)
        dc.download(got)
    finally:
        for buf in (da, db, dc):
            buf.close()
    for z, (opa, opb) in enumerate(ops):
        cz, c0z = got[z * sc: z * sc + m * ldc].reshape(m, ldc), c0[z * sc: z * sc + m * ldc].reshape(m, ldc)
        ref = alpha * (opa @ opb) + (beta * c0z[:, :n].astype(np.float64) if beta else 0.0)
        _check(cz, ref, c0z, n, f"batched {z}/{batch} {backend} ta={ta} tb={tb} {m}x{n}x{k} bcast {broadcast}")
    if not beta:  # the gaps between the batch's C matrices stay untouched
        gaps = np.concatenate([got[z * sc + m * ldc: (z + 1) * sc] for z in range(batch - 1)])
        assert np.isnan(gaps).all()


@pytest.mark.parametrize("ta,tb", LAYOUTS, ids=IDS)
@pytest.mark.parametrize("backend", ["cuda", "ptx"])
@pytest.mark.parametrize("broadcast", [None, "A", "B"])
def test_batched(backend, ta, tb, broadcast):
    run_batched(ZORDER, backend, 5, 130, 70, 33, ta, tb, broadcast, 0.5, 0.25 if broadcast else 0.0, pad=1)


@pytest.mark.parametrize("backend", ["cuda", "ptx"])
def test_batched_small_tiles_and_naive(backend):
    small = ZORDER.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1)
    run_batched(small, backend, 7, 128, 128, 128, True, False)
    run_batched(get_preset("naive").config, backend, 3, 33, 65, 17, False, True, "B")
