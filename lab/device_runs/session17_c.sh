#!/bin/bash
# Session 17, the last calls: the whole GPU suite with GPU=1, else held-out 4, 1, 2, 3 and 5 and the suite's sweep
# through regtile.sgemm with the table as committed (prelude's last_calls).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s17
last_calls session17_c
