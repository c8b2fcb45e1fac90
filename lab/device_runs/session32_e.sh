#!/bin/bash
# Session 32 (issue 20): does NN's wide-64x128-k16 on unaligned rows also run faster with its vector floats held at
# 168 registers (three blocks an SM)?  Held, they ran 12.4% faster in TN (d_420d4bf); session 25 measured NN's vector
# floats unheld against the float copies unheld and held, not held.  22 of the 199 shapes (under 2e10) whose NN choice
# is this member on unaligned rows (seed 35; with 1023x1025x1023 and 1111x3333x2222).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s32e
lab_ab layout_candidates ${L_S:-150} budget=${B_S:-130} members=wide-64x128-k16 "vary=vech:max_registers=168|rowsh:unaligned_vectors=False;unaligned_rows=True;max_registers=168" \
    NN:3071x771x97 NN:767x1537x387 NN:6143x193x387 NN:383x6145x195 NN:767x194x6146 NN:6143x194x770 \
    NN:1023x1025x1023 NN:135x4345x2175 NN:1087x4345x275 NN:4343x2173x139 NN:1535x771x1537 NN:271x4346x2174 \
    NN:271x2174x4346 NN:1087x1090x2174 NN:1087x546x4346 NN:383x1537x6147 NN:6143x97x6147 NN:543x2174x4346 \
    NN:8687x71x8689 NN:767x3073x3075 NN:6143x385x3075 NN:1111x3333x2222
archive session32_e
