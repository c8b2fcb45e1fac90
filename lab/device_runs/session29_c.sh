#!/bin/bash
# Session 29 (issue 20): every candidate member on the big ragged grid (benchmarks/shapes-fit-ragged-big.json, 209
# shapes of 8.6-137 GFLOP with unaligned rows, smallest first: a fitting source) and on the ten aligned held-out
# shapes whose pick the ragged grids moved (lab/device_runs/heldout_changed_s29.json: the judge of that move).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s29
candidates lab/device_runs/heldout_changed_s29.json $OUT/shape-candidates-heldout-changed.json ${H_S:-90} candidates_changed.log
candidates benchmarks/shapes-fit-ragged-big.json $OUT/shape-candidates-fit-ragged-big.json ${C_S:-420} candidates_big.log
archive session29_c
