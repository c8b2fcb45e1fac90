#!/bin/bash
# Session 22 (issue 20): the library at this commit (op T through shared memory for 9-16 vectors where its one
# wave of splits fills >= 90% of the slots): the few-vector GPU tests and memcheck, then the suite's sweep.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
fewvec_checks 300
sweep ${SWEEP_S:-170}
archive session22_f
