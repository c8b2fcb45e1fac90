#!/bin/bash
# Prepared in session 27: every candidate member on the ragged fitting grid (benchmarks/shapes-fit-ragged.json, 268
# shapes with unaligned rows and N % 4 != 0).  Session 29 ran it as session29_a.sh (109 s on the H200) and fitted it
# with its midpoints and the big grid (session29_b.sh, _c.sh; docs/shapes.md "Where it stands (session 29)").
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_ragged_grid
candidates benchmarks/shapes-fit-ragged.json $OUT/shape-candidates-fit-ragged.json ${C_S:-560}
archive ragged_grid
