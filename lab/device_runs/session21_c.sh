#!/bin/bash
# Session 21 (issue 20): the session's closing calls (prelude's last_calls): GPU=1 the whole GPU suite (GPU_S),
# else the held-out sets and the suite's sweep through regtile.sgemm as committed.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s21
last_calls session21_c
