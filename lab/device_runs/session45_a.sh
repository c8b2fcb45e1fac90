#!/bin/bash
# Prepared in session 44 for the next session: the suite and the held-out sets in NN and TN at session 44's last code
# (NN last swept in session 43, TN's suite in session 41 and its held-out set in session 42; session 44 changed no
# choice in either, so these are the baselines for what comes next) and the TT suite with session 44's last change (TT at
# n = 128: tall-128x64-k16 for wide-64x128-k16, measured shape by shape only).  Limits add up to 560 s (session 44's
# a ran four sweeps, a test file and an A/B in 233 s).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
sweep ${NN_S:-100}
heldout_layout NN ${HNN_S:-130}
layout_sweep TN ${TN_S:-100}
layout_sweep TT ${TT_S:-100}
heldout_layout TN ${HTN_S:-130}
archive session45_a
