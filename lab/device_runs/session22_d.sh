#!/bin/bash
# Session 22 (issue 20): what made the shared-memory op T kernel 10-15% slower between 3707651 and 08b72b9
# (lab/experiments/fewvec_ts_ab.py: each form with __ldg / __ldcg staged loads; the first form's texts in
# lab/device_runs/session22_ts_3707651.json).  Both exist at 4cf3c41 only: at HEAD the emitter is the one-loop
# form again, so the A/B would time one form against itself; run this recipe there.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
lab_ab fewvec_ts_ab 300 old=lab/device_runs/session22_ts_3707651.json "$@"
archive session22_d
