#!/bin/bash
# Session 19 (issue 20): every candidate member timed on the held-out sets' unaligned shapes (GEMVs left out;
# lab/device_runs/session19_heldout_unaligned.json): how the unaligned grid's entries pick there (not for fitting).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
candidates lab/device_runs/session19_heldout_unaligned.json $OUT/candidates-heldout-unaligned.json ${CAND_S:-200} | tail -4
archive session19_e
