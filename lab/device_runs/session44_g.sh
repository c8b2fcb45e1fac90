#!/bin/bash
# Session 44's last code (a97e595: B^T alone needs n >= 500 too): the repack and API GPU tests.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
gpu_tests ${T_S:-120} "" tests/gpu/test_repack_gpu.py tests/gpu/test_api_gpu.py
archive session44_g
