#!/bin/bash
# Session 16: the table with the fitting grids' entries (at d656d18 the small-problem grid; at 6602ca0 also the long
# thin grid) and the suite's N % 4 != 0 shapes timed again with C staged: held-out 4, 1, 2 and 3, then the suite's
# sweep, through regtile.sgemm.  One archive ($OUT/session16_b.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
sweep_suite benchmarks/shapes-heldout-4.json heldout4 ${H_S:-75}
sweep_suite benchmarks/shapes-heldout.json heldout1 ${H_S:-75}
sweep_suite benchmarks/shapes-heldout-2.json heldout2 ${H_S:-75}
sweep_suite benchmarks/shapes-heldout-3.json heldout3 ${H_S:-75}
sweep ${SWEEP_S:-150}
archive session16_b
