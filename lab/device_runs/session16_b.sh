#!/bin/bash
# Session 16: the table with the fitting grids' entries (at d656d18 the small-problem grid; at 6602ca0 also the long
# thin grid) and the suite's N % 4 != 0 shapes timed again with C staged: held-out 4, 1, 2 and 3, then the suite's
# sweep, through regtile.sgemm.  One archive ($OUT/session16_b.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
heldout_sweeps ${H_S:-75} 4 1 2 3
sweep ${SWEEP_S:-150}
archive session16_b
