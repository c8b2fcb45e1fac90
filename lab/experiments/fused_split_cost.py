"""Where fused-128x16's split costs its time (session 34): at 256 blocks and 256 MB of A, split 1 ran 75.5 us
(32768x16x2048) and splits 2-16 82.0-83.4 (docs/data/session34/c_e52ed41), the main loop's SASS the same.  Either the
split's own work (each block's partial tile to the workspace, a fence, an arrival, the last block's sum) or where the
blocks read: a split's blocks start 2048 floats into A's rows.  This times, interleaved, the fused 128x16x32 kernel
(presets.FAMILY["fused-128x16"]) on 32768x16x2048 at split 1 over A packed (lda 2048), over the left half of rows
of 4096 floats (lda 4096, offset 0) and over their right half (offset 2048: where split 1 of 2 reads), against
16384x16x4096 at split 2 (packed); each result checked against float64 first (C NaN-poisoned).

  python3 -m lab.experiments.fused_split_cost [rounds=7]

Writes fused_split_cost.json under $OUT: {variant: {us (median of the rounds), rounds, rel_err}}.
"""
import statistics

from lab.experiments import program, take_option, write_out


def run(argv):
    import torch
    from regtile.codegen.presets import FAMILY
    from regtile.runtime import driver
    from regtile.runtime.plans import GemmPlan
    torch.backends.cuda.matmul.allow_tf32 = False
    rounds = int(take_option(argv, "rounds") or 7)
    base = FAMILY["fused-128x16"].config
    g = torch.Generator(device="cuda").manual_seed(0)
    n = 16
    wide = torch.randn(32768, 4096, device="cuda", generator=g)  # rows of 4096: both halves, and 16384x16x4096's A
    packed = wide[:, :2048].contiguous()
    b = torch.randn(4096, n, device="cuda", generator=g)
    c = torch.empty(32768, n, device="cuda")
    a16k = wide[:16384].contiguous()
    # (label, m, k, lda, A's first float, split)
    variants = [("s1 packed", 32768, 2048, 2048, packed, 1),
                ("s1 lda 4096, left half", 32768, 2048, 4096, wide, 1),
                ("s1 lda 4096, right half", 32768, 2048, 4096, wide[:, 2048:], 1),
                ("s2 16384x16x4096 packed", 16384, 4096, 4096, a16k, 2)]
    fns, out = {}, {}
    for label, m, k, lda, a, split in variants:
        plan = GemmPlan(m, n, k, False, False, lda, n, n, config=base.replace(split_k=split), backend="fusedk")
        bb = b[2048:] if "right" in label else b  # the right half's K rows of B, as a split would read them
        fn = (lambda plan=plan, a=a, bb=bb, m=m: plan.launch(a.data_ptr(), bb.data_ptr(), c.data_ptr(), 1.0, 0.0, 0))
        c.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        ref = a[:m, :k].double() @ bb[:k].double()
        got = c[:m].double()
        err = ((got - ref).norm() / ref.norm()).item()
        out[label] = {"rel_err": err, "ok": bool(torch.isfinite(got).all().item()) and err <= 1e-5, "rounds": []}
        fns[label] = fn
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    for r in range(rounds):
        for label in (list(fns)[r % len(fns):] + list(fns)[:r % len(fns)]):
            fns[label]()
            s, e = ev(), ev()
            s.record()
            for _ in range(20):
                fns[label]()
            e.record()
            e.synchronize()
            out[label]["rounds"].append(round(s.elapsed_time(e) * 1000 / 20, 2))
    for label, d in out.items():
        d["us"] = statistics.median(d["rounds"])
        print(f"{label:28s} {d['us']:7.1f} us  {'ok' if d['ok'] else 'WRONG'} {d['rel_err']:.1e}  {d['rounds']}",
              flush=True)
    write_out("fused_split_cost.json", {"device": driver.device().name, "variants": out})


main = program(run, "[rounds=R]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
