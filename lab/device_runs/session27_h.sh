#!/bin/bash
# Session 27 (issue 20): the vector trim - its GPU tests and those of unaligned rows, edges, layouts, C staging and
# the API, then lab/experiments/vector_trim_ab.py (the plan with the trim, without it, forced).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
gpu_tests ${T_S:-230} "" tests/gpu/test_unaligned_gpu.py tests/gpu/test_edges_gpu.py tests/gpu/test_layouts_gpu.py \
    tests/gpu/test_c_staged_gpu.py tests/gpu/test_api_gpu.py
lab_ab vector_trim_ab ${AB_S:-250} ${SHAPES:-}
archive session27_h
