#!/bin/bash
# Session 29 (issue 20): every candidate member on the ragged fitting grid (benchmarks/shapes-fit-ragged.json, 268
# shapes with unaligned rows; lab/device_runs/ragged_grid.sh, prepared in session 27), the data for a table and model
# that know unaligned rows.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s29
candidates benchmarks/shapes-fit-ragged.json $OUT/shape-candidates-fit-ragged.json ${C_S:-545}
archive session29_a
