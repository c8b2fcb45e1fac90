"""Batched GEMMs of real workloads against torch.bmm (issue 20, session 45).

The shape sweeps time single GEMMs; a batch (3-D operands, blockIdx.z the batch entry) runs one of the family's
members generated batched (codegen/batch_choice.choose_batched: before session 45 the largest of four tiles whose
batch x tiles fill the SMs, since then codegen/batch_choice.py), and had been timed on three shapes only (issue 19,
docs/layouts.md).  This times what regtile.sgemm
runs on the batched shapes of real workloads (benchmarks/shapes-batched.json: attention scores and values without a
fused kernel, its backward, decode attention with one query a head or a group of them, mixture-of-experts
projections, batches of plain GEMMs), each in the layout its framework call gives, against torch.bmm of the same
views (cuBLAS's batched GEMM, TF32 off), and with members=1 every batched member whose tiles fit the shape.

Method (as tools/shape_sweep): operands are rotating sets of random normal tensors (enough to span twice the L2),
stored as the layout says (op(A) = A^T: A stored batch x K x M and viewed transposed; op(B) = B^T: batch x N x K);
every variant is checked once against torch's float64 bmm (C NaN-poisoned: an unwritten element fails it), then the
variants and torch.bmm are timed interleaved, rounds of back-to-back launches between CUDA events behind a GPU
sleep, the median per launch.  "lib" is regtile.sgemm(A, B, C) itself (its cached call); a member is its GemmPlan.

  python3 -m lab.experiments.batched_sweep [suite=benchmarks/shapes-batched.json] [members=1] [only=GROUP]
      [budget=SECONDS]    (GPU) writes batched_sweep.json under $OUT
"""
import os
import statistics
import sys
import time

from lab.experiments import program, take_option, write_out
from regtile.tools.shape_sweep import ShapeBench

SUITE = "benchmarks/shapes-batched.json"
# the members timed with members=1 (the family's tiles, unsplit; member_configs' rule)
SMS = 132
MEMBERS = ("wide-128x256", "tall-256x128", "sq-128x128", "wide-64x256", "tall-256x64", "wide-64x128-k16",
           "tall-128x64-k16", "sq-64x64", "plain-64x64", "sq-64x64-4x8", "wide-32x64", "tall-64x32", "plain-32x64",
           "sq-32x32", "plain-32x32", "skinny-m16", "skinny-m32", "skinny-n16", "skinny-n32")


class BatchedBench:
    """Rotating sets of a batch's A, B and C as torch tensors on the GPU, stored as the layout says."""

    def __init__(self, torch, e: dict, seed: int):
        from regtile.runtime.bench import rotation_sets
        self.torch = torch
        self.batch, self.m, self.n, self.k = e["batch"], e["m"], e["n"], e["k"]
        self.trans_a, self.trans_b = e["layout"][0] == "T", e["layout"][1] == "T"
        b, m, n, k = self.batch, self.m, self.n, self.k
        self.sets = rotation_sets(4 * b * (m * k + k * n + m * n), torch.cuda.get_device_properties(0).L2_cache_size)
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        a_shape = (b, k, m) if self.trans_a else (b, m, k)
        b_shape = (b, n, k) if self.trans_b else (b, k, n)
        self.a = [torch.randn(*a_shape, device="cuda", generator=g) for _ in range(self.sets)]
        self.b = [torch.randn(*b_shape, device="cuda", generator=g) for _ in range(self.sets)]
        self.c = [torch.empty(b, m, n, device="cuda") for _ in range(self.sets)]
        self._ref = None

    def op_a(self, i: int):
        return self.a[i].transpose(1, 2) if self.trans_a else self.a[i]

    def op_b(self, i: int):
        return self.b[i].transpose(1, 2) if self.trans_b else self.b[i]

    def reference(self):
        if self._ref is None:
            self._ref = self.torch.bmm(self.op_a(0).double(), self.op_b(0).double())
        return self._ref

    # (ok, relative error, unwritten elements) of fn(0) against float64, C NaN-poisoned: the single GEMMs' check
    check = ShapeBench.check

    def bmm(self):
        a, b, c, bmm = [self.op_a(i) for i in range(self.sets)], [self.op_b(i) for i in range(self.sets)], self.c, \
            self.torch.bmm
        return lambda i: bmm(a[i], b[i], out=c[i])

    def library(self):
        import regtile
        a, b, c = [self.op_a(i) for i in range(self.sets)], [self.op_b(i) for i in range(self.sets)], self.c
        return lambda i: regtile.sgemm(a[i], b[i], c[i])

    def problem(self):
        """The kernel-level problem regtile.sgemm makes of set 0's views (runtime/problem.py)."""
        from regtile.runtime.problem import kernel_problem, resolve
        p = resolve(self.op_a(0), self.op_b(0), self.c[0])
        kernel_problem(p, False, False)
        assert not p.swapped, "C is row-major: the problem is not swapped"
        return p

    def plan(self, plan):
        a, b, c = self.a, self.b, self.c
        return lambda i: plan.launch(a[i].data_ptr(), b[i].data_ptr(), c[i].data_ptr(), 1.0, 0.0, 0)

    def close(self):
        self.a = self.b = self.c = []
        self._ref = None


