#!/bin/bash
# Session 23 (issue 20): the library with running row pointers in the op T shared-memory kernel where they fit
# (codegen/fewvec_config.SMEM_FORM): the few-vector GPU tests and memcheck, then the suite's sweep.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
fewvec_checks 240
sweep ${SWEEP_S:-170}
archive session23_j
