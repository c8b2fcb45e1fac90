#!/bin/bash
# Session 27 (issue 20): every candidate member on the 20 shapes below 1.0x in session 26's H200 sweeps (suite and
# held-out 1-5, lab/device_runs/losses_h200_s26.json): is each loss a pick the table or model got wrong, or a shape
# no member wins?  Diagnostic only: the raw run is not a source of the decision table (the held-out sets stay out).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
candidates lab/device_runs/losses_h200_s26.json $OUT/candidates_losses.json ${C_S:-420}
archive session27_c