def member_configs(e: dict) -> dict:
    """{member: (config, backend)} of the members timed on this shape, generated batched for its layout and operands
    (layouts.with_layout, operand_forms.for_operands), as regtile.sgemm generates its batched choice: the skinny
    ones only where that side of C is at most 48; where 64x64 tiles would fill the SMs four times over, the tiles
    smaller than 64x64 only where they pad C by under 0.8 x what the larger ones do; then those that pad C by at most
    1.5, or 1.35 x the least padding among them, and the one regtile.sgemm runs.  Packed operands, C row-major."""
    from regtile.codegen.batch_choice import batch_member
    from regtile.codegen.heuristic import _pad
    from regtile.codegen.layouts import with_layout
    from regtile.codegen.operand_forms import for_operands
    from regtile.codegen.presets import FAMILY
    m, n, k, batch = e["m"], e["n"], e["k"], e["batch"]
    ta, tb = e["layout"][0] == "T", e["layout"][1] == "T"
    lda, ldb, ldc = _packed_lds(e)
    pads = {name: _pad(m, n, FAMILY[name].config.bm, FAMILY[name].config.bn) for name in MEMBERS}
    lib = batch_member(m, n, k, batch, SMS, tb, ta)
    names = []
    for name in MEMBERS:
        c = FAMILY[name].config
        if name.startswith("skinny-") and (m if c.bm < c.bn else n) > 48:
            continue  # a skinny tile where that side of C is not
        names.append(name)
    big = [nm for nm in names if FAMILY[nm].config.bm * FAMILY[nm].config.bn >= 64 * 64]
    if big and batch * -(-m // 64) * -(-n // 64) >= 4 * SMS:  # 64x64 tiles fill the SMs four times over
        least_big = min(pads[nm] for nm in big)
        names = [nm for nm in names if nm in big or pads[nm] <= 0.8 * least_big or nm == lib]
    least = min(pads[nm] for nm in names)
    out = {}
    for name in names:
        if pads[name] > max(1.35 * least, 1.5) and name != lib:
            continue
        mem = FAMILY[name]
        cfg = with_layout(mem.config, ta, tb, batched=True)
        out[name] = (for_operands(cfg, mem.backend, lda, ldb, m, n, ldc, k), mem.backend)
    return out


def _lib_label(p, lib_cfg, sms: int) -> str:
    """What regtile.sgemm ran on the kernel-level problem `p`: its plan's batched GEMV (session 46: m == 1 or n == 1
    where batch_choice.batched_gemv takes the batch), else the batched member and its split over K."""
    from regtile.codegen.batch_choice import batch_member
    from regtile.runtime.plans import plan_cache
    plan = next((q for q in plan_cache.values() if (q.m, q.n, q.k, q.batch, q.trans_a, q.trans_b)
                 == (p.kernel_m, p.kernel_n, p.k, p.batch, p.trans_a, p.trans_b)), None)
    if plan is not None and plan.gemv is not None:
        return f"GEMV {plan.gemv.plan.kernel.source.name}"
    return (batch_member(p.kernel_m, p.kernel_n, p.k, p.batch, sms, p.trans_b, p.trans_a)
            + (f" split {lib_cfg.split_k}" if lib_cfg.split_k > 1 else ""))


def check_and_time(torch, bench: BatchedBench, fns: dict):
    """(check, us, retimed): each fn(i) checked once against float64 on a NaN-poisoned C ({name: ok, rel_err,
    unwritten}), then all timed interleaved (tools/shape_sweep.time_interleaved, retimed once where disturbed): the
    median microseconds a launch by name."""
    from regtile.tools.shape_sweep import time_interleaved, time_steady
    check = {}
    for name, fn in fns.items():
        ok, err, unwritten = bench.check(fn)
        check[name] = {"ok": ok, "rel_err": err, "unwritten": unwritten}
    times, retimed = time_steady(lambda: time_interleaved(torch, fns, bench.sets, 5))
    return check, {name: round(statistics.median(t), 3) for name, t in times.items()}, retimed


def _packed_lds(e: dict):
    """(lda, ldb, ldc) of a suite entry's packed operands in its layout."""
    ta, tb = e["layout"][0] == "T", e["layout"][1] == "T"
    return (e["m"] if ta else e["k"]), (e["k"] if tb else e["n"]), e["n"]


def run(argv) -> None:
    suite_path = take_option(argv, "suite") or SUITE
    with_members = take_option(argv, "members") == "1"
    only = take_option(argv, "only")
    budget = float(take_option(argv, "budget") or 1e9)
    import json
    import torch
    from regtile.runtime import driver
    from regtile.runtime.choice import choose_sgemm_kernel
    from regtile.runtime.plans import GemmPlan
    from regtile.tools.shape_sweep import compile_all
    torch.backends.cuda.matmul.allow_tf32 = False
    t0 = time.time()
    suite = [e for e in json.load(open(suite_path)) if not only or e["group"] == only]
    dev = driver.device()
    # compile ahead, in parallel: the library's choice and the members of every shape
    libs, benches_meta, ahead = [], [], []
    for e in suite:
        libs.append(choose_sgemm_kernel(e["m"], e["n"], e["k"], dev.arch, e["layout"][0] == "T", e["layout"][1] == "T",
                                        e["batch"], *_packed_lds(e)))
        cands = member_configs(e) if with_members else {}
        benches_meta.append(cands)
        ahead.extend([libs[-1], *cands.values()])
    errs = compile_all(ahead, dev.arch)
    print(f"compiled {len(errs)} configs in {time.time() - t0:.0f} s; "
          f"{sum(v is not None for v in errs.values())} failed", file=sys.stderr, flush=True)
    rows = []
    for idx, (e, cands, (lib_cfg, _)) in enumerate(zip(suite, benches_meta, libs)):
        if time.time() - t0 > budget:
            print(f"budget reached: {len(suite) - idx} shapes left out", file=sys.stderr, flush=True)
            break
        bench = BatchedBench(torch, e, seed=idx)
        try:
            p = bench.problem()
            fns = {"bmm": bench.bmm(), "lib": bench.library()}
            for name, (cfg, be) in cands.items():
                try:
                    plan = GemmPlan(p.kernel_m, p.kernel_n, p.k, p.trans_a, p.trans_b, p.lda, p.ldb, p.ldc, p.batch,
                                    p.strides, config=cfg, backend=be)
                except Exception as ex:  # a member that cannot run here is named and left out
                    print(f"  {name}: {type(ex).__name__}: {str(ex)[:160]}", file=sys.stderr, flush=True)
                    continue
                fns[name] = bench.plan(plan)
            check, us, retimed = check_and_time(torch, bench, fns)
        finally:
            bench.close()
        members = {name: us[name] for name in cands if name in us}
        best = min(members, key=members.get) if members else None
        row = dict(e, lib_us=us["lib"], bmm_us=us["bmm"], x_bmm=round(us["bmm"] / us["lib"], 4),
                   lib_member=_lib_label(p, lib_cfg, dev.sm_count),
                   members_us=members, best_member=best,
                   best_x_bmm=round(us["bmm"] / members[best], 4) if best else None,
                   ok=all(c["ok"] for c in check.values()), check=check, retimed=retimed,
                   tflops=round(2 * e["batch"] * e["m"] * e["n"] * e["k"] / us["lib"] / 1e6, 2))
        rows.append(row)
        write_out("batched_sweep.json", {"device": torch.cuda.get_device_name(0),
                                         "commit": os.environ.get("REGTILE_COMMIT", "unknown"), "rows": rows})
        wrong = [n for n, c in check.items() if not c["ok"]]
        print(f"[{idx + 1}/{len(suite)}] {e['layout']} {e['batch']} x {e['m']}x{e['n']}x{e['k']}: lib "
              f"{us['lib']:.1f} us ({row['lib_member']}), bmm {us['bmm']:.1f}, x{row['x_bmm']:.3f}"
              + (f"; best {best} {members[best]:.1f} (x{row['best_x_bmm']:.3f})" if best else "")
              + (f"; WRONG {wrong}" if wrong else "") + f"; {time.time() - t0:.0f} s", flush=True)


main = program(run, "suite=FILE members=1 only=GROUP budget=SECONDS")

if __name__ == "__main__":
    sys.exit(main())
