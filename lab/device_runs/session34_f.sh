#!/bin/bash
# Session 34 (issue 20): the new member fused-128x16 (n of 9-16, K split within one wave of two blocks an SM).
# 1. its GPU tests (every fused member's, and its own at its splits); 2. every candidate on the n = 16 grid
# (benchmarks/shapes-fit-n16.json) and the suite's n = 16 shapes, then the table refitted with that run last
# (sticky 0.03, as committed), copied to $OUT; 3. with that table, regtile.sgemm against cuBLAS on every suite and
# held-out shape of n 9-16 and the probe's, in NN and NT.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34f
gpu_tests ${T_S:-150} "fused" tests/gpu/test_fusedk_gpu.py
python3 - <<'PY'
import json, os
suite = json.load(open("benchmarks/shapes.json"))
grid = json.load(open("benchmarks/shapes-fit-n16.json"))
json.dump(grid + [r for r in suite if r["n"] == 16], open(os.environ["OUT"] + "/n16-run.json", "w"))
held = [r for f in ["", "-2", "-3", "-4", "-5"] for r in json.load(open(f"benchmarks/shapes-heldout{f}.json"))]
probe = [(11008, 16, 4096), (8192, 16, 4096), (2048, 13, 4096), (4096, 13, 8192), (16384, 12, 4096), (1024, 16, 65536),
         (512, 16, 65536), (32768, 16, 2048), (16384, 16, 4096), (4096, 16, 2048), (2048, 16, 2048)]
rows = [r for r in suite + held if 9 <= r["n"] <= 16] + [{"m": m, "n": n, "k": k, "group": "probe"} for m, n, k in probe]
seen, out = set(), []
for r in rows:
    if (r["m"], r["n"], r["k"]) not in seen:
        seen.add((r["m"], r["n"], r["k"])); out.append(r)
json.dump(out, open(os.environ["OUT"] + "/n16-sweep.json", "w"))
print(len(grid), "grid shapes,", len(out), "sweep shapes")
PY
candidates_and_refit $OUT/n16-run.json $OUT/shape-candidates-session34-n16.json ${C_S:-270} 0.03
_sweep "n16 NN" ${S_S:-70} sweep-n16-NN.json sweep-n16-NN.md sweep-n16-NN.log --suite $OUT/n16-sweep.json
_sweep "n16 NT" ${S_S:-70} sweep-n16-NT.json sweep-n16-NT.md sweep-n16-NT.log --suite $OUT/n16-sweep.json --layout NT
archive session34_f
