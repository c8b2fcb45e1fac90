#!/bin/bash
# Session 23 (issue 20): the op T shared-memory kernel stepping a pointer to its next matrix rows
# (FewVecTConfig.running_rows) against the committed plans: its main loop is 25% fewer SASS instructions (the
# row addresses were an IMAD.WIDE and parameter reloads a row a step), on the rule's configs where it fits.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
lab_ab variants_ab ${AB_S:-200} "rr:running_rows=True" 16x4096x4096 16x16384x4096 16x4096x16384 16x2048x2048 \
    16x1024x4096 16x5120x5120 12x8192x3072 10x8192x2048 14x4096x4096 13x4096x4096
archive session23_i
