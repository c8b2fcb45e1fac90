#!/bin/bash
# Session 16, the last calls: the whole GPU suite (the BK 32 members' family tests included) with GPU=1, else
# held-out 4, 1, 2, 3 and 5 and the suite's sweep through regtile.sgemm with the table as committed.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
last_calls session16_g
