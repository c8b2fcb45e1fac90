"""Batches of m == 1 / n == 1 GEMMs as one batched GEMV launch, against torch.bmm (issue 20, session 46).

Decode attention a head is a batch of GEMVs: q K^T (NT, m = 1: op N over K's rows, a dot product of head-dim floats
a row) and p V (NN, m = 1: op T over V, x^T V a column strip a block).  Session 45 ran them on skinny-m16's GEMM tile
(15 of 16 rows padding): p V 0.75x torch.bmm, q K^T 0.98x.  This times, on decode-like batches, regtile.sgemm itself
("lib": runtime/plans.GemmPlan's batched GEMV route where codegen/batch_choice.batched_gemv takes the shape), the
GEMM member of before ("gemm": batch_choice.choose_batched's skinny-m16, split over K where it splits), and every
candidate batched GEMV config of CANDIDATES (named by their describe()), each through runtime/gemv.gemv_route with
that config.

Method (lab/experiments/batched_sweep.py's BatchedBench): rotating sets of random normal operands spanning twice the
L2, each variant checked once against torch's float64 bmm with C NaN-poisoned, then all timed interleaved with
torch.bmm (TF32 off), the median of rounds of back-to-back launches.  Also the bandwidth each variant reaches
(the batch's matrix, vectors and outputs over the time) against the device's copy bandwidth.

  python3 -m lab.experiments.batched_gemv_ab [shapes=narrow|check] [budget=SECONDS]    (GPU) writes
      batched_gemv_ab.json under $OUT (shapes=narrow: NARROW, p V on head dims no 128-column strip tiles; check: CHECK)
"""
import os
import sys
import time

from lab.experiments import program, take_option, write_out

# (layout, batch, m, n, k): decode attention (BERT/GPT-2/LLaMA-like heads of 64 and 128, contexts 256-4096), and
# batches of n == 1 GEMMs
SHAPES = (
    ("NT", 256, 1, 1024, 128), ("NN", 256, 1, 128, 1024),
    ("NT", 512, 1, 512, 128), ("NN", 512, 1, 128, 512),
    ("NT", 384, 1, 2048, 64), ("NN", 384, 1, 64, 2048),
    ("NT", 64, 1, 4096, 128), ("NN", 64, 1, 128, 4096),
    ("NT", 1024, 1, 256, 64), ("NN", 1024, 1, 64, 256),
    ("NT", 32, 1, 128, 128), ("NN", 32, 1, 128, 128),
    ("NN", 32, 4096, 1, 4096), ("TN", 16, 4096, 1, 1024),
)
# shapes=narrow (session 46, after the third batched set's NN 256 x 1x80x1500 ran 0.76x torch.bmm on one 128-column
# strip of scalar loads): p V with head dims that no 128-column strip tiles
NARROW = (("NN", 256, 1, 80, 1500), ("NN", 512, 1, 80, 512), ("NN", 64, 1, 96, 2048), ("NN", 128, 1, 112, 1024),
          ("NN", 128, 1, 48, 1024), ("NT", 256, 1, 1500, 80))
# shapes=check (session 46, after the rule's unroll change was fitted on SHAPES and NARROW): p V batches none of the
# rule's fitting saw
CHECK = (("NN", 128, 1, 128, 2048), ("NN", 96, 1, 64, 1024), ("NN", 48, 1, 128, 8192), ("NN", 2048, 1, 64, 128),
         ("NN", 200, 1, 80, 777), ("NN", 16, 1, 256, 8192), ("TN", 24, 2048, 1, 512), ("NN", 40, 1, 96, 4096))


