#!/bin/bash
# Session 26 (issue 20): operand_forms.for_vector_edges - the GPU tests of unaligned rows, edges and layouts, then
# repack_ab's aligned plans on padded copies with the rule (c4, b4) and without it (c4-old, b4-old).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s26
gpu_tests ${T_S:-200} "" tests/gpu/test_unaligned_gpu.py tests/gpu/test_edges_gpu.py tests/gpu/test_layouts_gpu.py
lab_ab repack_ab ${AB_S:-260} pads=c4,c4-old,b4,b4-old ${SHAPES:-4099x4093x4091 4095x4095x4095 1023x4095x2047 \
    1111x3333x2222 8191x8193x1025 4099x4096x4091}
archive session26_d
