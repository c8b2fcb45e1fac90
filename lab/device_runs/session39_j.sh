#!/bin/bash
# Session 39 (issue 20): the CUDA C split-K partial kernel as a programmatic dependent itself (waits first, then lets
# its reduce be scheduled: codegen/splitk.PARTIAL_PROGRAMMATIC) against the form before ("plain_partial": launched
# plainly, trigger at entry; streamk_iters_ab partial=1), back to back and in CUDA graphs; then the split-K and PDL
# GPU tests.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
S="${SHAPES:-NN:700x35x2048 NN:1024x128x1024 NN:65x33x4097 TN:700x35x2048 TN:2048x64x2048 TN:1024x128x1024 NT:128x768x768 TT:768x64x768}"
lab_ab_both streamk_iters_ab ${L_S:-70} pdl=1 iters= partial=1 $S
gpu_tests ${T_S:-60} "" tests/gpu/test_pdl_gpu.py tests/gpu/test_splitk_gpu.py
archive session39_j