def candidates(op: str, cols: int):
    """The batched GEMV configs tried on a matrix of `cols` columns (op N: row length; op T: strip width)."""
    from regtile.codegen.sgemv_config import SgemvConfig, SgemvTConfig, config_for_width
    if op == "N":
        base = config_for_width(cols)
        out = [base]
        if cols == 128:
            out += [SgemvConfig(1, 4, 4, 1, row_groups=8), SgemvConfig(1, 4, 8, 1, row_groups=2),
                    SgemvConfig(2, 4, 4, 2, row_groups=2), SgemvConfig(4, 4, 4, 4, row_groups=1)]
        elif cols == 64:
            out += [SgemvConfig(2, 4, 4, 1, row_groups=4), SgemvConfig(4, 4, 4, 2, row_groups=2),
                    SgemvConfig(2, 4, 8, 1, row_groups=1)]
        elif cols >= 1024:
            out += [base.replace(unroll=8), base.replace(warps_per_block=8)]
        return [c.replace(batched=True) for c in out]
    if cols == 128:
        out = [SgemvTConfig(32, 8, 4, 8), SgemvTConfig(32, 8, 4, 4), SgemvTConfig(32, 16, 4, 4),
               SgemvTConfig(16, 16, 4, 8, warp_reduce=True), SgemvTConfig(8, 32, 4, 8, warp_reduce=True),
               SgemvTConfig(8, 32, 4, 4, warp_reduce=True), SgemvTConfig(8, 64, 4, 8, warp_reduce=True),
               SgemvTConfig(4, 64, 4, 4, warp_reduce=True)]
    elif cols == 64:
        out = [SgemvTConfig(16, 16, 4, 8), SgemvTConfig(16, 16, 4, 4), SgemvTConfig(16, 16, 4, 8, warp_reduce=True),
               SgemvTConfig(16, 16, 4, 4, warp_reduce=True),
               SgemvTConfig(8, 32, 4, 8, warp_reduce=True), SgemvTConfig(4, 64, 4, 4, warp_reduce=True),
               SgemvTConfig(8, 32, 4, 4, warp_reduce=True)]
    elif cols in (48, 80, 96, 112):
        out = [SgemvTConfig(32, 8, 4, 8), SgemvTConfig(16, 16, 4, 8, warp_reduce=True),
               SgemvTConfig(8, 32, 4, 8, warp_reduce=True), SgemvTConfig(4, 64, 4, 8, warp_reduce=True),
               SgemvTConfig(4, 64, 4, 4, warp_reduce=True)]
    elif cols > 128:
        out = [SgemvTConfig(32, 8, 4, 8), SgemvTConfig(32, 8, 4, 4), SgemvTConfig(32, 16, 4, 4),
               SgemvTConfig(16, 16, 4, 8, warp_reduce=True), SgemvTConfig(16, 16, 4, 4, warp_reduce=True),
               SgemvTConfig(8, 32, 4, 8, warp_reduce=True), SgemvTConfig(8, 32, 4, 4, warp_reduce=True)]
    else:
        out = [SgemvTConfig(1, 256, 1, 8), SgemvTConfig(1, 256, 1, 4)]
    return [c.replace(batched=True) for c in out]


def _entry(layout, batch, m, n, k) -> dict:
    return {"layout": layout, "batch": batch, "m": m, "n": n, "k": k}


