#!/bin/bash
# Session 27 (issue 20): the vector trim narrowed to one column and the same member - its GPU tests, then
# vector_trim_ab on the shapes it now takes and the two it now leaves (another member for the trimmed N).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
gpu_tests ${T_S:-120} "vector_trim or mixed_row" tests/gpu/test_unaligned_gpu.py
lab_ab vector_trim_ab ${AB_S:-120} ${SHAPES:-1111x3333x2222 1919x2929x3939 1024x50257x768 4099x4093x4091 2047x4097x1023}
archive session27_i
