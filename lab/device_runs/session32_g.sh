#!/bin/bash
# Session 32 (issue 20): on A^T, the vector floats against the float copies for the members operand_forms.for_rows
# gives the float copies (thread tiles of at most 64 sums).  a_09ea5b2 had the vector floats faster on all 12 TN
# timings of tall-128x64, wide-64x128 and sq-64x64.  Up to four shapes each (seed 36) of the TN shapes (under 2e10,
# unaligned rows) whose choice is one of 8 such members: every one of those members as built and with the vector
# floats (~vec).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s32g
lab_ab layout_candidates ${L_S:-200} budget=${B_S:-170} members=wide-32x64,wide-32x64-k32,tall-64x32,sq-64x64-4x8-k32,wide-64x128,sq-32x32,sq-64x64-4x8,tall-64x32-k32 \
    "vary=vec:unaligned_rows=False;unaligned_vectors=True" \
    TN:67x69x71 TN:191x99x193 TN:67x274x274 TN:271x274x70 TN:543x70x138 TN:383x193x99 TN:543x71x273 TN:2171x69x139 \
    TN:1535x195x97 TN:3071x99x97 TN:2171x70x274 TN:4343x70x138 TN:4343x275x69 TN:4343x139x137 TN:543x69x4347 \
    TN:2171x69x1091 TN:77x3072x768 TN:767x1539x193 TN:1535x771x193 TN:3071x387x193 TN:767x195x1537 TN:67x1090x4346 \
    TN:543x2174x274 TN:2171x546x274 TN:191x1537x1539 TN:1535x193x1539 TN:1535x3073x99 TN:1087x4347x137 \
    TN:1087x139x4345 TN:767x6146x194 TN:6143x1538x98 TN:16384x30x4096
archive session32_g
