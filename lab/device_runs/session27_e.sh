#!/bin/bash
# Session 27 (issue 20): the C-staging rule by ldc (GPU tests of c_staged and the plans), then where the ragged
# losses' time goes (lab/experiments/ragged_cost_ab.py: padded rows per operand, the aligned shape).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
gpu_tests ${T_S:-150} "" tests/gpu/test_c_staged_gpu.py tests/gpu/test_api_gpu.py
lab_ab ragged_cost_ab ${AB_S:-330} ${SHAPES:-}
archive session27_e
