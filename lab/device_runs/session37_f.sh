#!/bin/bash
# Session 37 (issue 20): after the review - the API GPU tests (the TN ring plans, column-major C and a graph replay
# among them), the ring's and the layouts' GPU tests, at the session's last commit.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37f
gpu_tests ${T_S:-300} "not nothing" tests/gpu/test_api_gpu.py tests/gpu/test_layouts_gpu.py tests/gpu/test_family_gpu.py
archive session37_f
