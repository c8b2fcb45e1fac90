"""Split-K as a batch (session 44): for shapes whose tiles are fewer than the SMs (8192x128x8192: 32 tiles of
256x128), every tile today runs in stream-K's ranges kernel, which runs about 10% slower a k-tile than the one-pass
kernel (docs/perf-log.md "What is left for the tail").  Here K is cut into S equal ranges run as a batch of S
problems by the member's one-pass kernel (its batched form: blockIdx.z picks the range, the batch strides step the
operands along K and the partials S x M x N apart in a workspace), then summed into C by torch.sum (one reduce
launch; a stand-in for a kernel of the plan's own).  Every variant checked against float64 (C NaN-poisoned), then
timed interleaved with cuBLAS and the plan as committed ("lib"); "MEMBER/S gemm": the batched launch alone.

    python3 -m lab.experiments.batch_split_ab [variants=tall-256x128/4,sq-128x128/2] [LAYOUT:]MxNxK ...
"""
from . import checked_row, member_for_shape, over_shapes, program, take_option

DEFAULT = ["NN:8192x128x8192", "TT:8192x128x8192", "NN:4096x128x4096", "TT:4096x128x4096"]
VARIANTS = {(8192, 128): "tall-256x128/4,sq-128x128/2,sq-128x128/4,wide-64x128-k16/2,tall-128x64-k16/2,tall-256x64/2",
            (4096, 128): "tall-256x128/8,sq-128x128/4,sq-128x128/8,wide-64x128-k16/4,tall-128x64-k16/4,tall-256x64/4"}


def batch_strides(m, n, kk, trans_a, trans_b, lda, ldb):
    """(A, B, C) batch strides in elements: range z of op(A) starts kk columns on (A stored K x M: kk rows), op(B)'s
    kk rows on (B stored N x K: kk columns), its partial m n floats on."""
    return (kk * lda if trans_a else kk, kk if trans_b else kk * ldb, m * n)


def one(torch, bench, m, n, k, variants):
    from regtile.codegen.config import ConfigError
    from regtile.runtime.plans import GemmPlan, kernel_config
    ta, tb, lda, ldb = bench.trans_a, bench.trans_b, bench.lda, bench.ldb
    plans = {"lib": GemmPlan(m, n, k, ta, tb, lda, ldb, n)}
    fns = {"cublas": bench.cublas(), "lib": bench.library(plans["lib"])}
    unchecked = []
    row = {"m": m, "n": n, "k": k}
    for spec in variants:
        name, _, s = spec.partition("/")
        s = int(s)
        kk = k // s
        if k % s or kk % 16:
            print(f"{spec}: K {k} does not cut into {s} ranges of a multiple of 16", flush=True)
            continue
        cfg, backend = member_for_shape(name, m, n, kk, 132, ta, tb, lda, ldb)
        cfg = cfg.replace(stream_k=False, edge_split=False)
        try:
            kernel_config(cfg, ta, tb, True)
        except ConfigError as e:  # the batch offsets' registers over a min_blocks cap: the cap lifted
            print(f"{spec}: {e}; min_blocks=1", flush=True)
            cfg = cfg.replace(min_blocks=1, max_registers=0)
        try:
            plan = GemmPlan(m, n, kk, ta, tb, lda, ldb, n, batch=s, strides=batch_strides(m, n, kk, ta, tb, lda, ldb),
                            config=cfg, backend=backend)
        except Exception as e:  # noqa: BLE001 - a variant that cannot be built is named and left out
            print(f"{spec}: {type(e).__name__}: {e}", flush=True)
            continue
        ws = torch.empty(s, m, n, device="cuda")  # the partials, kept alive by the closures below
        a, b, c = bench.a, bench.b, bench.c

        def gemm(i, plan=plan, ws=ws):
            plan.launch(a[i].data_ptr(), b[i].data_ptr(), ws.data_ptr(), 1.0, 0.0, 0)

        def full(i, gemm=gemm, ws=ws):
            gemm(i)
            torch.sum(ws, 0, out=c[i])
        row.setdefault("plans", {})[spec] = plan.describe()
        fns[spec] = full
        fns[f"{spec} gemm"] = gemm
        unchecked.append(f"{spec} gemm")
    return checked_row(torch, bench, fns, row, unchecked=tuple(unchecked))


def run(argv):
    given = take_option(argv, "variants")

    def per_shape(torch, bench, m, n, k):
        variants = (given or VARIANTS.get((max(m, n), min(m, n)), "tall-256x128/4")).split(",")
        return one(torch, bench, m, n, k, variants)
    over_shapes(argv, DEFAULT, "batch_split_ab.json", per_shape)


main = program(run, "[LAYOUT:]MxNxK ...")

if __name__ == "__main__":
    import sys
    sys.exit(main())
