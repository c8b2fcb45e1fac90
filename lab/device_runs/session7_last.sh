#!/bin/bash
# Session 7's last run on the H100: the PTX SGEMM kernels programmatic (codegen/emit_ptx.py pdl_entry) and the
# cp.async ring in the tree (no member uses it): the whole GPU suite, PDL on / off on the shapes of
# session7_pdl.sh with the committed trigger rule, the shape sweep, and the call overhead.
. lab/device_runs/prelude.sh /tmp/rtc_s7l
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s7l
gpu_suite 210
sweep 200
( timeout 100 python3 -m lab.experiments.pdl_ab gemm:64x4096x4096,128x2048x2048,768x512x768,1009x1013x1019,512x1024x4096,1023x1025x1023,256x256x256,4096x4096x4096 ) > $OUT/pdl_rule.log 2>&1
echo "pdl_ab: rc $?"; python3 - <<'PY'
import json, os
d = json.load(open(os.path.join(os.environ["OUT"], "pdl_ab.json")))
for r in d["gemm"]:
    us = r["us"]
    print(f"{r['m']}x{r['n']}x{r['k']}: graph pdl {us['pdl'][0]:.2f} plain {us['plain'][0]:.2f} cublas {us['cublas'][0]:.2f}; "
          f"stream {us['pdl'][1]:.2f} / {us['plain'][1]:.2f} / {us['cublas'][1]:.2f}  {r['check']['pdl']}")
PY
timeout 80 python3 benchmarks/overhead.py --json $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead: rc $?"; tail -12 $OUT/overhead.log
