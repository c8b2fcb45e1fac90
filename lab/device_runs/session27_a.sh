#!/bin/bash
# Session 27 (issue 20): the GPU tests of unaligned rows, edges and layouts on e2b4d2d's review mends (checked only
# on the CPU in session 26), then session 26's prepared ragged_split A/B (lab/experiments/edge_split_ragged_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
gpu_tests ${T_S:-170} "" tests/gpu/test_unaligned_gpu.py tests/gpu/test_edges_gpu.py tests/gpu/test_layouts_gpu.py
lab_ab edge_split_ragged_ab ${AB_S:-360} ${SHAPES:-}
archive session27_a
