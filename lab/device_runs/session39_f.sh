#!/bin/bash
# Session 39 (issue 20): the few-vector kernels' trigger after their wait (emit_fewvec.FEWVEC_ENTRY, session39_e):
# their GPU tests, the API and PDL tests, and compute-sanitizer's memcheck of the few-vector kernels.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
fewvec_checks ${F_S:-240}
gpu_tests ${T_S:-120} "" tests/gpu/test_pdl_gpu.py tests/gpu/test_sgemv_gpu.py
archive session39_f