def run(argv) -> None:
    budget = float(take_option(argv, "budget") or 1e9)
    shapes = {"narrow": NARROW, "check": CHECK}.get(take_option(argv, "shapes"), SHAPES)
    import torch
    from lab.experiments.batched_sweep import BatchedBench, check_and_time
    from regtile.codegen.batch_choice import batched_gemv, choose_batched
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_many
    from regtile.runtime.gemv import gemv_matrix, gemv_route
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import copy_gbs
    torch.backends.cuda.matmul.allow_tf32 = False
    t0 = time.time()
    dev = driver.device()
    copy = copy_gbs(torch)
    print(f"copy bandwidth {copy:.0f} GB/s", flush=True)
    plans_meta, ahead = [], []
    for layout, batch, m, n, k in shapes:
        ta, tb = layout[0] == "T", layout[1] == "T"
        rows, cols, op = gemv_matrix(m, n, k, ta, tb)  # the GEMV's matrix and op as gemv_route makes them
        cands = candidates(op, cols)
        gemm = choose_batched(m, n, k, batch, dev.arch, dev.sm_count, ta, tb)
        plans_meta.append((rows, cols, op, cands, gemm))
        ahead += [(c, "cuda") for c in cands] + [gemm]
    errs = compile_many(ahead, dev.arch, 16)
    print(f"compiled {len(ahead)} configs in {time.time() - t0:.0f} s; {sum(e is not None for e in errs)} failed",
          file=sys.stderr, flush=True)
    rows_out = []
    for idx, ((layout, batch, m, n, k), (rows, cols, op, cands, gemm)) in enumerate(zip(shapes, plans_meta)):
        if time.time() - t0 > budget:
            print(f"budget reached: {len(shapes) - idx} shapes left out", file=sys.stderr, flush=True)
            break
        e = _entry(layout, batch, m, n, k)
        bench = BatchedBench(torch, e, seed=idx)
        names = {}
        try:
            p = bench.problem()
            fns = {"bmm": bench.bmm(), "lib": bench.library()}
            g = GemmPlan(p.kernel_m, p.kernel_n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc, p.batch, p.strides,
                         config=gemm[0], backend=gemm[1])
            fns["gemm"] = bench.plan(g)
            for i, cfg in enumerate(cands):
                route = gemv_route(p.kernel_m, p.kernel_n, p.k, p.trans_a, p.lda, p.trans_b, p.ldb, p.ldc,
                                   batch=p.batch, strides=p.strides, config=cfg)
                key = f"c{i}"
                names[key] = cfg.describe()
                fns[key] = bench.plan(route)
            check, us, retimed = check_and_time(torch, bench, fns)
        finally:
            bench.close()
        nbytes = 4 * batch * (m * k + k * n + m * n)
        cand_us = {key: us[key] for key in names}
        best = min(cand_us, key=cand_us.get)
        rule = batched_gemv(rows, cols, op, batch, dev.sm_count)
        row = dict(e, op=op, rows=rows, cols=cols, us=us, names=names, best=best, best_config=names[best],
                   rule=rule.describe() if rule is not None else None,
                   x_bmm={name: round(us["bmm"] / v, 4) for name, v in us.items()},
                   copy_pct={name: round(100 * nbytes / (v * 1e3) / copy, 1) for name, v in us.items()},
                   ok=all(c["ok"] for c in check.values()), check=check, retimed=retimed)
        rows_out.append(row)
        write_out("batched_gemv_ab.json", {"device": torch.cuda.get_device_name(0), "copy_gbs": copy,
                                           "commit": os.environ.get("REGTILE_COMMIT", "unknown"), "rows": rows_out})
        wrong = [nm for nm, c in check.items() if not c["ok"]]
        print(f"[{idx + 1}/{len(shapes)}] {layout} {batch} x {m}x{n}x{k} (op {op} {rows}x{cols}): bmm {us['bmm']:.1f} "
              f"us, lib {us['lib']:.1f} (x{row['x_bmm']['lib']:.3f}, {row['copy_pct']['lib']}% copy), gemm "
              f"{us['gemm']:.1f}; best {names[best]} {us[best]:.1f} (x{row['x_bmm'][best]:.3f}); "
              + " ".join(f"{key}={us[key]:.1f}" for key in names)
              + (f"; WRONG {wrong}" if wrong else "") + f"; {time.time() - t0:.0f} s", flush=True)
    print("candidates:", file=sys.stderr)
    for row in rows_out:
        print(f"  {row['layout']} {row['batch']}x{row['m']}x{row['n']}x{row['k']}: "
              + "; ".join(f"{key} {desc}" for key, desc in row["names"].items()), file=sys.stderr)


main = program(run, "shapes=narrow|check budget=SECONDS")

if __name__ == "__main__":
    sys.exit(main())
