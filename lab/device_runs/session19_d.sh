#!/bin/bash
# Session 19 (issue 20): every candidate member timed on an unaligned-rows fitting grid (lab/device_runs/
# session19_fit_unaligned.json, 241 shapes with N and K odd: M, N 63-8191 and K 61-16381 one doubling a step, at most
# 8.6 GFLOP, apart from the unaligned suite shapes by 0.5 and from every held-out shape by 0.25), for table entries
# that would answer unaligned shapes only.  Evaluated by lab/experiments/unaligned_table_eval.py; not taken.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
candidates lab/device_runs/session19_fit_unaligned.json $OUT/shape-candidates-session19-fit-unaligned_${REGTILE_COMMIT:-unknown}.json \
    ${GRID_S:-300} candidates_unaligned.log | tail -6
archive session19_d
