#!/bin/bash
# Prepared in session 45 for the next session: the whole GPU suite at session 45's last code (its batched changes ran
# the API, batched, split-K, layout and few-vector GPU tests only), memcheck on the batched choice to its summary (g
# stopped at 180 s after 64 of 64 correct cases), and both batched sets with every member (members=1) at the last code.
# Limits add up to 570 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s46
gpu_suite ${G_S:-290}
batched_memcheck ${M_S:-150}
batched_sets ${H_S:-65} ${B_S:-65} members=1
archive session46_a
