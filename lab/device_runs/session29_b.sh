#!/bin/bash
# Session 29 (issue 20): every candidate member on the ragged grid's midpoints (benchmarks/shapes-fit-ragged-mid.json,
# 296 shapes: a fitting source) and on the held-out sets' 27 shapes with unaligned rows
# (lab/device_runs/heldout_ragged_s29.json: never fitted, the judge of a table that knows unaligned rows).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s29
candidates benchmarks/shapes-fit-ragged-mid.json $OUT/shape-candidates-fit-ragged-mid.json ${C_S:-250} candidates_mid.log
candidates lab/device_runs/heldout_ragged_s29.json $OUT/shape-candidates-heldout-ragged.json ${H_S:-300} candidates_heldout.log
archive session29_b
