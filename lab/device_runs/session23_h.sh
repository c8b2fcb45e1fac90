#!/bin/bash
# Session 23 (issue 20): op N few-vector plans with 24 and 32 vectors (lab/experiments/fewvec_n32.py: the op N
# kernel past its 16-vector limit in that process only) against regtile.sgemm's plan (the members) and cuBLAS.
# At b1930b5 the raised limit leaked into regtile.sgemm's route for 8192x24x8192 (fixed after; see the docstring).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
lab_ab fewvec_n32 ${AB_S:-240} "$@"
archive session23_h
