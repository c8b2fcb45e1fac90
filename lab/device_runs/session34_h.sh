#!/bin/bash
# Session 34 (issue 20): the few-vector and PDL GPU tests after their shapes moved off what fused-128x16 now takes
# (session34_g: 3 failures, each a test's shape no longer routed: 8192x16x2048, 2048x16x32768); then the suite's
# sweep (NN) at the session's library.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34h
gpu_tests ${T_S:-120} "not nothing" tests/gpu/test_fewvec_gpu.py tests/gpu/test_pdl_gpu.py
sweep ${SWEEP_S:-150}
archive session34_h
