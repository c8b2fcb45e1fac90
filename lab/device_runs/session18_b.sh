#!/bin/bash
# Session 18, the last calls with the read-scoreboard step as landed: the whole GPU suite with GPU=1, else held-out
# 4, 1, 2, 3 and 5 and the suite's sweep through regtile.sgemm (prelude's last_calls).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s18
last_calls session18_b
