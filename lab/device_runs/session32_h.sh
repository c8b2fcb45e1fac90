#!/bin/bash
# Session 32 (issue 20), the A^T rule of g_90e5c69 as first landed (on A^T every thread tile of 32 accumulators or
# more took the vector floats; since restricted to the measured tiles, operand_forms.A_T_VECTOR_FLOATS_TILES): the
# unaligned and layout GPU tests, the suite's TN sweep and all 195 held-out shapes in TN.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s32h
gpu_tests ${T_S:-160} "" tests/gpu/test_unaligned_gpu.py tests/gpu/test_layouts_gpu.py
layout_sweep TN ${SWEEP_S:-100}
heldout_layout TN ${HL_S:-100}
archive session32_h
