#!/bin/bash
# Session 14, the landed state at its end (the skinny rule, the model transfer, session 13's table): the suite and
# the three held-out sets.  Every output in one archive ($OUT/session14_k_COMMIT.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s14k
sweep ${SWEEP_S:-120}
for i in "" -2 -3; do sweep_suite benchmarks/shapes-heldout$i.json heldout${i:-1}-landed ${H_S:-70}; done
tar czf $REAL_OUT/session14_k_${REGTILE_COMMIT:-x}.tgz -C $REAL_OUT r && rm -rf $OUT
