#!/bin/bash
# Session 32 (issue 20), the k16 members' unaligned rows' form by layout landed (operand_forms.k16_form: on A^T the
# vector floats held, on B^T alone the float copies held; d_420d4bf): the unaligned and layout GPU tests, the suite's
# NT and TN sweeps and all 195 held-out shapes in NT and TN.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s32f
gpu_tests ${T_S:-170} "" tests/gpu/test_unaligned_gpu.py tests/gpu/test_layouts_gpu.py
layout_sweep NT ${SWEEP_S:-120}
layout_sweep TN ${SWEEP_S:-120}
for layout in NT TN; do heldout_layout $layout ${HL_S:-110}; done
archive session32_f
