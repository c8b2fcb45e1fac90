#!/bin/bash
# Session 16: every candidate member timed on the tiny-output long-K grid (benchmarks/shapes-fit-tiny.json, 46
# shapes).  One archive ($OUT/session16_i.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
candidates benchmarks/shapes-fit-tiny.json $OUT/shape-candidates-session16-fit-tiny_${REGTILE_COMMIT:-unknown}.json ${GRID_S:-300} candidates_tiny.log
archive session16_i
