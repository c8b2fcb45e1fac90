#!/bin/bash
# Session 29 (issue 20), with the device time left: held-out 2 and the suite's sweep at the closing commit.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s29e
heldout_sweeps ${H_S:-63} 2
sweep ${SWEEP_S:-150}
archive session29_e
