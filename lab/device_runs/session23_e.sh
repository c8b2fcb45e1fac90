#!/bin/bash
# Session 23 (issue 20): the library with the op T shared-memory kernel's grouped row loads and the rule's rows
# in flight re-fitted to where ptxas spills (SMEM_UNROLL at 988e461, SMEM_FORM since: 14 and 15 vectors at 4 rows): the
# few-vector GPU tests and memcheck; 14 and 15 vectors at 3 rows against 4; then the suite's sweep.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
fewvec_checks 300
lab_ab variants_ab 120 "u3:unroll=3" 14x4096x4096 15x4096x4096 14x16384x4096 15x2048x2048 16x4096x4096
sweep ${SWEEP_S:-170}
archive session23_e
