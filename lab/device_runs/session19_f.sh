#!/bin/bash
# Session 19, the closing call: the whole GPU suite at the session's last commit (GPU=1; prelude's last_calls).  The
# library's code is session 18's last (e8a19b0), whose pass refactor (17172b0) came after session 18's GPU suite.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
last_calls session19_f
