#!/bin/bash
# Session 15, the last call: with the fused members' fitted fixed cost (b0440de), held-out 4, 1 and 2 (where picks
# moved) and 3, then the suite's sweep, through regtile.sgemm.  One archive ($OUT/session15_e.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s15
sweep_suite benchmarks/shapes-heldout-4.json heldout4 ${H_S:-75}
sweep_suite benchmarks/shapes-heldout.json heldout1 ${H_S:-75}
sweep_suite benchmarks/shapes-heldout-2.json heldout2 ${H_S:-75}
sweep_suite benchmarks/shapes-heldout-3.json heldout3 ${H_S:-75}
sweep ${SWEEP_S:-120}
archive session15_e
