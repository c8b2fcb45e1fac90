#!/bin/bash
# Session 26 (issue 20): the API, SGEMM and family GPU tests on the library as it lands (for_vector_edges in the
# plans of regtile.sgemm).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s26
gpu_tests ${T_S:-210} "" tests/gpu/test_api_gpu.py tests/gpu/test_sgemm_gpu.py tests/gpu/test_family_gpu.py
archive session26_f
