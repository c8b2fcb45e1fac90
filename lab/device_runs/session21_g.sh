#!/bin/bash
# Session 21 (issue 20): Nsight Compute's per-instruction stall samples on both sides of 512x8192x8192 (wide-128x256)
# with the loop-head hoist in (prelude's stall_samples): against session 20's (docs/data/session20/f_stalls_152af36),
# where the 22 head instructions held 5.2% of regtile's samples and "wait" 3.5%.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s21
stall_samples session21_g ${@:-512x8192x8192}
