#!/bin/bash
# Session 32 (issue 20), the two rules of b_75e735a landed (heuristic.demoted_in_layout: no sq-128x128 on B^T;
# operand_forms.for_rows: tall-128x64-k16's vector floats held on A^T): the unaligned and layout GPU tests; whether
# NN's tall-128x64-k16 also runs faster with the vector floats held (b's 18 TN shapes in NN); the suite's NT and TN
# sweeps and all 195 held-out shapes in NT and TN.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT/nn
. lab/device_runs/prelude.sh /tmp/rtc_s32c
ROOT=$OUT
gpu_tests ${T_S:-170} "" tests/gpu/test_unaligned_gpu.py tests/gpu/test_layouts_gpu.py
OUT=$ROOT/nn lab_ab layout_candidates ${L_S:-100} budget=${B_S:-80} members=tall-128x64-k16 \
    "vary=vec:unaligned_rows=False;unaligned_vectors=True" \
    NN:3001x3001x64 NN:2171x275x1089 NN:4343x275x545 NN:3071x386x770 NN:2171x273x2175 NN:4343x273x1091 \
    NN:767x771x3073 NN:2171x546x2174 NN:2171x274x4346 NN:4343x138x4346 NN:6143x193x3075 NN:2171x547x4345 \
    NN:4343x274x4346 NN:8687x547x1089 NN:2171x545x8691 NN:1535x771x12289 NN:6143x193x12291 NN:5555x555x5555
layout_sweep NT ${SWEEP_S:-120}
layout_sweep TN ${SWEEP_S:-120}
for layout in NT TN; do heldout_layout $layout ${HL_S:-110}; done
archive session32_c
