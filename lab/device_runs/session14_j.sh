#!/bin/bash
# Session 14, the landed state (the skinny rule, session 13's table; at 0a3e184 also the transfer): the three held-out sets, then the whole GPU
# suite.  Every output in one archive ($OUT/session14_j.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s14
for i in "" -2 -3; do sweep_suite benchmarks/shapes-heldout$i.json heldout${i:-1}-landed ${H_S:-55}; done
gpu_suite ${GPU_S:-280}
tar czf $REAL_OUT/session14_${REGTILE_COMMIT:-x}.tgz -C $REAL_OUT r && rm -rf $OUT
