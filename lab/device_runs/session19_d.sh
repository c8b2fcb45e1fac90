#!/bin/bash
# Session 19 (issue 20): every candidate member timed on the unaligned-rows fitting grid (benchmarks/shapes-fit-
# unaligned.json, 241 shapes with N and K odd), for the table's unaligned entries (codegen/heuristic.py table_of).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
candidates benchmarks/shapes-fit-unaligned.json $OUT/shape-candidates-session19-fit-unaligned_${REGTILE_COMMIT:-unknown}.json \
    ${GRID_S:-300} candidates_unaligned.log | tail -6
archive session19_d
