#!/bin/bash
# Session 16: small problems (vision GEMMs and grid-like mid-small shapes) are bound by a k-tile's global-load
# latency where each SM holds one or two blocks: deeper k-tiles (bk 16 / 32) and the cp.async ring (stages 3 / 4)
# on the small members, against each member as it is, the plan and cuBLAS (lab/experiments/variants_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
V="a@sq-64x64-4x8: a16@sq-64x64-4x8:bk=16 a32@sq-64x64-4x8:bk=32 ar3@sq-64x64-4x8:stages=3 ar4@sq-64x64-4x8:stages=4;bk=16
   c@wide-32x64: c32@wide-32x64:bk=32 cr3@wide-32x64:stages=3 cr4@wide-32x64:stages=4
   d@sq-32x32: d32@sq-32x32:bk=32 dr4@sq-32x32:stages=4"
S="784x576x192 3136x288x96 196x1152x384 3136x96x384 784x192x768 196x384x1536 768x768x192 1536x512x256 384x1024x512
   1024x1024x256"
( time timeout 420 python3 -m lab.experiments.variants_ab $V $S ) > $OUT/small_latency_ab.log 2>&1
echo "variants: rc $?"; grep -E "^[0-9]+x" $OUT/small_latency_ab.log | cut -c1-400
archive session16_d
