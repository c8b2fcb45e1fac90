#!/bin/bash
# Prepared in session 44 for the next session: the suite and the held-out sets in NN and TN at session 44's last code
# (NN last swept in session 43, TN's suite in session 41 and its held-out set in session 42; session 44 changed no
# choice in either, so these are the baselines for what comes next).  Limits add up to 500 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
sweep ${NN_S:-110}
heldout_layout NN ${HNN_S:-140}
layout_sweep TN ${TN_S:-110}
heldout_layout TN ${HTN_S:-140}
archive session45_a
