"""Check validation's register rules against ptxas (issue 8; docs/register-rule.md).

Draws random SGEMM configs that validation accepts (every field of the space, split-K and
the SASS-pass source included), compiles each for sm_90 with both backends, and reports
the ones ptxas spills - each a counterexample to "accepted means spill-free".  No GPU.

    python3 -m regtile.lab.register_sweep --n 2000 --seed 77 --jobs 8 --out sweep.jsonl
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor

TILE, THREAD_TILE = (16, 32, 64, 128, 256), (1, 2, 4, 8, 16)


def draw(rng: random.Random, n: int, tries: int = 200000):
    """Up to n distinct accepted configs, every field drawn uniformly from its values."""
    from ..codegen.config import ConfigError, SgemmConfig
    out, seen = [], set()
    for _ in range(tries):
        bm, bn, tm, tn = (rng.choice(TILE), rng.choice(TILE), rng.choice(THREAD_TILE), rng.choice(THREAD_TILE))
        if bm % tm or bn % tn or ((bm // tm) * (bn // tn)) % 32:
            continue
        w = (bm // tm) * (bn // tn) // 32
        d = dict(bm=bm, bn=bn, tm=tm, tn=tn, bk=rng.choice((1, 2, 4, 8, 16, 32)),
                 warps=rng.choice([None] + [(a, w // a) for a in range(1, w + 1) if w % a == 0]),
                 mapping=rng.choice(("linear", "zorder")), split_tile=rng.random() < 0.5,
                 stages=rng.choice((0, 1, 2)), a_transposed=rng.random() < 0.5, pad_a=rng.choice((0, 1, 4)),
                 pad_b=rng.choice((0, 4)), vec=rng.choice((1, 4)), frag_regs=rng.random() < 0.5,
                 reg_prefetch=rng.random() < 0.5, min_blocks=rng.choice((1, 2, 3, 4)),
                 ffma_order=rng.choice(("zigzag", "colzig", "swirl", "rowmajor")),
                 split_k=rng.choice((1, 1, 2, 3, 4, 8)), sass_pass=rng.random() < 0.5)
        try:
            cfg = SgemmConfig(**d)
        except ConfigError:
            continue
        if cfg not in seen:
            seen.add(cfg)
            out.append(cfg)
            if len(out) == n:
                break
    return out


def compile_one(args) -> dict:
    """ptxas's resources for one config and backend (the SASS pass, which runs after
    ptxas and changes no register count, is left out)."""
    d, backend = args
    from ..codegen.config import ConfigError, SgemmConfig
    from ..codegen.emit import emit
    from ..runtime.compiler import compile_source, spilled_bytes
    try:
        src = emit(SgemmConfig.from_dict(d), backend=backend)
    except ConfigError as e:
        return {"config": d, "backend": backend, "refused": str(e)}
    art = compile_source(dataclasses.replace(src, sass_pass=False), "sm_90", use_cache=False)
    res = art.resources
    return {"config": d, "backend": backend, "registers": res.registers, "spill_store": res.spill_store_bytes,
            "stack": res.stack_frame_bytes, "spill_free": spilled_bytes(art) == 0}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.lab.register_sweep", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=500, help="accepted configs to compile (default 500)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=None, help="compile processes (default: CPU count)")
    p.add_argument("--out", help="also write every result as JSON lines")
    args = p.parse_args(argv)
    configs = draw(random.Random(args.seed), args.n)
    work = [(c.to_dict(), b) for c in configs for b in ("cuda", "ptx")]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(compile_one, work, chunksize=4))
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in results)
    spills = [r for r in results if r.get("spill_free") is False]
    compiled = sum(1 for r in results if "registers" in r)
    print(f"{len(configs)} accepted configs, {compiled} compiles for sm_90, "
          f"{len(results) - compiled} refused by a backend, {len(spills)} spilling")
    for r in spills:
        print(f"  spills ({r['backend']}, {r['registers']} registers, {r['spill_store']} B): {json.dumps(r['config'])}")
    return 1 if spills else 0


if __name__ == "__main__":
    sys.exit(main())
