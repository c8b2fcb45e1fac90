#!/bin/bash
# Session 33 (issue 20): the fused kernel's GPU tests at the review's mends (ROW's text, the swizzle's refusal).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s33i
gpu_tests ${T_S:-150} "" tests/gpu/test_fusedk_gpu.py
archive session33_i
