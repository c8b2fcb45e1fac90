#!/bin/bash
# Session 42's last call: the 195 held-out shapes in NT with the repacking plan (seven of them repacked; session42_a
# swept them before it: 1.204, 176 of 195).  Limit 130 s (the session's device time is nearly spent).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
heldout_layout NT ${HL_S:-130}
archive session42_i
