#!/bin/bash
# Session 7, issue 20: programmatic dependent launch for the PTX SGEMM kernels (codegen/emit_ptx.py
# pdl_entry): lab/experiments/pdl_ab.py times what regtile.sgemm launches with PDL on and off (graphs
# of 20 calls and back-to-back stream launches, every variant checked against float64 first), with
# the trigger at entry (PDL_TRIGGER_AT_ENTRY = True) and then without it (dependents at exit).
. lab/device_runs/prelude.sh /tmp/rtc_s7p
S=${PDL_GEMMS:-64x4096x4096,128x2048x2048,768x512x768,513x129x16383,1009x1013x1019,512x1024x4096,127x511x257,8192x128x8192,2000x2000x2000,1023x1025x1023,4096x128x4096,1024x1024x1024,256x256x256,4096x4096x4096,48x2048x8192}
( timeout 240 python3 -m lab.experiments.pdl_ab gemm:$S ) > $OUT/pdl_entry.log 2>&1; echo "pdl_ab entry: rc $?"
mv $OUT/pdl_ab.json $OUT/pdl_ab_entry.json 2>/dev/null
sed -i 's/^PDL_TRIGGER_AT_ENTRY = True$/PDL_TRIGGER_AT_ENTRY = False/' codegen/emit_ptx.py
( timeout 240 python3 -m lab.experiments.pdl_ab gemm:$S ) > $OUT/pdl_exit.log 2>&1; echo "pdl_ab exit: rc $?"
mv $OUT/pdl_ab.json $OUT/pdl_ab_exit.json 2>/dev/null
sed -i 's/^PDL_TRIGGER_AT_ENTRY = False$/PDL_TRIGGER_AT_ENTRY = True/' codegen/emit_ptx.py
python3 - <<'PY'
import json, os
out = os.environ["OUT"]
runs = {k: json.load(open(f"{out}/pdl_ab_{k}.json")) for k in ("entry", "exit") if os.path.exists(f"{out}/pdl_ab_{k}.json")}
rows = {}
for k, d in runs.items():
    for r in d.get("gemm", []):
        rows.setdefault((r["m"], r["n"], r["k"]), {})[k] = r
for shape, d in rows.items():
    parts = []
    for k, r in d.items():
        if "error" in r:
            parts.append(f"{k}: {r['error'][:80]}")
            continue
        us = r["us"]
        parts.append(f"{k}: pdl {us['pdl'][0]:.2f} plain {us['plain'][0]:.2f} cublas {us.get('cublas', [0])[0]:.2f} (stream {us['pdl'][1]:.2f}/{us['plain'][1]:.2f}/{us.get('cublas', [0, 0])[1]:.2f})")
    print("x".join(map(str, shape)), " | ".join(parts))
PY
