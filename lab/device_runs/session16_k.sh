#!/bin/bash
# Session 16: every candidate member timed on the flat grid (benchmarks/shapes-fit-flat.json, 81 shapes: M and N
# 1024-16384, K 16-256).  One archive ($OUT/session16_k.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
candidates benchmarks/shapes-fit-flat.json $OUT/shape-candidates-session16-fit-flat_${REGTILE_COMMIT:-unknown}.json ${GRID_S:-300} candidates_flat.log
archive session16_k
