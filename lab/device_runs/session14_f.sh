#!/bin/bash
# Session 14: the held-out shapes (benchmarks/shapes-heldout.json: real models' shapes the table was not fitted
# on) through regtile.sgemm as committed against cuBLAS - how the heuristic carries beyond the suite.
. lab/device_runs/prelude.sh /tmp/rtc_s14
timeout ${SWEEP_S:-330} python3 -m regtile.tools.shape_sweep --suite benchmarks/shapes-heldout.json \
    --json $OUT/heldout-sweep.json --md $OUT/heldout_table.md --budget-s $(( ${SWEEP_S:-330} - 30 )) > $OUT/heldout.log 2>&1
echo "heldout sweep: rc $? $(grep -c '^\[' $OUT/heldout.log) shapes"; sed -n 1,8p $OUT/heldout_table.md
python3 - <<'PY'
import json, os
rows = json.load(open(os.path.join(os.environ.get("OUT", "."), "heldout-sweep.json")))
for r in sorted(rows, key=lambda r: r["x_cublas"]):
    print(f'{r["m"]}x{r["n"]}x{r["k"]} {r["x_cublas"]:.3f} {r["regtile_us"]:.1f}/{r["cublas_us"]:.1f} {r["kernel"][:70]}')
PY
