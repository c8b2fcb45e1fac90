#!/bin/bash
# Session 6: where a GEMV kernel triggers its dependents (codegen/emit_sgemv.GEMV_ENTRY).  The one-wave
# op T GEMVs (2048x6144 T: 19.46 / 19.79 us with PDL on in two sweeps, 18.68 in session 4 without) may
# lose when the next call's blocks are placed while the SMs are still busy.  pdl_ab (PDL on and off,
# same run) with the trigger at entry (as committed), then with no explicit trigger (at block exit).
. lab/device_runs/prelude.sh /tmp/rtc_s6p
SHAPES="gemv:2048x6144T,2560x7680T,4096x4096T,2048x2048T,768x768T,32x4096T,300x1048576N,1048576x16T,16384x16T,7x50000N"
show() { python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["gemv"]:
    if "error" in r: print(r); continue
    us = r["us"]
    print(f"{r['m']}x{r['n']} {r['op']}: pdl {us['pdl'][0]:7.2f} plain {us['plain'][0]:7.2f}  (stream {us['pdl'][1]:7.2f} / {us['plain'][1]:7.2f})  {r['kernel'][:60]}")
PY
}
timeout 200 python3 -m lab.experiments.pdl_ab $SHAPES > $OUT/pdl_entry.log 2>&1; echo "entry trigger: rc $?"
cp $OUT/pdl_ab.json $OUT/pdl_ab_entry.json; show $OUT/pdl_ab_entry.json
sed -i 's/^GEMV_ENTRY = PDL_TRIGGER + PDL_WAIT$/GEMV_ENTRY = PDL_WAIT/' codegen/emit_sgemv.py
grep -n "^GEMV_ENTRY" codegen/emit_sgemv.py
timeout 200 python3 -m lab.experiments.pdl_ab $SHAPES > $OUT/pdl_exit.log 2>&1; echo "exit trigger: rc $?"
cp $OUT/pdl_ab.json $OUT/pdl_ab_exit.json; rm $OUT/pdl_ab.json; show $OUT/pdl_ab_exit.json
sed -i 's/^GEMV_ENTRY = PDL_WAIT$/GEMV_ENTRY = PDL_TRIGGER + PDL_WAIT/' codegen/emit_sgemv.py
